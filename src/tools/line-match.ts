import { asciiTypography, commonIndent, reindent } from './normalize-text.js';

/**
 * Whole-line block matching shared by edit_file and apply_patch. Levels run from strict to
 * forgiving and the first level that finds the block anywhere decides, so a normalised match is
 * only ever considered when the exact text is nowhere. Every line of the block must match: a
 * block whose first and last lines fit but whose middle differs is no match at any level.
 */
interface Level {
  key: (line: string) => string;
  /** Compare with a uniform indentation shift removed (block outdented or indented as a whole). */
  shifted: boolean;
}

const LEVELS: readonly Level[] = [
  { key: (l) => l, shifted: false },
  { key: (l) => l.trimEnd(), shifted: false },
  { key: (l) => asciiTypography(l).trimEnd(), shifted: false },
  { key: (l) => asciiTypography(l).trim(), shifted: true },
];

export interface BlockPlace {
  /** 0-based index of the first file line. */
  at: number;
  /** What had to be forgiven here: trailing_whitespace, typography, indentation. */
  repairs: string[];
  /** Puts a line the model wrote onto the file's indentation at this place. */
  adapt: (line: string) => string;
}

export interface SearchWindow {
  /** First index a match may start at. */
  from?: number;
  /** The block must end at the end of the file (`*** End of File`). */
  atEnd?: boolean;
}

/** The most forgiving key: every stricter level's equality implies equality here. */
const looseKey = (line: string) => asciiTypography(line).trim();
const looseCache = new WeakMap<readonly string[], string[]>();

function looseKeys(file: readonly string[]): string[] {
  let keys = looseCache.get(file);
  if (!keys) {
    keys = file.map(looseKey);
    looseCache.set(file, keys);
  }
  return keys;
}

/** Every place a non-empty block fits, at the strictest level that fits anywhere in the window. */
export function findBlock(
  file: readonly string[],
  block: readonly string[],
  window: SearchWindow = {},
): BlockPlace[] {
  if (block.length === 0) return [];
  const last = file.length - block.length;
  const from = window.atEnd ? last : Math.max(0, window.from ?? 0);
  if (last < 0 || from > last) return [];
  // One pass with the loosest key finds every place any level could accept; the stricter
  // levels then only look at those few places.
  const loose = looseKeys(file);
  const wantLoose = block.map(looseKey);
  const candidates: number[] = [];
  for (let p = from; p <= last; p++) {
    let fits = true;
    for (let i = 0; i < wantLoose.length && fits; i++) fits = loose[p + i] === wantLoose[i];
    if (fits) candidates.push(p);
  }
  for (const level of LEVELS) {
    const want = block.map(level.key);
    const places: BlockPlace[] = [];
    for (const p of candidates) {
      if (!want.every((w, i) => level.key(file[p + i] as string) === w)) continue;
      const lines = file.slice(p, p + block.length);
      if (level.shifted && !sameRelativeIndent(lines, block)) continue;
      places.push(describe(p, lines, block, level.shifted));
    }
    if (places.length > 0) return places;
  }
  return [];
}

function sameRelativeIndent(window: readonly string[], block: readonly string[]): boolean {
  const fileBase = commonIndent(window);
  const modelBase = commonIndent(block);
  return window.every((line, i) => {
    const wanted = block[i] as string;
    if (line.trim() === '' || wanted.trim() === '') return line.trim() === wanted.trim();
    const a = asciiTypography(line.slice(fileBase.length)).trimEnd();
    const b = asciiTypography(wanted.slice(modelBase.length)).trimEnd();
    return a === b;
  });
}

function describe(
  at: number,
  window: readonly string[],
  block: readonly string[],
  shifted: boolean,
): BlockPlace {
  const repairs = new Set<string>();
  const fileBase = shifted ? commonIndent(window) : '';
  const modelBase = shifted ? commonIndent(block) : '';
  if (fileBase !== modelBase) repairs.add('indentation');
  window.forEach((line, i) => {
    const wanted = block[i] as string;
    if (line === wanted) return;
    const a = line.slice(fileBase.length);
    const b = wanted.slice(Math.min(modelBase.length, wanted.length));
    if (a.length - a.trimEnd().length !== b.length - b.trimEnd().length) repairs.add('trailing_whitespace');
    if (a.trim() !== b.trim()) repairs.add('typography');
  });
  const adapt = fileBase === modelBase ? (l: string) => l : (l: string) => reindent(l, modelBase, fileBase);
  return { at, repairs: [...repairs], adapt };
}
