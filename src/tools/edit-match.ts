/**
 * Locating `old_text` in a file for edit_file. Strategies run in order and the first one that
 * finds the text wins; each non-exact strategy names the repair it made so the result can say
 * "applied with: crlf". More forgiving strategies (indentation, trailing blanks, typographic
 * quotes) slot into STRATEGIES without touching the tool.
 */
export interface EditLocation {
  /** Offsets into the file text of every occurrence. */
  ranges: Array<{ start: number; end: number }>;
  /** The replacement text, adapted to the file (line endings). */
  newText: string;
  repairs: string[];
}

type Strategy = (file: string, oldText: string, newText: string) => EditLocation | undefined;

const exact: Strategy = (file, oldText, newText) => {
  const ranges = findAll(file, oldText);
  return ranges.length > 0 ? { ranges, newText, repairs: [] } : undefined;
};

/** Models see LF text; a CRLF file must still match and keep its own line endings. */
const crlf: Strategy = (file, oldText, newText) => {
  if (!file.includes('\r\n') || oldText.includes('\r') || !oldText.includes('\n')) return undefined;
  const toCrlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
  const ranges = findAll(file, toCrlf(oldText));
  return ranges.length > 0 ? { ranges, newText: toCrlf(newText), repairs: ['crlf'] } : undefined;
};

export const STRATEGIES: readonly Strategy[] = [exact, crlf];

export function locateEdit(file: string, oldText: string, newText: string): EditLocation | undefined {
  for (const strategy of STRATEGIES) {
    const found = strategy(file, oldText, newText);
    if (found) return found;
  }
  return undefined;
}

function findAll(haystack: string, needle: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  if (needle === '') return out;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) {
    out.push({ start: i, end: i + needle.length });
  }
  return out;
}

export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The region of the file most like `oldText`, numbered, for a no-match error: the window of
 * lines with the most lines equal after trimming, else the single line most like its first line.
 */
export function closestRegion(
  file: string,
  oldText: string,
): { start_line: number; end_line: number; text: string } | undefined {
  const fileLines = file.split('\n').map((l) => l.replace(/\r$/, ''));
  const wanted = oldText
    .split('\n')
    .map((l) => l.replace(/\r$/, '').trim())
    .filter((l, i, all) => !(l === '' && (i === 0 || i === all.length - 1)));
  if (wanted.length === 0 || fileLines.length === 0) return undefined;
  const trimmed = fileLines.map((l) => l.trim());
  const index = new Map<string, number[]>();
  trimmed.forEach((l, i) => {
    if (l === '') return;
    const list = index.get(l);
    if (list) list.push(i);
    else index.set(l, [i]);
  });
  // Vote for window starts: a file line equal to wanted[k] votes for a window starting k earlier.
  const votes = new Map<number, number>();
  wanted.forEach((l, k) => {
    for (const i of index.get(l) ?? []) votes.set(i - k, (votes.get(i - k) ?? 0) + 1);
  });
  let bestStart = -1;
  let bestVotes = 0;
  for (const [start, count] of votes) {
    if (count > bestVotes || (count === bestVotes && start < bestStart)) {
      bestStart = start;
      bestVotes = count;
    }
  }
  if (bestStart === -1) {
    const first = wanted[0] as string;
    let bestScore = 0.5;
    for (let i = 0; i < Math.min(trimmed.length, 20000); i++) {
      const score = similarity(first, trimmed[i] as string);
      if (score > bestScore) {
        bestScore = score;
        bestStart = i;
      }
    }
    if (bestStart === -1) return undefined;
  }
  const start = Math.max(0, bestStart);
  const end = Math.min(fileLines.length, Math.max(start + 1, bestStart + wanted.length));
  const width = String(end).length;
  const text = fileLines
    .slice(start, end)
    .map((l, i) => `${String(start + i + 1).padStart(width)}\t${l}`)
    .join('\n');
  return { start_line: start + 1, end_line: end, text };
}

/** Dice coefficient over character bigrams: cheap and good enough to point at a near-miss line. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let hits = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      hits++;
      grams.set(g, n - 1);
    }
  }
  return (2 * hits) / (a.length + b.length - 2);
}
