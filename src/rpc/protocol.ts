import { z } from 'zod';

/**
 * Bumped whenever a method, its parameters or a dispatch payload changes shape. The Lua side
 * carries the same number (lua/agent/rpc.lua) and refuses a host from another build.
 */
export const PROTOCOL_VERSION = 2;

/** Lua -> host. Requests are answered from memory at once; notifications start long work. */
export const requestSchemas = {
  ping: z.object({}).default({}),
  status: z.object({}).default({}),
} as const;

export const notificationSchemas = {
  /** Sent once the host is ready and again after each setup(): the user's options. */
  configure: z.object({ protocol: z.number(), config: z.record(z.string(), z.unknown()) }),
  prompt: z.object({
    id: z.string(),
    text: z.string(),
    mode: z.enum(['ask', 'plan', 'agent']).optional(),
    model: z.string().optional(),
  }),
  stop: z.object({}).default({}),
  clear: z.object({}).default({}),
  set_mode: z.object({ mode: z.enum(['ask', 'plan', 'agent']) }),
  permission_reply: z.object({
    id: z.string(),
    decision: z.union([z.enum(['once', 'always', 'deny']), z.object({ deny: z.string() })]),
  }),
  /** `dismissed`: the user closed the question without answering (`reply` is then ignored). */
  answer: z.object({ id: z.string(), reply: z.string().default(''), dismissed: z.boolean().optional() }),
  lsp_result: z.object({ id: z.string(), result: z.unknown() }),
  /** Implement the latest plan: Agent mode, todos from its tasks, run. */
  build: z.object({ id: z.string() }),
  close_plan: z.object({}).default({}),
  /** Answered with a `models` dispatch carrying the same id. */
  list_models: z.object({ id: z.string() }),
  compact: z.object({ id: z.string() }),
  session_rules: z.object({ id: z.string() }),
  list_sessions: z.object({ id: z.string() }),
  /** Without `session`: the project's most recent one. */
  resume: z.object({ id: z.string(), session: z.string().optional() }),
  rename_session: z.object({ title: z.string().min(1), session: z.string().optional() }),
  export_session: z.object({ id: z.string(), session: z.string().optional() }),
  delete_session: z.object({ session: z.string() }),
  undo: z.object({ id: z.string(), force: z.boolean().default(false) }),
  redo: z.object({ id: z.string(), force: z.boolean().default(false) }),
} as const;

export type RequestMethod = keyof typeof requestSchemas;
export type NotificationMethod = keyof typeof notificationSchemas;
export type RequestParams<M extends RequestMethod> = z.infer<(typeof requestSchemas)[M]>;
export type NotificationParams<M extends NotificationMethod> = z.infer<(typeof notificationSchemas)[M]>;

/** Host -> Lua: every call goes through `require('agent.rpc').dispatch(method, payload)`. */
export interface DispatchPayloads {
  ready: { protocol: number; pid: number; log: string; version: string };
  /** A run started for the prompt with this id. */
  run_started: { id: string; model: string };
  /** Coalesced streamed text for the running prompt (at most one call per frame). */
  stream: { id: string; text?: string; reasoning?: string };
  /** The run ended; `error` is one sentence the user can act on. */
  run_done: {
    id: string;
    /** The saved session the run belongs to. */
    session?: string;
    outcome: 'done' | 'failed' | 'cancelled' | 'budget';
    error?: string;
    changed_files?: string[];
    checks?: { command: string; exit_code: number | null; passed: boolean }[];
    steps?: number;
  };
  /** A tool call's header line and folded details. */
  tool: {
    id: string;
    call_id: string;
    name: string;
    summary: string;
    status: 'running' | 'done' | 'failed' | 'denied' | 'cancelled';
    detail?: string;
    duration_ms?: number;
  };
  permission: { id: string; tool: string; summary: string; pattern: string; diff?: string; paths?: string[] };
  ask_user: { id: string; question: string; options: string[] };
  /** A prompt the host no longer waits for (the run stopped). */
  prompt_cancel: { id: string };
  file_changed: { path: string };
  plan_ready: { id: string; path: string };
  mode_changed: { mode: 'ask' | 'plan' | 'agent' };
  activity: { id: string; text?: string };
  rules: { id: string; rules: { tool: string; pattern?: string; action: string }[] };
  sessions: {
    id: string;
    current?: string;
    sessions: {
      id: string;
      title: string;
      updatedAt: number;
      mode: string;
      model: string;
      cost?: number;
      messages?: number;
      bytes?: number;
    }[];
    problems: { file: string; error: string }[];
  };
  transcript: { session: string; entries: unknown[]; mode: 'ask' | 'plan' | 'agent'; model: string };
  exported: { id: string; markdown: string };
  /** A saved session was deleted; `open` when it was the chat's own (the chat then starts over). */
  session_deleted: { session: string; open: boolean };
  restored: { id: string; kind: 'undo' | 'redo'; restored: string[]; conflicts: string[] };
  models: { id: string; models: { ref: string; context_window: number }[] };
  status: {
    id: string;
    step: number;
    max_steps: number;
    input_tokens: number;
    output_tokens: number;
    context_tokens: number;
    context_estimate: number;
    context_window: number;
    cost?: number;
  };
  /** A paragraph for the transcript that is not model output (first-run help, notices). */
  notice: { text: string; level: 'info' | 'warn' | 'error' };
}

export type DispatchMethod = keyof DispatchPayloads;

export function isRequestMethod(name: string): name is RequestMethod {
  return Object.hasOwn(requestSchemas, name);
}

export function isNotificationMethod(name: string): name is NotificationMethod {
  return Object.hasOwn(notificationSchemas, name);
}
