import { describe, expect, it, vi } from 'vitest';
import { StreamBatcher } from '../../../src/nvim/stream-batcher.js';

describe('StreamBatcher', () => {
  it('coalesces deltas into one flush per interval', () => {
    vi.useFakeTimers();
    const flushed: [string, string, string][] = [];
    const batcher = new StreamBatcher((id, c) => flushed.push([id, c.text, c.reasoning]), 30);
    for (const token of ['Hel', 'lo', ', ', 'world']) batcher.push('1', { text: token });
    batcher.push('1', { reasoning: 'hmm' });
    expect(flushed).toEqual([]);
    vi.advanceTimersByTime(30);
    expect(flushed).toEqual([['1', 'Hello, world', 'hmm']]);
    batcher.push('1', { text: '!' });
    vi.advanceTimersByTime(29);
    expect(flushed).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(flushed).toEqual([
      ['1', 'Hello, world', 'hmm'],
      ['1', '!', ''],
    ]);
    vi.useRealTimers();
  });

  it('flush() sends what is pending at once and nothing when empty', () => {
    const flushed: string[] = [];
    const batcher = new StreamBatcher((_id, c) => flushed.push(c.text), 1000);
    batcher.flush();
    batcher.push('a', { text: 'x' });
    batcher.flush();
    batcher.flush();
    expect(flushed).toEqual(['x']);
  });
});
