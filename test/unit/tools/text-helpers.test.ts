import { describe, expect, it } from 'vitest';
import { globToRegExp } from '../../../src/util/glob-to-regexp.js';
import { HeadTailBuffer } from '../../../src/util/head-tail-buffer.js';
import { htmlToText } from '../../../src/util/html-to-text.js';

describe('globToRegExp', () => {
  const matches = (glob: string, p: string) => globToRegExp(glob).test(p);
  it('matches names at any depth without a slash, anchored paths with one', () => {
    expect(matches('*.ts', 'a/b/c.ts')).toBe(true);
    expect(matches('*.ts', 'c.tsx')).toBe(false);
    expect(matches('src/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/*.ts', 'src/x/a.ts')).toBe(false);
    expect(matches('src/**/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/**/*.ts', 'src/x/y/a.ts')).toBe(true);
    expect(matches('**/test_?.py', 'tests/test_1.py')).toBe(true);
    expect(matches('*.{c,h}', 'x/y.h')).toBe(true);
    expect(matches('[ab].txt', 'b.txt')).toBe(true);
    expect(matches('[!ab].txt', 'b.txt')).toBe(false);
    expect(matches('docs/**', 'docs/a/b.md')).toBe(true);
    expect(matches('a+b.txt', 'a+b.txt')).toBe(true);
  });
});

describe('HeadTailBuffer', () => {
  it('keeps the head and the tail and counts what it dropped', () => {
    const buf = new HeadTailBuffer(10);
    for (const part of ['01234', '56789', 'abcde', 'fghij']) buf.push(Buffer.from(part));
    expect(buf.totalBytes).toBe(20);
    expect(buf.omittedBytes).toBe(10);
    expect(buf.text()).toBe('01234\n[... 10 bytes omitted ...]\nfghij');
  });
});

describe('htmlToText', () => {
  it('keeps the readable parts of a page', () => {
    const page = htmlToText(
      '<html><head><title>Doc &amp; more</title><script>x()</script></head><body><nav>menu</nav><h1>Title</h1><p>Some <a href="https://e.x/y">link</a> text&nbsp;here.</p><ul><li>one</li><li>two</li></ul><pre>code &lt;1&gt;</pre></body></html>',
    );
    expect(page.title).toBe('Doc & more');
    expect(page.text).toContain('# Title');
    expect(page.text).toContain('Some [link](https://e.x/y) text here.');
    expect(page.text).toContain('- one');
    expect(page.text).toContain('```\ncode <1>\n```');
    expect(page.text).not.toContain('menu');
    expect(page.text).not.toContain('x()');
  });
});
