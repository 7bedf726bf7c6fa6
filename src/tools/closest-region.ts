import { diffArrays } from 'diff';

export interface ClosestRegion {
  start_line: number;
  end_line: number;
  /** The region, numbered like read_file output. */
  text: string;
  /** What differs between the wanted lines and the region, first few only. */
  differences: string[];
}

const MAX_DIFFERENCES = 6;

/**
 * The region of the file most like the wanted lines, numbered, for a no-match error: the window
 * of lines with the most lines equal after trimming, else the single line most like the first.
 * It is only shown to the model, never edited: a near miss is a reason to re-read, not to apply.
 */
export function closestRegion(
  fileLines: readonly string[],
  wantedLines: readonly string[],
): ClosestRegion | undefined {
  const wanted = wantedLines
    .map((l) => l.trim())
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
  const region = fileLines.slice(start, end);
  const text = region.map((l, i) => `${String(start + i + 1).padStart(width)}\t${l}`).join('\n');
  return { start_line: start + 1, end_line: end, text, differences: differences(region, start, wanted) };
}

function differences(region: readonly string[], start: number, wanted: readonly string[]): string[] {
  const out: string[] = [];
  let line = start + 1;
  const parts = diffArrays(
    region.map((l) => l.trim()),
    [...wanted],
  );
  for (const part of parts) {
    if (out.length >= MAX_DIFFERENCES) break;
    if (!part.added && !part.removed) {
      line += part.count ?? part.value.length;
      continue;
    }
    for (const value of part.value) {
      if (out.length >= MAX_DIFFERENCES) break;
      if (part.removed) {
        out.push(`line ${line}: the file has ${JSON.stringify(value)}, which your text does not`);
        line++;
      } else {
        out.push(`before line ${line}: your text has ${JSON.stringify(value)}, which the file does not`);
      }
    }
  }
  if (out.length === 0) out.push('only whitespace or line breaks differ, or the text spans other lines');
  return out;
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
