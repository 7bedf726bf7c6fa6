import type { Editor } from './editor.js';
import type { ReadLedger } from './read-ledger.js';

export type Mode = 'ask' | 'plan' | 'agent';

/**
 * The patch format a model writes best, so tool descriptions can lead with it: `openai` is the
 * "*** Begin Patch" format GPT-4.1, GPT-5 and Codex models are trained on; `unified` is
 * `diff -u` / `git diff`, which every other family writes most reliably.
 */
export type PatchDialect = 'unified' | 'openai';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface TodoItem {
  content: string;
  status: TodoStatus;
}

/** The chat-local task list; the agent loop owns it (and seeds it from a plan's `## Tasks`). */
export interface TodoStore {
  get(): TodoItem[];
  set(items: TodoItem[]): void;
}

export interface ToolConfig {
  /** Project build command; overrides detection (`build` tool, target "build"). */
  build_command?: string;
  /** Project test command; overrides detection (`build` tool, target "test"). */
  test_command?: string;
  /**
   * ripgrep binary: a path, `false` to force the native search, undefined to look up `rg` on
   * PATH. Tests inject both so each code path runs.
   */
  rg_path?: string | false;
}

export interface ToolContext {
  /** Absolute path of the project root; every file tool is confined to it. */
  root: string;
  editor: Editor;
  /** Aborted when the user stops the run; long tools (shell, search) stop and clean up. */
  signal: AbortSignal;
  config: ToolConfig;
  todos: TodoStore;
  /** What the model has seen of each file this chat; edits to files changed since are refused. */
  reads: ReadLedger;
}

/** What `execute` receives: the context plus the mode the call was made in. */
export interface ToolCallContext extends ToolContext {
  mode: Mode;
  /** Canonical name of the tool being run, for permission requests. */
  tool: string;
}

export function createTodoStore(initial: TodoItem[] = []): TodoStore {
  let items = initial.map((item) => ({ ...item }));
  return {
    get: () => items.map((item) => ({ ...item })),
    set: (next) => {
      items = next.map((item) => ({ ...item }));
    },
  };
}
