import { scriptOf, unwrapCommand } from './command-wrappers.js';

/**
 * Splits a shell command line into the simple commands it runs, so each can be checked against
 * the rules on its own: `npm test && rm -rf /` must not pass as "npm test*".
 *
 * Hand-written rather than built on `shell-quote`: that library reads a newline as plain
 * whitespace (so `npm test\nrm -rf /` looks like one npm command), does not see backticks, turns
 * `"$(rm x)"` into an inert-looking string, and accepts unterminated quotes silently. A permission
 * gate needs exactly those cases right, and needs the source text of each part, which token
 * lists lose. This scanner only separates and classifies; it never executes or expands anything.
 */

/** One simple command of a command line. */
export interface CommandPart {
  /** The part as written (wrappers, assignments and redirections included), comments dropped. */
  raw: string;
  /** Texts deny and ask rules are matched against: raw, its unquoted words, each unwrapped form. */
  forms: string[];
  /**
   * Forms an allow rule may match. Unwrapping `sudo`/`doas` changes who runs the command, so
   * forms past them are left out: a rule for `npm test` does not allow `sudo npm test`.
   */
  allowForms: string[];
  /**
   * The part runs or writes something its text does not show: a command substitution, process
   * substitution, a variable as the command, a here-document, output redirected to a file, or
   * text that does not parse. Only a rule naming it exactly (or allowing every command) allows it.
   */
  opaque: boolean;
}

interface Token {
  start: number;
  end: number;
}

interface Word extends Token {
  value: string;
  /** Contains `$name`/`${...}`: its value is only known when the shell runs. */
  expands: boolean;
}

interface Segment {
  tokens: Token[];
  words: Word[];
  opaque: boolean;
}

class Unparseable extends Error {}

/** Splits on `&&`, `||`, `;`, `|`, `|&`, `&`, newlines and `( )`, respecting quotes and escapes. */
export function splitShellCommand(command: string): CommandPart[] {
  let segments: { src: string; segment: Segment }[];
  try {
    segments = new Scanner(command).scanAll();
  } catch (err) {
    if (!(err instanceof Unparseable)) throw err;
    const raw = command.trim();
    return [{ raw, forms: [raw], allowForms: [raw], opaque: true }];
  }
  const parts: CommandPart[] = [];
  for (const { src, segment } of segments) {
    const found = toPart(src, segment);
    if (!found) continue;
    parts.push(found.part);
    const script = scriptOf(found.command);
    if (script !== undefined) {
      // The outer command runs text: check what it runs, and let only an exact rule allow it.
      found.part.opaque = true;
      parts.push(...splitShellCommand(script));
    }
  }
  return parts;
}

class Scanner {
  private i = 0;
  private readonly out: { src: string; segment: Segment }[] = [];

  constructor(private readonly src: string) {}

  scanAll(): { src: string; segment: Segment }[] {
    this.scanList(undefined);
    return this.out;
  }

  /** Scans commands until `stop` (the `)` closing a substitution) or the end; returns at `stop`. */
  private scanList(stop: ')' | undefined): void {
    const src = this.src;
    let segment = newSegment();
    let word: Word | undefined;
    let redirectTarget: 'file' | 'fd' | 'input' | undefined;
    let depth = 0;

    const endWord = () => {
      if (!word) return;
      word.end = this.i;
      if (redirectTarget) {
        segment.tokens.push(word);
        if (redirectTarget === 'file' && word.value !== '/dev/null') segment.opaque = true;
        if (redirectTarget === 'fd' && !/^(?:\d+-?|-)$/.test(word.value)) segment.opaque = true;
        redirectTarget = undefined;
      } else {
        segment.tokens.push(word);
        segment.words.push(word);
      }
      word = undefined;
    };
    const endSegment = () => {
      endWord();
      if (segment.tokens.length > 0) this.out.push({ src, segment });
      segment = newSegment();
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
      } else if (c === '\n' || c === ';') {
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
        if (stop === ')' && depth === 0) {
          endSegment();
          return;
        }
        endSegment();
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
        redirectTarget = this.scanRedirect(segment);
      } else if (c === "'") {
        const close = src.indexOf("'", this.i + 1);
        if (close === -1) throw new Unparseable();
        startWord().value += src.slice(this.i + 1, close);
        this.i = close + 1;
      } else if (c === '"') {
        this.scanDoubleQuoted(startWord(), segment);
      } else if (c === '$') {
        this.scanDollar(startWord(), segment);
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

  /** Consumes a redirection operator and says what its target word is. */
  private scanRedirect(segment: Segment): 'file' | 'fd' | 'input' {
    const src = this.src;
    const start = this.i;
    const rest = src.slice(start, start + 3);
    const op = (/^(?:&>>|&>|<<<|<<-|<<|<>|<&|>>|>\||>&|<|>)/.exec(rest) as RegExpExecArray)[0];
    this.i += op.length;
    segment.tokens.push({ start, end: this.i });
    if (op === '<<' || op === '<<-') {
      // A here-document's body follows on the next lines. Those lines are still split like
      // commands, so a deny rule errs towards catching text that is only data.
      segment.opaque = true;
      return 'input';
    }
    if (op === '<' || op === '<<<') return 'input';
    return op === '>&' || op === '<&' ? 'fd' : 'file';
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
        word.value += '$`"\\\n'.includes(escaped) ? (escaped === '\n' ? '' : escaped) : `\\${escaped}`;
        this.i += 2;
      } else if (c === '$') {
        this.scanDollar(word, segment);
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
  private scanDollar(word: Word, segment: Segment): void {
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
      const close = src.indexOf('}', this.i + 2);
      if (close === -1) throw new Unparseable();
      const inner = src.slice(this.i + 2, close);
      // `${x:-$(cmd)}` runs cmd; rather than parse parameter expansion, treat any such as opaque.
      if (/\$\(|`/.test(inner)) segment.opaque = true;
      this.i = close + 1;
      word.value += src.slice(start, this.i);
      word.expands = true;
    } else if (next === "'") {
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
    this.out.push(...new Scanner(inner).scanAll());
  }

  private expect(c: string): void {
    if (this.src[this.i] !== c) throw new Unparseable();
    this.i++;
  }
}

function newSegment(): Segment {
  return { tokens: [], words: [], opaque: false };
}

/** Words that open or close a compound command; stripped so `if make; then rm x; fi` checks `rm x`. */
const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until']);

/** The part, and the words of the command it finally runs once wrappers are removed. */
function toPart(src: string, segment: Segment): { part: CommandPart; command: string[] } | undefined {
  const first = segment.tokens[0];
  const last = segment.tokens[segment.tokens.length - 1];
  if (!first || !last) return undefined;
  let words = segment.words;
  while (words[0] && RESERVED.has(words[0].value)) words = words.slice(1);
  if (words.length === 0 && !segment.opaque) return undefined;
  const raw = src.slice(first.start, last.end).trim();
  const forms = [raw];
  const allowForms = [raw];
  const steps = unwrapCommand(words.map((w) => w.value));
  let allowable = true;
  for (const step of steps) {
    allowable &&= !step.privileged;
    const text = step.words.join(' ');
    if (text === '' || forms.includes(text)) continue;
    forms.push(text);
    if (allowable) allowForms.push(text);
  }
  const command = steps.at(-1)?.words ?? [];
  const commandWord = words[words.length - command.length];
  const opaque = segment.opaque || commandWord?.expands === true;
  return { part: { raw, forms, allowForms, opaque }, command };
}
