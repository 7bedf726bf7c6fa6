import { describe, expect, it } from 'vitest';
import { titleFromPrompt } from '../../../src/store/index.js';

describe('titleFromPrompt', () => {
  it('takes the first meaningful line without Markdown noise', () => {
    expect(titleFromPrompt('\n\n## Fix `parse()` in *src/a.ts*\nmore')).toBe('Fix parse() in src/a.ts');
    expect(titleFromPrompt('```ts\nconst x = 1;\n```\nWhy does this fail?')).toBe('Why does this fail?');
    expect(titleFromPrompt('   ')).toBe('New session');
  });

  it('cuts long prompts at a word boundary', () => {
    const title = titleFromPrompt(
      'Please refactor the session store so that appends never rewrite the whole file and listing stays fast',
    );
    expect(title.length).toBeLessThanOrEqual(61);
    expect(title.endsWith('…')).toBe(true);
    expect(title).toMatch(/^Please refactor the session store so that appends never…$/);
  });
});
