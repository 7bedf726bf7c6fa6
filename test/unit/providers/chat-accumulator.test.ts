import { describe, expect, it } from 'vitest';
import { ChatAccumulator } from '../../../src/providers/chat-accumulator.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('chat accumulator', () => {
  it('separates id-less parallel calls of the same function once arguments are complete', () => {
    const acc = new ChatAccumulator('p');
    acc.push(chunk({ tool_calls: [{ function: { name: 'read_file', arguments: '{"path":"a"}' } }] }));
    acc.push(chunk({ tool_calls: [{ function: { name: 'read_file', arguments: '{"path":"b"}' } }] }));
    acc.push(chunk({}, 'tool_calls'));
    const out = acc.finish(true);
    expect(out.calls.map((c) => c.arguments)).toEqual([{ path: 'a' }, { path: 'b' }]);
    expect(out.calls.map((c) => c.id)).toEqual(['', '']);
  });

  it('accepts arguments resent whole on every delta and object-valued arguments', () => {
    const acc = new ChatAccumulator('p');
    acc.push(
      chunk({
        tool_calls: [{ index: 0, id: 'c', function: { name: 'shell', arguments: '{"command":"ls"}' } }],
      }),
    );
    acc.push(
      chunk({
        tool_calls: [{ index: 0, id: 'c', function: { name: 'shell', arguments: '{"command":"ls"}' } }],
      }),
    );
    acc.push(
      chunk({ tool_calls: [{ index: 1, id: 'd', function: { name: 'glob', arguments: { pattern: '*' } } }] }),
    );
    const out = acc.finish(true);
    expect(out.calls.map((c) => [c.id, c.arguments])).toEqual([
      ['c', { command: 'ls' }],
      ['d', { pattern: '*' }],
    ]);
    expect(out.finishReason).toBe('tool_calls');
  });

  it('ignores other choices, reads usage anywhere and maps finish reasons', () => {
    const acc = new ChatAccumulator('p');
    acc.push({ choices: [{ index: 1, delta: { content: 'other' } }] });
    acc.push(chunk({ content: 'mine' }));
    acc.push({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } },
    });
    acc.push(chunk({}, 'end_turn'));
    const out = acc.finish(false);
    expect(out.text).toBe('mine');
    expect(out.usage).toEqual({ input: 6, output: 3, cacheRead: 4, cacheWrite: 0 });
    expect(out.finishReason).toBe('stop');
  });

  it('refuses a stream without [DONE] or finish reason, and a nameless call', () => {
    const a = new ChatAccumulator('p');
    a.push(chunk({ content: 'x' }));
    expect(() => a.finish(false)).toThrow(/ended before it was complete/);
    const b = new ChatAccumulator('p');
    b.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }));
    expect(() => b.finish(true)).toThrow(/without a name/);
  });
});
