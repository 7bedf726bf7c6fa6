import { describe, expect, it } from 'vitest';
import { contextSize } from '../../../src/history/context-size.js';
import { estimateMessageTokens } from '../../../src/history/estimate-tokens.js';
import type { AssistantMessage, History, Message } from '../../../src/history/types.js';

const user = (text: string, createdAt = 1): Message => ({ role: 'user', id: `u_${text}`, text, createdAt });

function answer(text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: 'assistant',
    id: `a_${text}`,
    text,
    toolCalls: [],
    finishReason: 'stop',
    provider: 'p',
    model: 'm',
    createdAt: 2,
    ...extra,
  };
}

const usage = (input: number) => ({ input, output: 5, cacheRead: 0, cacheWrite: 0 });
const history = (...messages: Message[]): History => ({ version: 1, messages });
const sum = (...ms: Message[]) => ms.reduce((n, m) => n + estimateMessageTokens(m), 0);
const target = { provider: 'p', model: 'm' };

describe('contextSize', () => {
  it('is our estimate while no request was counted', () => {
    const h = history(user('hello'));
    expect(contextSize(h, 100, target)).toEqual({
      tokens: 100 + sum(...h.messages),
      estimate: 100 + sum(...h.messages),
    });
  });

  it('anchors on the last reported count and estimates only what came after', () => {
    const first = user('x'.repeat(300));
    const a = answer('y'.repeat(60), { usage: usage(900), contextEstimate: 100 + sum(first) });
    const next = user('z'.repeat(30));
    const size = contextSize(history(first, a, next), 100, target);
    expect(size.estimate).toBe(100 + sum(first, a, next));
    expect(size.reported).toBe(900);
    expect(size.tokens).toBe(900 + sum(a, next));
  });

  it('counts a larger system prompt or tool list on top of the anchor', () => {
    const first = user('q');
    const a = answer('r', { usage: usage(500), contextEstimate: 100 + sum(first) });
    expect(contextSize(history(first, a), 160, target).tokens).toBe(500 + sum(a) + 60);
  });

  it('falls back to the estimate for another model or after a compaction', () => {
    const first = user('q');
    const a = answer('r', { usage: usage(5000), contextEstimate: 10 });
    const h = history(first, a);
    expect(contextSize(h, 0, { provider: 'p', model: 'other' }).reported).toBeUndefined();
    const summary: Message = { role: 'summary', id: 's', text: 'earlier', createdAt: 3 };
    const compacted = history(summary, first, a);
    expect(contextSize(compacted, 0, target)).toEqual({
      tokens: sum(summary, first, a),
      estimate: sum(summary, first, a),
    });
    // A summary older than the answer was part of that request: still an anchor.
    const before: Message = { ...summary, createdAt: 1 };
    expect(contextSize(history(before, first, a), 0, target).reported).toBe(5000);
  });

  it('skips answers without a count or without our estimate of their request', () => {
    const h = history(
      user('q'),
      answer('r', { usage: usage(0), contextEstimate: 10 }),
      answer('s', { usage: usage(50) }),
    );
    expect(contextSize(h, 0, target).reported).toBeUndefined();
  });
});
