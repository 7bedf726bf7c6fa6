import { diffArrays } from 'diff';
import { dominantEol, type Line, splitLines } from './file-text.js';
import { type BlockPlace, findBlock } from './line-match.js';
import { asciiTypography, textLines } from './normalize-text.js';

/**
 * Locating `old_text` in a file for edit_file. Strategies run from strict to forgiving and the
 * first one that finds the text anywhere wins; the tool then insists on exactly one place (unless
 * replace_all). Each forgiving strategy names its repairs so the result can say
 * "applied with: crlf, indentation".
 */
export interface TextEdit {
  /** Offsets into the file text. */
  start: number;
  end: number;
  /** What goes there, adapted to the file (line endings, indentation, untouched lines kept). */
  text: string;
}

export interface EditLocation {
  /** One per occurrence, in file order, never overlapping. */
  edits: TextEdit[];
  repairs: string[];
}

const toCrlf = (s: string) => s.replace(/\r?\n/g, '\r\n');

export function locateEdit(file: string, oldText: string, newText: string): EditLocation | undefined {
  const repairs: string[] = [];
  // The file text comes without its BOM; a model that copied one must still match.
  if (oldText.startsWith('\ufeff')) {
    oldText = oldText.slice(1);
    if (newText.startsWith('\ufeff')) newText = newText.slice(1);
    repairs.push('bom');
  }
  const found =
    substring(file, oldText, newText, false) ??
    wholeLines(file, oldText, newText) ??
    substring(asciiTypography(file), asciiTypography(oldText), newText, true);
  if (!found) return undefined;
  return { edits: found.edits, repairs: [...repairs, ...found.repairs] };
}

/**
 * Plain search, then with the model's LF turned into the file's CRLF. With `typography` the
 * haystack and needle are already ASCII-normalised; that mapping keeps lengths, so offsets hold.
 */
function substring(
  file: string,
  oldText: string,
  newText: string,
  typography: boolean,
): EditLocation | undefined {
  const tag = typography ? ['typography'] : [];
  const plain = findAll(file, oldText);
  if (plain.length > 0) return { edits: plain.map((r) => ({ ...r, text: newText })), repairs: tag };
  if (!file.includes('\r\n') || oldText.includes('\r') || !oldText.includes('\n')) return undefined;
  const crlf = findAll(file, toCrlf(oldText));
  if (crlf.length === 0) return undefined;
  return { edits: crlf.map((r) => ({ ...r, text: toCrlf(newText) })), repairs: ['crlf', ...tag] };
}

function findAll(haystack: string, needle: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  if (needle === '') return out;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) {
    out.push({ start: i, end: i + needle.length });
  }
  return out;
}

/** Whole-line matching with trailing blanks, typography and a uniform indentation shift forgiven. */
function wholeLines(file: string, oldText: string, newText: string): EditLocation | undefined {
  const block = textLines(oldText);
  if (block.every((l) => l.trim() === '')) return undefined;
  const lines = splitLines(file);
  const texts = lines.map((l) => l.text);
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.text.length + line.eol.length;
  }
  const places: BlockPlace[] = [];
  for (const place of findBlock(texts, block)) {
    const previous = places[places.length - 1];
    if (!previous || place.at >= previous.at + block.length) places.push(place);
  }
  if (places.length === 0) return undefined;
  const oldEndsNl = oldText.endsWith('\n');
  const newLines = newText === '' ? [] : textLines(newText);
  const eol = dominantEol(lines);
  const repairs = new Set<string>();
  const edits = places.map((place) => {
    const window = lines.slice(place.at, place.at + block.length);
    const last = window[window.length - 1] as Line;
    // Either way round: LF text against CRLF lines, or CRLF text (a Windows client) against LF lines.
    const modelCrlf = oldText.includes('\r\n');
    if (window.some((l, i) => i < window.length - 1 && (l.eol === '\r\n') !== modelCrlf)) {
      repairs.add('crlf');
    }
    for (const r of place.repairs) repairs.add(r);
    const start = starts[place.at] as number;
    const end =
      (starts[place.at + block.length - 1] as number) + last.text.length + (oldEndsNl ? last.eol.length : 0);
    // old_text ended in a newline the file's last line does not have: the model believed the file
    // ends in one, so its new_text's final newline is that same belief, not a byte to add.
    const newEndsNl = newText.endsWith('\n') && !(oldEndsNl && last.eol === '');
    return { start, end, text: replacement(window, block, newLines, place, eol, newEndsNl) };
  });
  return { edits, repairs: [...repairs] };
}

/**
 * The new text for one matched window: lines the model kept unchanged are written back with the
 * file's own bytes (its trailing blanks, typographic quotes, line endings); lines it added get
 * the file's indentation and line ending.
 */
function replacement(
  window: readonly Line[],
  block: readonly string[],
  newLines: readonly string[],
  place: BlockPlace,
  eol: '\n' | '\r\n',
  newEndsNl: boolean,
): string {
  const out: Line[] = [];
  let index = 0;
  for (const part of diffArrays([...block], [...newLines])) {
    if (part.added) {
      for (const value of part.value) out.push({ text: place.adapt(value), eol });
    } else if (part.removed) {
      index += part.value.length;
    } else {
      for (let k = 0; k < part.value.length; k++) out.push({ ...(window[index++] as Line) });
    }
  }
  if (out.length === 0) return '';
  out.forEach((line, i) => {
    if (i < out.length - 1 && line.eol === '') line.eol = eol;
  });
  const last = out[out.length - 1] as Line;
  last.eol = newEndsNl ? last.eol || eol : '';
  return out.map((l) => l.text + l.eol).join('');
}

export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
