/**
 * Normalisations that let a slightly-off `old_text` or hunk find its place. Each one only widens
 * what counts as equal; the callers still demand exactly one place, so none of them can move an
 * edit onto code the model did not see.
 */

/**
 * Typographic characters that files contain and models retype as ASCII. Every entry maps one
 * UTF-16 unit to one, so offsets in the normalised text are offsets in the original.
 */
const TYPOGRAPHY: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u00a0': ' ',
  '\u2007': ' ',
  '\u202f': ' ',
};

const TYPOGRAPHY_RE =
  /[\u2018\u2019\u201a\u201b\u2032\u201c-\u201f\u2033\u2010-\u2015\u2212\u00a0\u2007\u202f]/g;

export function hasTypography(text: string): boolean {
  TYPOGRAPHY_RE.lastIndex = 0;
  return TYPOGRAPHY_RE.test(text);
}

/** ASCII look-alikes for typographic quotes, dashes and non-breaking spaces; length-preserving. */
export function asciiTypography(text: string): string {
  return text.replace(TYPOGRAPHY_RE, (c) => TYPOGRAPHY[c] ?? c);
}

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/** The indentation every non-blank line starts with (the longest common prefix of their indents). */
export function commonIndent(lines: readonly string[]): string {
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = leadingWhitespace(line);
    if (common === undefined) {
      common = indent;
      continue;
    }
    let n = 0;
    while (n < common.length && n < indent.length && common[n] === indent[n]) n++;
    common = common.slice(0, n);
    if (common === '') break;
  }
  return common ?? '';
}

/**
 * Moves a line written against the model's base indentation onto the file's: the block keeps its
 * relative indentation, so the code stays valid where indentation matters (Python, YAML).
 */
export function reindent(line: string, fromBase: string, toBase: string): string {
  if (line.trim() === '') return line;
  if (line.startsWith(fromBase)) return toBase + line.slice(fromBase.length);
  return toBase + line.trimStart();
}

/** Splits model-written text into lines without terminators; one final newline ends the last line. */
export function textLines(text: string): string[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}
