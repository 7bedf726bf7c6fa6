/**
 * Compiles a glob to a RegExp over `/`-separated relative paths: `*` and `?` stay within one
 * segment, `**` spans segments, `{a,b}` alternates, `[...]` is a character class. A pattern
 * without `/` matches the base name at any depth, as in .gitignore and ripgrep, because that
 * is what models mean by `*.ts`.
 */
export function globToRegExp(glob: string, options: { caseInsensitive?: boolean } = {}): RegExp {
  let pattern = glob.trim();
  if (pattern.startsWith('./')) pattern = pattern.slice(2);
  const anchored = pattern.includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const body = translate(pattern);
  const source = anchored ? `^${body}$` : `(?:^|/)${body}$`;
  return new RegExp(source, options.caseInsensitive ? 'i' : '');
}

function translate(glob: string): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atSegmentStart = i === 0 || glob[i - 1] === '/';
        const atSegmentEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atSegmentStart && atSegmentEnd) {
          i += 2;
          // `**/` matches zero or more whole directories; a trailing `**` matches everything below.
          out += i < glob.length ? '(?:.*/)?' : '.*';
          continue;
        }
        i++;
      }
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
      } else {
        let cls = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = `^${cls.slice(1)}`;
        out += `[${cls}]`;
        i = close;
      }
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      i++;
      out += escapeChar(glob[i] as string);
    } else {
      out += escapeChar(c);
    }
  }
  return out;
}

function escapeChar(c: string): string {
  return /[.+^$()|[\]\\{}*?]/.test(c) ? `\\${c}` : c;
}
