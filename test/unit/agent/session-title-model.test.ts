import { describe, expect, it } from 'vitest';
import { cleanTitle } from '../../../src/agent/session-title-model.js';

describe('cleanTitle', () => {
  it('keeps the first line, without quotes, labels, Markdown or final punctuation', () => {
    expect(cleanTitle('"Fix the parser bug."')).toBe('Fix the parser bug');
    expect(cleanTitle('Title: **Refactor config loading**\nBecause…')).toBe('Refactor config loading');
    expect(cleanTitle('\n\n  `Add retries`  ')).toBe('Add retries');
    expect(cleanTitle('\u201CCurly quotes\u201D')).toBe('Curly quotes');
  });

  it('cuts to six words and gives nothing for an empty reply', () => {
    expect(cleanTitle('one two three four five six seven eight')).toBe('one two three four five six');
    expect(cleanTitle('   \n ')).toBeUndefined();
    expect(cleanTitle('"..."')).toBeUndefined();
  });
});
