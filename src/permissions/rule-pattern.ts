import { globToRegExp } from '../util/glob-to-regexp.js';

/**
 * How a rule's pattern reads. `command`: only `*` is special (any text, spaces and slashes
 * included), because `?`, `[` and braces are everyday characters in commands; `\*` is a literal
 * star and `\\` a literal backslash. `path`: a glob as in .gitignore (`*` within one segment, `**`
 * across, `?`, `[...]`, `{a,b}`, `\` escapes; slash-free patterns match at any depth, a leading
 * `/` anchors at the project root).
 */
export type PatternStyle = 'command' | 'path';

const cache = new Map<string, RegExp>();

export function patternRegExp(pattern: string, style: PatternStyle): RegExp {
  const key = `${style}\0${pattern}`;
  let regexp = cache.get(key);
  if (!regexp) {
    regexp = style === 'path' ? globToRegExp(pattern) : commandRegExp(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(key, regexp);
  }
  return regexp;
}

/** The text a pattern stands for when it has no wildcard, escapes resolved; else undefined. */
export function literalOf(pattern: string, style: PatternStyle): string | undefined {
  if (style === 'command') {
    const pieces = commandPieces(pattern);
    return pieces.length === 1 ? pieces[0] : undefined;
  }
  let text = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) text += pattern[++i];
    else if ('*?[{'.includes(c)) return undefined;
    else text += c;
  }
  return text;
}

/** A pattern matching exactly `text` and nothing else (for "always" answers). */
export function escapePattern(text: string, style: PatternStyle): string {
  return style === 'command' ? text.replace(/[\\*]/g, '\\$&') : text.replace(/[\\*?[\]{}]/g, '\\$&');
}

/** Splits at unescaped stars: `npm \*x*` gives ['npm *x', '']. */
function commandPieces(pattern: string): string[] {
  const pieces = [''];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    const next = pattern[i + 1];
    if (c === '\\' && (next === '*' || next === '\\')) {
      pieces[pieces.length - 1] += next;
      i++;
    } else if (c === '*') {
      pieces.push('');
    } else {
      pieces[pieces.length - 1] += c;
    }
  }
  return pieces;
}

function commandRegExp(pattern: string): RegExp {
  const pieces = commandPieces(pattern).map((piece) => piece.replace(/\s+/g, ' '));
  const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const n = pieces.length;
  // `git push *` should cover a bare `git push` too, the way users read it.
  if (n >= 2 && pieces[n - 1] === '' && (pieces[n - 2] as string).endsWith(' ')) {
    const head = pieces.slice(0, -1);
    head[n - 2] = (head[n - 2] as string).slice(0, -1);
    return new RegExp(`^${head.map(quote).join('.*')}(?: .*)?$`, 's');
  }
  return new RegExp(`^${pieces.map(quote).join('.*')}$`, 's');
}
