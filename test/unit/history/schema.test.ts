import { describe, expect, it } from 'vitest';
import {
  appendUser,
  commitAssistant,
  createHistory,
  recordToolResult,
} from '../../../src/history/conversation.js';
import { parseHistory } from '../../../src/history/schema.js';

describe('history schema', () => {
  it('accepts what the conversation functions produce, after a JSON round trip', () => {
    const h = createHistory();
    appendUser(h, 'go');
    const m = commitAssistant(h, {
      role: 'assistant',
      id: 'a',
      text: 'ok',
      reasoning: 'r',
      toolCalls: [
        {
          id: 'c',
          name: 'shell',
          arguments: { command: 'ls' },
          rawArguments: '{"command":"ls"}',
          state: 'pending',
        },
      ],
      finishReason: 'tool_calls',
      provider: 'p',
      model: 'm',
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
      replay: { provider: 'p', data: { reasoning_content: 'r' } },
      createdAt: 1,
    });
    recordToolResult(h, m.id, 'c', { output: 'a.ts' });
    const parsed = parseHistory(JSON.parse(JSON.stringify(h)));
    expect(parsed).toEqual({ ok: true, history: h });
  });

  it('names the first bad path', () => {
    const bad = {
      version: 1,
      messages: [{ role: 'assistant', id: 'a', text: 'x', toolCalls: [{ id: '' }] }],
    };
    const parsed = parseHistory(bad);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^history\.messages\.0\./);
    expect(parseHistory({ version: 2, messages: [] }).ok).toBe(false);
  });
});
