/**
 * A lexer for the part of shell syntax that decides what runs: list and pipeline operators,
 * quoting, substitutions, redirections and here-documents. It never expands or executes.
 *
 * Hand-written rather than built on `shell-quote`: that library reads a newline as plain
 * whitespace (so `npm test\nrm -rf /` looks like one npm command), does not see backticks, turns
 * `"$(rm x)"` into an inert-looking string, and accepts unterminated quotes silently. A permission
 * gate needs exactly those cases right, and needs the source text of each part, which token
 * lists lose. Where this lexer and bash could disagree it errs towards seeing more commands.
 */

export interface Token {
  start: number;
  end: number;
}

export interface Word extends Token {
  /** The word with quotes removed; substitutions and expansions are kept as written. */
  value: string;
  /** Contains `$name`/`${...}`: its value is only known when the shell runs. */
  expands: boolean;
}

/** One simple command as written, before wrappers are looked at. */
export interface Segment {
  src: string;
  /** Everything written, redirections included, for the part's source text. */
  tokens: Token[];
  /** The command's own words, without redirections. */
  words: Word[];
  /** Runs or writes something its text does not show (see `CommandPart.opaque`). */
  opaque: boolean;
}

export interface ScanResult {
  segments: Segment[];
  /** Text that may run as commands of its own: backtick contents and here-document bodies. */
  scripts: string[];
}

/** Quotes or substitutions that never close; bash would refuse to run the line. */
export class Unparseable extends Error {}

export function scanShell(src: string): ScanResult {
  const scanner = new Scanner(src);
  scanner.scanList(undefined);
  return { segments: scanner.segments, scripts: scanner.scripts };
}

type RedirectTarget = 'file' | 'fd' | 'input' | 'heredoc' | 'heredoc-tabs';

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
}

class Scanner {
  i = 0;
  readonly segments: Segment[] = [];
  readonly scripts: string[] = [];
  private heredocs: PendingHeredoc[] = [];

  constructor(private readonly src: string) {}

  /** Scans commands until `stop` (the `)` closing a substitution) or the end; returns at `stop`. */
  scanList(stop: ')' | undefined): void {
    const src = this.src;
    let segment = this.newSegment();
    let word: Word | undefined;
    let target: RedirectTarget | undefined;
    // Subshell parentheses inside a substitution, so `$( (a) )` ends at its own `)`.
    let depth = 0;

    const endWord = () => {
      if (!word) return;
      word.end = this.i;
      segment.tokens.push(word);
      if (!target) segment.words.push(word);
      else if (target === 'heredoc' || target === 'heredoc-tabs') {
        this.heredocs.push({ delimiter: word.value, stripTabs: target === 'heredoc-tabs' });
      } else if (target === 'file' && word.value !== '/dev/null') segment.opaque = true;
      else if (target === 'fd' && !/^(?:\d+-?|-)$/.test(word.value)) segment.opaque = true;
      target = undefined;
      word = undefined;
    };
    const endSegment = () => {
      endWord();
      if (segment.tokens.length > 0) this.segments.push(segment);
      segment = this.newSegment();
    };
    const startWord = (): Word => {
      word ??= { start: this.i, end: this.i, value: '', expands: false };
      return word;
    };

    while (this.i < src.length) {
      const c = src[this.i] as string;
      const next = src[this.i + 1];
      if (c === ' ' || c === '\t' || c === '\r') {
        endWord();
        this.i++;
      } else if (c === '\\' && next === '\n') {
        this.i += 2;
      } else if (c === '\\') {
        startWord().value += next ?? '';
        this.i += 2;
      } else if (c === '#' && !word) {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
      } else if (c === '\n') {
        endSegment();
        this.i++;
        this.readHeredocBodies();
      } else if (c === ';') {
        endSegment();
        this.i++;
      } else if ((c === '&' && next !== '>') || c === '|') {
        endSegment();
        this.i += next === c || (c === '|' && next === '&') ? 2 : 1;
      } else if (c === '(') {
        endSegment();
        depth++;
        this.i++;
      } else if (c === ')') {
        endSegment();
        if (depth === 0 && stop === ')') return;
        depth = Math.max(0, depth - 1);
        this.i++;
      } else if ((c === '<' || c === '>') && next === '(') {
        const w = startWord();
        this.i += 2;
        this.scanList(')');
        this.expect(')');
        w.value += src.slice(w.start, this.i);
        segment.opaque = true;
      } else if (c === '<' || c === '>' || (c === '&' && next === '>')) {
        // Digits written right against the operator name its file descriptor (`2>&1`).
        if (word && c !== '&' && /^\d+$/.test(word.value)) {
          word.end = this.i;
          segment.tokens.push(word);
          word = undefined;
        } else {
          endWord();
        }
        target = this.scanRedirect(segment);
      } else if (c === "'") {
        const close = src.indexOf("'", this.i + 1);
        if (close === -1) throw new Unparseable();
        startWord().value += src.slice(this.i + 1, close);
        this.i = close + 1;
      } else if (c === '"') {
        this.scanDoubleQuoted(startWord(), segment);
      } else if (c === '$') {
        this.scanDollar(startWord(), segment, false);
      } else if (c === '`') {
        this.scanBackticks(startWord(), segment);
      } else {
        startWord().value += c;
        this.i++;
      }
    }
    if (stop) throw new Unparseable();
    endSegment();
  }

