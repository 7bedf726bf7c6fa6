import { z } from 'zod';

/**
 * Bumped whenever a method, its parameters or a dispatch payload changes shape. The Lua side
 * carries the same number (lua/agent/rpc.lua) and refuses a host from another build.
 */
export const PROTOCOL_VERSION = 1;

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
  run_done: { id: string; outcome: 'done' | 'failed' | 'cancelled'; error?: string };
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
