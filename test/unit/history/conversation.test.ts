import { describe, expect, it } from 'vitest';
import {
  appendSummary,
  appendUser,
  closePendingCalls,
  commitAssistant,
  createHistory,
  pendingCalls,
  recordToolResult,
  replayMessages,
  setToolState,
} from '../../../src/history/conversation.js';
import { estimateHistoryTokens, estimateTextTokens } from '../../../src/history/estimate-tokens.js';
import type { AssistantMessage, ToolCall } from '../../../src/history/types.js';
import { sessionUsage, turnUsage } from '../../../src/history/usage.js';

function call(id: string, name = 'read_file'): ToolCall {
  return { id, name, arguments: {}, rawArguments: '{}', state: 'pending' };
}

function assistant(
  calls: ToolCall[],
  usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
): AssistantMessage {
  return {
    role: 'assistant',
    id: `msg_${Math.random()}`,
    text: 'ok',
    toolCalls: calls,
    finishReason: calls.length ? 'tool_calls' : 'stop',
    provider: 'p',
    model: 'm',
    usage,
    createdAt: 0,
  };
}

describe('conversation model', () => {
  it('keeps results with the invocation that made the call, even when a provider reuses ids', () => {
    const h = createHistory();
    appendUser(h, 'go');
    const a = commitAssistant(h, assistant([call('call_0')]));
    const b = commitAssistant(h, assistant([call('call_0'), call('')]));
    expect(a.toolCalls[0]?.id).toBe('call_0');
    expect(b.toolCalls[0]?.id).not.toBe('call_0');
    expect(b.toolCalls[0]?.providerCallId).toBe('call_0');
    expect(b.toolCalls[1]?.id).toMatch(/^call_[A-Za-z0-9]{20}$/);
    expect(
      new Set(h.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.id) : []))).size,
    ).toBe(3);

    expect(recordToolResult(h, a.id, 'call_0', { output: 'first' })).toBe(true);
    expect(recordToolResult(h, b.id, b.toolCalls[0]?.id ?? '', { output: 'second' })).toBe(true);
    expect(recordToolResult(h, a.id, 'call_0', { output: 'duplicate' })).toBe(false);
    expect(a.toolCalls[0]?.result?.output).toBe('first');
    expect(a.toolCalls[0]?.state).toBe('done');
  });

  it('walks the state machine and closes a cancelled batch with results', () => {
    const h = createHistory();
    const m = commitAssistant(h, assistant([call('a'), call('b'), call('c')]));
    expect(setToolState(h, m.id, 'a', 'running')).toBe(true);
    recordToolResult(h, m.id, 'a', { output: 'boom', isError: true });
    expect(m.toolCalls[0]?.state).toBe('error');
    expect(setToolState(h, m.id, 'a', 'running')).toBe(false);
    expect(pendingCalls(m).map((c) => c.id)).toEqual(['b', 'c']);
    const closed = closePendingCalls(h, m.id, 'cancelled');
    expect(closed.map((c) => c.id)).toEqual(['b', 'c']);
    expect(m.toolCalls.map((c) => c.state)).toEqual(['error', 'cancelled', 'cancelled']);
    expect(pendingCalls(m)).toEqual([]);
  });

  it('answers invalid text-fallback calls with their error instead of running them', () => {
    const h = createHistory();
    const bad = { ...call(''), invalid: 'Could not parse the tool call.' };
    const m = commitAssistant(h, assistant([bad]));
    expect(m.toolCalls[0]).toMatchObject({
      state: 'error',
      result: { output: 'Could not parse the tool call.', isError: true },
    });
  });

  it('is plain data that survives JSON exactly', () => {
    const h = createHistory();
    appendUser(h, 'hé ✓');
    const m = commitAssistant(h, assistant([call('x')]));
    m.replay = { provider: 'p', data: { thinking: [{ type: 'thinking', thinking: 't', signature: 's' }] } };
    recordToolResult(h, m.id, 'x', { output: 'out', meta: { error_kind: 'none' } });
    expect(JSON.parse(JSON.stringify(h))).toEqual(h);
  });

  it('replays from the last summary and estimates tokens', () => {
    const h = createHistory();
    appendUser(h, 'old question');
    commitAssistant(h, assistant([]));
    appendSummary(h, 'We talked.');
    appendUser(h, 'new');
    expect(replayMessages(h).map((m) => m.role)).toEqual(['summary', 'user']);
    // UTF-8 bytes / 3, rounded up.
    expect(estimateTextTokens('abcdefgh')).toBe(3);
    expect(estimateTextTokens('ééé')).toBe(2);
    expect(estimateHistoryTokens(h)).toBeGreaterThan(0);
  });

  it('sums usage per turn and per session', () => {
    const h = createHistory();
    appendUser(h, 'a');
    commitAssistant(h, assistant([], { input: 100, output: 10, cacheRead: 5, cacheWrite: 1 }));
    appendUser(h, 'b');
    commitAssistant(h, assistant([], { input: 20, output: 2, cacheRead: 0, cacheWrite: 0 }));
    commitAssistant(h, assistant([], { input: 30, output: 3, cacheRead: 7, cacheWrite: 0 }));
    expect(turnUsage(h)).toEqual({ input: 50, output: 5, cacheRead: 7, cacheWrite: 0 });
    expect(sessionUsage(h)).toEqual({ input: 150, output: 15, cacheRead: 12, cacheWrite: 1 });
  });
});
