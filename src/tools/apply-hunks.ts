import type { StructuredPatchHunk } from 'diff';
import { dominantEol, type Line } from './file-text.js';
import { ToolError } from './tool-error.js';

interface HunkSides {
  /** Hunk lines with their one-character prefix kept, "\ No newline" markers folded in. */
  ops: Array<{ op: ' ' | '-' | '+'; text: string }>;
  oldLines: string[];
  oldNoEol: boolean;
  newNoEol: boolean;
}

function sidesOf(hunk: StructuredPatchHunk): HunkSides {
  const ops: HunkSides['ops'] = [];
  let oldNoEol = false;
  let newNoEol = false;
  let previous: string | undefined;
  for (const raw of hunk.lines) {
    const op = raw[0];
    if (op === '\\') {
      if (previous === '-' || previous === ' ') oldNoEol = true;
      if (previous === '+' || previous === ' ') newNoEol = true;
      continue;
    }
    // Patches pasted from CRLF files carry the \r inside the line; compare without it.
    const text = raw.slice(1).replace(/\r$/, '');
    if (op === ' ' || op === '-' || op === '+') ops.push({ op, text });
    previous = op;
  }
  const oldLines = ops.filter((o) => o.op !== '+').map((o) => o.text);
  return { ops, oldLines, oldNoEol, newNoEol };
}

export interface HunkReport {
  /** 1-based line where the hunk applied in the file as it was before this hunk. */
  line: number;
  /** How far that is from where the header said, when it is not exact. */
  offset?: number;
}

/**
 * Applies hunks in order to a file's lines, keeping each untouched and context line's own bytes
 * (text and terminator) and giving new lines the file's dominant terminator. A hunk is looked for
 * at its header position first, then at the nearest position after the previous hunk, the way
 * `patch` tolerates line drift. Throws a ToolError (`no_match`) naming the hunk and line.
 */
export function applyHunks(
  lines: Line[],
  hunks: readonly StructuredPatchHunk[],
  rel: string,
): {
  lines: Line[];
  reports: HunkReport[];
} {
  const eol = dominantEol(lines);
  let current = lines;
  let delta = 0;
  let floor = 0;
  const reports: HunkReport[] = [];
  hunks.forEach((hunk, index) => {
    const sides = sidesOf(hunk);
    const expected = Math.max(0, hunk.oldStart - 1 + delta);
    const at = findBlock(current, sides.oldLines, expected, floor);
    if (typeof at === 'object') {
      throw new ToolError(
        'ambiguous',
        `Hunk ${index + 1} of ${rel} matches equally well at lines ${at.ambiguous.join(' and ')}, and neither is where its header says (line ${expected + 1}). Fix the line numbers or add context lines.`,
        { path: rel, line: at.ambiguous[0], lines: at.ambiguous, hunk: index + 1 },
      );
    }
    if (at === undefined) {
      throw new ToolError(
        'no_match',
        `Hunk ${index + 1} of ${rel} does not match the file: its context and removed lines are not at line ${expected + 1} or anywhere after the previous hunk. Read the file again and regenerate the patch.`,
        { path: rel, line: expected + 1, hunk: index + 1 },
      );
    }
    const replaced = spliceHunk(current, at, sides, eol);
    const added = replaced.length - current.length;
    current = replaced;
    floor = at + sides.oldLines.length + added;
    delta += added;
    reports.push(at === expected ? { line: at + 1 } : { line: at + 1, offset: at - expected });
  });
  return { lines: current, reports };
}

function findBlock(
  lines: Line[],
  block: string[],
  expected: number,
  floor: number,
): number | { ambiguous: number[] } | undefined {
  const fits = (pos: number): boolean => {
    if (pos < floor || pos + block.length > lines.length) return false;
    for (let i = 0; i < block.length; i++) if ((lines[pos + i] as Line).text !== block[i]) return false;
    return true;
  };
  if (block.length === 0) return Math.min(Math.max(expected, floor), lines.length);
  for (let distance = 0; distance <= lines.length; distance++) {
    const before = fits(expected - distance);
    const after = distance > 0 && fits(expected + distance);
    // Equally near above and below: nothing says which one the model meant.
    if (before && after) return { ambiguous: [expected - distance + 1, expected + distance + 1] };
    if (before) return expected - distance;
    if (after) return expected + distance;
  }
  return undefined;
}

function spliceHunk(lines: Line[], at: number, sides: HunkSides, eol: '\n' | '\r\n'): Line[] {
  const region: Line[] = [];
  let cursor = at;
  for (const { op, text } of sides.ops) {
    if (op === ' ') region.push({ ...(lines[cursor++] as Line) });
    else if (op === '-') cursor++;
    else region.push({ text, eol });
  }
  const reachesEnd = cursor === lines.length;
  const before = lines.slice(0, at);
  const after = lines.slice(cursor);
  if (reachesEnd && region.length > 0) {
    const originalLast = lines.length > 0 ? (lines[lines.length - 1] as Line).eol : eol;
    const last = region[region.length - 1] as Line;
    // Explicit "\ No newline" markers win; without them the file keeps its final-newline state,
    // since models routinely leave the markers out.
    if (sides.newNoEol) last.eol = '';
    else if (sides.oldNoEol) last.eol = eol;
    else if (originalLast === '') last.eol = '';
    else if (last.eol === '') last.eol = eol;
  }
  const result = [...before, ...region, ...after];
  // Every line but the last needs a terminator, e.g. after appending below a last line that had none.
  for (let i = 0; i < result.length - 1; i++) {
    const line = result[i] as Line;
    if (line.eol === '') line.eol = eol;
  }
  return result;
}

/** Text of a file created by a patch: every line added, terminated unless the patch says otherwise. */
export function contentOfNewFile(hunks: readonly StructuredPatchHunk[], rel: string): string {
  let out = '';
  for (const hunk of hunks) {
    const sides = sidesOf(hunk);
    if (sides.ops.some((o) => o.op !== '+')) {
      throw new ToolError('parse', `The patch creates ${rel} but has context or removed lines for it.`, {
        path: rel,
      });
    }
    const texts = sides.ops.map((o) => o.text);
    out += texts.join('\n') + (texts.length > 0 && !sides.newNoEol ? '\n' : '');
  }
  return out;
}

/** The lines a patch deleting a file says it had, to check the file is the one the model saw. */
export function removedLines(hunks: readonly StructuredPatchHunk[]): string[] {
  return hunks.flatMap((h) => sidesOf(h).oldLines);
}
