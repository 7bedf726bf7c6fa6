import { scriptOf, unwrapCommand } from './command-wrappers.js';
import { type Segment, scanShell, Unparseable } from './shell-scanner.js';

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
   * substitution, a variable as the command, `eval`/`sh -c`, a here-document, output redirected
   * to a file, or text that does not parse. Only a rule naming it exactly (or allowing every
   * command) allows it; what it runs is checked as parts of its own where it can be seen.
   */
  opaque: boolean;
}

/**
 * Splits a command line into the simple commands it runs, so each can be checked against the
 * rules on its own: `npm test && rm -rf /` must not pass as "npm test*". Splits on `&&`, `||`,
 * `;`, `|`, `|&`, `&`, newlines and `( )`, respecting quotes and escapes.
 */
export function splitShellCommand(command: string): CommandPart[] {
  let scanned: ReturnType<typeof scanShell>;
  try {
    scanned = scanShell(command);
  } catch (err) {
    if (!(err instanceof Unparseable)) throw err;
    return [unparseable(command)];
  }
  const parts: CommandPart[] = [];
  for (const segment of scanned.segments) {
    const found = toPart(segment);
    if (!found) continue;
    parts.push(found.part);
    const script = scriptOf(found.command);
    if (script !== undefined) {
      // The outer command runs text: check what it runs, and let only an exact rule allow it.
      found.part.opaque = true;
      parts.push(...splitShellCommand(script));
    }
  }
  for (const script of scanned.scripts) parts.push(...splitShellCommand(script));
  return parts;
}

/** Words that open or close a compound command; stripped so `if make; then rm x; fi` checks `rm x`. */
const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until']);

/** The part, and the words of the command it finally runs once wrappers are removed. */
function toPart(segment: Segment): { part: CommandPart; command: string[] } | undefined {
  const first = segment.tokens[0];
  const last = segment.tokens[segment.tokens.length - 1];
  if (!first || !last) return undefined;
  let words = segment.words;
  while (words[0] && RESERVED.has(words[0].value)) words = words.slice(1);
  if (words.length === 0 && !segment.opaque) return undefined;
  const raw = segment.src.slice(first.start, last.end).trim();
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

/**
 * Text the lexer cannot follow (an unclosed quote, or syntax it reads differently from bash).
 * Bash most likely refuses it too, but in case it does not, the pieces between anything that
 * could separate commands become extra forms, so a deny rule still sees `rm -rf /` in there.
 */
function unparseable(command: string): CommandPart {
  const raw = command.trim();
  const forms = [raw];
  for (const piece of raw.split(/[;&|\n()`{}]|\$\(/)) {
    const words = piece
      .replace(/["'\\]/g, '')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    for (const step of unwrapCommand(words)) {
      const text = step.words.join(' ');
      if (text !== '' && !forms.includes(text)) forms.push(text);
    }
  }
  return { raw, forms, allowForms: [raw], opaque: true };
}
