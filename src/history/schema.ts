/**
 * Runtime schema of a persisted History, for the store to check a session file before trusting
 * it. It mirrors types.ts; `parseHistory` keeps unknown keys (a newer build may have added
 * some) and rejects shapes that would break request building.
 */
import { z } from 'zod';
import type { History } from './types.js';

const replay = z.looseObject({ provider: z.string(), data: z.record(z.string(), z.unknown()) });

const usage = z.looseObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  reasoning: z.number().optional(),
});

const toolCall = z.looseObject({
  id: z.string().min(1),
  providerCallId: z.string().optional(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  rawArguments: z.string(),
  invalid: z.string().optional(),
  state: z.enum(['pending', 'running', 'done', 'error', 'denied', 'cancelled']),
  result: z
    .looseObject({
      output: z.string(),
      isError: z.boolean().optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  replay: replay.optional(),
});

const user = z.looseObject({
  role: z.literal('user'),
  id: z.string(),
  text: z.string(),
  createdAt: z.number(),
});
const summary = z.looseObject({
  role: z.literal('summary'),
  id: z.string(),
  text: z.string(),
  createdAt: z.number(),
});
const assistant = z.looseObject({
  role: z.literal('assistant'),
  id: z.string(),
  text: z.string(),
  reasoning: z.string().optional(),
  toolCalls: z.array(toolCall),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'other']),
  provider: z.string(),
  model: z.string(),
  usage: usage.optional(),
  contextEstimate: z.number().optional(),
  textToolCalls: z.boolean().optional(),
  replay: replay.optional(),
  createdAt: z.number(),
});

export const historySchema = z.looseObject({
  version: z.literal(1),
  messages: z.array(z.discriminatedUnion('role', [user, summary, assistant])),
});

/** The history, or a one-line reason naming the first bad path. */
export function parseHistory(data: unknown): { ok: true; history: History } | { ok: false; error: string } {
  const parsed = historySchema.safeParse(data);
  if (parsed.success) return { ok: true, history: parsed.data as History };
  const issue = parsed.error.issues[0];
  return { ok: false, error: `history.${(issue?.path ?? []).join('.')}: ${issue?.message ?? 'invalid'}` };
}
