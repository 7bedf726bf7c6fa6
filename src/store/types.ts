/**
 * The persisted shape of a session. Messages are the history's own plain-JSON types; everything
 * else here is what the store adds around them (who, where, which mode and model, totals).
 */
import type { Message, ToolCall, Usage } from '../history/types.js';
import type { Mode, TodoItem } from '../tools/tool-context.js';

export type { Mode, TodoItem };

export interface SessionMeta {
  id: string;
  title: string;
  /** Real path of the project root the session belongs to. */
  root: string;
  projectId: string;
  createdAt: number;
  updatedAt: number;
  mode: Mode;
  model: string;
  todos: TodoItem[];
  /** The latest plan file (`.agent/plans/*.md`), when one was written. */
  planPath?: string;
  /** Token totals over the whole session, as the host counts them. */
  usage: Usage;
  /** Cost total in USD, when the model's pricing is known. */
  cost?: number;
  /** Messages in the history; kept in the snapshot (not the log) for listing. */
  messages?: number;
}

/** What the host may change after creation; `updatedAt` follows by itself. */
export type MetaPatch = Partial<
  Pick<SessionMeta, 'title' | 'mode' | 'model' | 'todos' | 'planPath' | 'usage' | 'cost'>
>;

export interface SessionSummary {
  id: string;
  title: string;
  root: string;
  projectId: string;
  createdAt: number;
  updatedAt: number;
  mode: Mode;
  model: string;
  cost?: number;
  /** Messages in the history, when the snapshot says (sessions saved before it did not). */
  messages?: number;
  /** Size of the session's log on disk. */
  bytes?: number;
}

export interface SessionData {
  meta: SessionMeta;
  /** The history's messages as the host last recorded them. */
  messages: Message[];
  /** True when the last log line was torn (the process died mid-write) and was left out. */
  tornTail: boolean;
}

/** Why a session could not be listed or loaded; the others are still listed. */
export interface StoreProblem {
  file: string;
  sessionId?: string;
  error: string;
}

export interface SessionList {
  /** Most recently updated first. */
  sessions: SessionSummary[];
  problems: StoreProblem[];
}

/** One line of a session log. The first line is always the `session` header. */
export type LogEvent =
  | { type: 'session'; version: number; meta: SessionMeta }
  | { type: 'message'; at: number; message: Message }
  /** A message rewritten as a whole (same id, same place). */
  | { type: 'replace'; at: number; message: Message }
  /** Tool calls of an assistant message that changed (state, result): replaced or added by id. */
  | { type: 'calls'; at: number; messageId: string; calls: ToolCall[] }
  /** Compaction: the removed messages give way to `insert`, placed where the first removed one was. */
  | { type: 'splice'; at: number; remove: string[]; insert: Message[] }
  | { type: 'meta'; at: number; patch: MetaPatch };

export class SessionBusyError extends Error {
  constructor(
    readonly sessionId: string,
    readonly owner: { pid: number; host: string },
  ) {
    super(`session ${sessionId} is open in another Neovim (pid ${owner.pid} on ${owner.host})`);
    this.name = 'SessionBusyError';
  }
}

export class SessionNotFoundError extends Error {
  constructor(readonly sessionId: string) {
    super(`no session ${sessionId}`);
    this.name = 'SessionNotFoundError';
  }
}

export class SessionCorruptError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`session file ${file} is unreadable: ${detail}`);
    this.name = 'SessionCorruptError';
  }
}
