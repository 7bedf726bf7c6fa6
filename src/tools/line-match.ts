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

const keyCache = new WeakMap<readonly string[], Map<Level, string[]>>();

function keysOf(file: readonly string[], level: Level): string[] {
  let byLevel = keyCache.get(file);
  if (!byLevel) {
    byLevel = new Map();
    keyCache.set(file, byLevel);
  }
  let keys = byLevel.get(level);
  if (!keys) {
    keys = file.map(level.key);
    byLevel.set(level, keys);
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
  for (const level of LEVELS) {
    const keys = keysOf(file, level);
    const want = block.map(level.key);
    const places: BlockPlace[] = [];
    for (let p = from; p <= last; p++) {
      let fits = true;
      for (let i = 0; i < want.length && fits; i++) fits = keys[p + i] === want[i];
      if (!fits) continue;
      const window = file.slice(p, p + block.length);
      if (level.shifted && !sameRelativeIndent(window, block)) continue;
      places.push(describe(p, window, block, level.shifted));
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
