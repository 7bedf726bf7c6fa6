import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  AssistantMessage,
  Message,
  SummaryMessage,
  ToolCall,
  UserMessage,
} from '../../../src/history/types.js';

/** A temporary directory removed at the end of the test (`await using`). */
export async function tempDir(prefix = 'agent-store-'): Promise<{ path: string } & AsyncDisposable> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return { path: dir, [Symbol.asyncDispose]: () => fs.rm(dir, { recursive: true, force: true }) };
}

export function user(id: string, text = `prompt ${id}`): UserMessage {
  return { role: 'user', id, text, createdAt: 1_700_000_000_000 };
}

export function summary(id: string, text = 'Earlier: fixed the parser.'): SummaryMessage {
  return { role: 'summary', id, text, createdAt: 1_700_000_000_500 };
}

export function call(
  id: string,
  name = 'read_file',
  args: Record<string, unknown> = { path: 'a.ts' },
): ToolCall {
  return { id, name, arguments: args, rawArguments: JSON.stringify(args), state: 'pending' };
}

export function assistant(
  id: string,
  calls: ToolCall[] = [],
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: 'assistant',
    id,
    text: calls.length ? '' : 'Done.',
    toolCalls: calls,
    finishReason: calls.length ? 'tool_calls' : 'stop',
    provider: 'anthropic',
    model: 'claude-test',
    usage: { input: 120, output: 30, cacheRead: 100, cacheWrite: 0 },
    createdAt: 1_700_000_001_000,
    ...extra,
  };
}

/** One of each kind, reasoning and replay state included. */
export function everyKind(): Message[] {
  const withReplay = assistant('a1', [call('c1'), call('c2', 'shell', { command: 'npm test' })], {
    text: 'Reading two things.',
    reasoning: 'The user wants the tests to pass; look first.',
    replay: {
      provider: 'anthropic',
      data: { signature: 'EuYBCkQYAiJA/sk-notasecretbutbase64/+==', type: 'thinking' },
    },
  });
  const c1 = withReplay.toolCalls[0] as ToolCall;
  c1.replay = { provider: 'anthropic', data: { id: 'toolu_1' } };
  c1.providerCallId = 'toolu_1';
  return [
    summary('s0'),
    user('u1', 'Fix the failing test\nin src/a.ts'),
    withReplay,
    assistant('a2', [], {
      text: 'All green.',
      textToolCalls: true,
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 5 },
    }),
  ];
}
