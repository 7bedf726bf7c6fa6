import { describe, expect, it } from 'vitest';
import { coalesceEvents } from '../../../src/providers/coalesce-events.js';
import { SseParser } from '../../../src/providers/sse-reader.js';

const bytes = (s: string) => new TextEncoder().encode(s);

function parseInPieces(text: string, size: number) {
  const parser = new SseParser();
  const all = bytes(text);
  const out = [];
  for (let i = 0; i < all.length; i += size) out.push(...parser.push(all.subarray(i, i + size)));
  out.push(...parser.end());
  return out;
}

describe('SSE parser', () => {
  const stream =
    ': keep-alive\r\n\r\nevent: message_start\r\ndata: {"a":"é✓"}\r\n\r\ndata: line1\rdata: line2\r\rjunk without field\n\ndata: [DONE]\n\ndata: partial';

  it.each([1, 2, 3, 7, 1000])('gives the same events whatever the read size (%i bytes)', (size) => {
    expect(parseInPieces(stream, size)).toEqual([
      { event: 'message_start', data: '{"a":"é✓"}' },
      { event: undefined, data: 'line1\nline2' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('delivers a last event missing only its blank line, and drops a cut-off line', () => {
    expect(parseInPieces('data: {"a":1}\n\ndata: [DONE]\n', 4)).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: '[DONE]' },
    ]);
    expect(parseInPieces('data: [DONE]\r', 3)).toEqual([{ event: undefined, data: '[DONE]' }]);
    expect(parseInPieces('data: {"a":1}\n\ndata: {"cho', 5)).toEqual([{ event: undefined, data: '{"a":1}' }]);
  });

  it('strips exactly one space after the colon and keeps empty data lines', () => {
    const parser = new SseParser();
    expect(parser.push(bytes('data:  two spaces\ndata\n\n'))).toEqual([
      { event: undefined, data: ' two spaces\n' },
    ]);
  });
});

describe('event coalescing', () => {
  it('folds neighbours of one kind and keeps the order of kinds', () => {
    expect(
      coalesceEvents([
        { type: 'reasoning', text: 'a' },
        { type: 'reasoning', text: 'b' },
        { type: 'text', text: 'c' },
        { type: 'text', text: 'd' },
        { type: 'tool_call_start', index: 0, id: 'x', name: 'n' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '{' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '}' },
        { type: 'tool_call_delta', index: 1, argumentsDelta: '{' },
      ]),
    ).toEqual([
      { type: 'reasoning', text: 'ab' },
      { type: 'text', text: 'cd' },
      { type: 'tool_call_start', index: 0, id: 'x', name: 'n' },
      { type: 'tool_call_delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool_call_delta', index: 1, argumentsDelta: '{' },
    ]);
  });
});
