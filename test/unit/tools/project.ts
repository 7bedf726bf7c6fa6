import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Editor, PermissionDecision, PermissionRequest } from '../../../src/tools/editor.js';
import { ReadLedger } from '../../../src/tools/read-ledger.js';
import { createTodoStore, type ToolContext } from '../../../src/tools/tool-context.js';

/** A throwaway project folder; `files` maps relative paths to contents. */
export async function makeProject(files: Record<string, string | Buffer> = {}): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-tools-'));
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), content);
  }
  return root;
}

export async function removeProject(root: string): Promise<void> {
  await fs.rm(root, { recursive: true, force: true });
}

export interface FakeEditor extends Editor {
  buffers: Map<string, string>;
  changed: string[];
  permissions: PermissionRequest[];
  decision: PermissionDecision;
  answers: string[];
}

export function fakeEditor(): FakeEditor {
  const editor: FakeEditor = {
    buffers: new Map(),
    changed: [],
    permissions: [],
    decision: 'once',
    answers: [],
    async bufferText(abs) {
      return editor.buffers.get(abs);
    },
    async diagnostics() {
      return [];
    },
    async lsp() {
      return undefined;
    },
    fileChanged(abs) {
      editor.changed.push(abs);
    },
    async askPermission(request) {
      editor.permissions.push(request);
      return editor.decision;
    },
    async askUser(_question, options) {
      return editor.answers.shift() ?? (options[0] as string);
    },
  };
  return editor;
}

export function makeContext(
  root: string,
  overrides: Partial<ToolContext> = {},
): ToolContext & { editor: FakeEditor } {
  return {
    root,
    editor: fakeEditor(),
    signal: new AbortController().signal,
    config: {},
    todos: createTodoStore(),
    reads: new ReadLedger(),
    ...overrides,
  } as ToolContext & { editor: FakeEditor };
}
