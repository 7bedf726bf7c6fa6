import path from 'node:path';
import type { PermissionService } from '../permissions/index.js';
import { decisionOf } from '../permissions/index.js';
import type { Editor, PermissionDecision, PermissionRequest } from '../tools/editor.js';
import type { SessionRecorder } from './session-recorder.js';

/** What the chat needs from the editor; the host passes Neovim's, tests a fake or nothing. */
export interface EditorPort {
  bufferText(absPath: string): Promise<string | undefined>;
  diagnostics(absPath?: string): Promise<unknown[]>;
  lsp(request: Record<string, unknown>): Promise<unknown>;
  fileChanged(absPath: string): void | Promise<void>;
  askPermission(request: PermissionRequest, signal?: AbortSignal): Promise<PermissionDecision>;
  askUser(question: string, options: string[], signal?: AbortSignal): Promise<string>;
}

/** Without an editor (scripts, tests): nothing is open, nobody can approve, questions go unanswered. */
export const HEADLESS_EDITOR: EditorPort = {
  bufferText: async () => undefined,
  diagnostics: async () => [],
  lsp: async () => undefined,
  fileChanged: () => undefined,
  askPermission: async () => ({ deny: 'No one is there to approve it (headless run).' }),
  askUser: async () => '',
};

/** File tools whose targets are checkpointed (for undo) once their write is allowed. */
const CHECKPOINTED_TOOLS = new Set(['write_file', 'edit_file', 'apply_patch']);
/** Tools whose changed files are checkpointed after they ran (session-recorder changedByCommand). */
const COMMAND_TOOLS = new Set(['shell', 'build']);

export interface ToolEditorParts {
  port: EditorPort;
  permissions: PermissionService;
  recorder: SessionRecorder;
  root: string;
  /** The run's signal: open prompts close when the run stops. */
  signal: AbortSignal;
}

/**
 * The tools' view of the editor for one run: permission rules and auto-approve decide before the
 * user is asked, and an allowed file change is checkpointed before the tool writes it.
 */
export function toolEditor({ port, permissions, recorder, root, signal }: ToolEditorParts): Editor {
  return {
    bufferText: (p) => port.bufferText(p),
    diagnostics: async (p) => (await port.diagnostics(p)) as Awaited<ReturnType<Editor['diagnostics']>>,
    lsp: async (r) => (await port.lsp({ ...r })) as Awaited<ReturnType<Editor['lsp']>>,
    fileChanged: (p) => port.fileChanged(p),
    askPermission: async (request) => {
      const decision = decisionOf(
        await permissions.check(request, (r, s) => port.askPermission(r, s), signal),
      );
      if ((decision === 'once' || decision === 'always') && CHECKPOINTED_TOOLS.has(request.tool)) {
        for (const rel of request.paths ?? []) await recorder.beforeChange(path.resolve(root, rel));
      }
      // A command's changes are known only afterwards: note now what git could not restore.
      if ((decision === 'once' || decision === 'always') && COMMAND_TOOLS.has(request.tool)) {
        await recorder.beforeCommand(root);
      }
      return decision;
    },
    askUser: (question, options) => port.askUser(question, options, signal),
  };
}