  private newSegment(): Segment {
    return { src: this.src, tokens: [], words: [], opaque: false };
  }

  /** Consumes a redirection operator and says what its target word is. */
  private scanRedirect(segment: Segment): RedirectTarget {
    const start = this.i;
    const rest = this.src.slice(start, start + 3);
    const op = (/^(?:&>>|&>|<<<|<<-|<<|<>|<&|>>|>\||>&|<|>)/.exec(rest) as RegExpExecArray)[0];
    this.i += op.length;
    segment.tokens.push({ start, end: this.i });
    // The command reads a here-document as a script or data we cannot judge (`bash <<EOF`,
    // `python <<EOF`), so the command is opaque and the body is checked as commands too.
    if (op === '<<' || op === '<<-') segment.opaque = true;
    if (op === '<<') return 'heredoc';
    if (op === '<<-') return 'heredoc-tabs';
    if (op === '<' || op === '<<<') return 'input';
    return op === '>&' || op === '<&' ? 'fd' : 'file';
  }

  /** Bodies start on the line after their operator; a missing delimiter runs to the end. */
  private readHeredocBodies(): void {
    const src = this.src;
    for (const { delimiter, stripTabs } of this.heredocs) {
      const lines: string[] = [];
      while (this.i < src.length) {
        const newline = src.indexOf('\n', this.i);
        const end = newline === -1 ? src.length : newline;
        const line = src.slice(this.i, end);
        this.i = newline === -1 ? src.length : newline + 1;
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
        lines.push(line);
      }
      if (lines.length > 0) this.scripts.push(lines.join('\n'));
    }
    this.heredocs = [];
  }

  private scanDoubleQuoted(word: Word, segment: Segment): void {
    const src = this.src;
    this.i++;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === '\\' && this.i + 1 < src.length) {
        const escaped = src[this.i + 1] as string;
        if (escaped !== '\n') word.value += '$`"\\'.includes(escaped) ? escaped : `\\${escaped}`;
        this.i += 2;
      } else if (c === '$') {
        this.scanDollar(word, segment, true);
      } else if (c === '`') {
        this.scanBackticks(word, segment);
      } else {
        word.value += c;
        this.i++;
      }
    }
    throw new Unparseable();
  }

  /** `$(...)` and `$((...))` are scanned as nested commands; `$name`, `${...}` only mark the word. */
  private scanDollar(word: Word, segment: Segment, inDoubleQuotes: boolean): void {
    const src = this.src;
    const start = this.i;
    const next = src[this.i + 1];
    if (next === '(') {
      this.i += 2;
      this.scanList(')');
      this.expect(')');
      word.value += src.slice(start, this.i);
      segment.opaque = true;
    } else if (next === '{') {
      this.i = this.closeBrace(this.i + 2, segment);
      word.value += src.slice(start, this.i);
      word.expands = true;
    } else if (next === "'" && !inDoubleQuotes) {
      // ANSI-C quoting; inside double quotes `$'` is two plain characters.
      let j = this.i + 2;
      while (j < src.length && src[j] !== "'") j += src[j] === '\\' ? 2 : 1;
      if (j >= src.length) throw new Unparseable();
      word.value += src.slice(this.i + 2, j);
      this.i = j + 1;
    } else if (next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) {
      this.i += 2;
      if (/[A-Za-z_]/.test(next)) while (this.i < src.length && /\w/.test(src[this.i] as string)) this.i++;
      word.value += src.slice(start, this.i);
      word.expands = true;
    } else {
      word.value += '$';
      this.i++;
    }
  }

  /**
   * Index after the `}` closing a `${`, skipping quoted text and nested braces. A substitution
   * inside (`${x:-$(cmd)}`) makes the command opaque rather than being parsed in place.
   */
  private closeBrace(from: number, segment: Segment): number {
    const src = this.src;
    let depth = 1;
    let j = from;
    while (j < src.length) {
      const c = src[j] as string;
      if (c === '\\') j += 2;
      else if (c === "'" || c === '"') {
        const close = src.indexOf(c, j + 1);
        if (close === -1) throw new Unparseable();
        if (/\$\(|`/.test(src.slice(j, close))) segment.opaque = true;
        j = close + 1;
      } else {
        if (c === '{') depth++;
        else if (c === '}' && --depth === 0) return j + 1;
        else if (c === '`' || (c === '$' && src[j + 1] === '(')) segment.opaque = true;
        j++;
      }
    }
    throw new Unparseable();
  }

  private scanBackticks(word: Word, segment: Segment): void {
    const src = this.src;
    const start = this.i;
    let inner = '';
    this.i++;
    while (this.i < src.length && src[this.i] !== '`') {
      if (src[this.i] === '\\' && '`\\$'.includes(src[this.i + 1] ?? '')) {
        inner += src[this.i + 1];
        this.i += 2;
      } else {
        inner += src[this.i];
        this.i++;
      }
    }
    if (this.i >= src.length) throw new Unparseable();
    this.i++;
    word.value += src.slice(start, this.i);
    segment.opaque = true;
    this.scripts.push(inner);
  }

  private expect(c: string): void {
    if (this.src[this.i] !== c) throw new Unparseable();
    this.i++;
  }
}
