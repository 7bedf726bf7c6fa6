import { describe, expect, it } from 'vitest';
import { detailOf } from '../../../src/agent/run-sink.js';

describe("a tool call's details in the chat", () => {
  it('shows the arguments, then the result', () => {
    expect(detailOf({ path: 'a.txt' }, '{"ok":true}')).toBe(
      '{\n  "path": "a.txt"\n}\n--- result ---\n{"ok":true}',
    );
    expect(detailOf({ path: 'a.txt' })).toBe('{\n  "path": "a.txt"\n}');
  });

  it('cuts a huge line and a huge whole to a size Neovim draws at once, saying how much is left out', () => {
    const line = detailOf({ content: 'x'.repeat(5_000_000) });
    expect(line.length).toBeLessThan(1000);
    expect(line).toMatch(/… \(\d+ more characters\)/);
    const many = detailOf({}, Array.from({ length: 10_000 }, (_, i) => `line ${i}`).join('\n'));
    expect(many.length).toBeLessThan(17 * 1024 + 100);
    expect(many).toMatch(/\n… \(\d+ more characters\)$/);
    expect(many.startsWith('{}\n--- result ---\nline 0\nline 1\n')).toBe(true);
  });
});
