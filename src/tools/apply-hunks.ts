import { closestRegion } from './closest-region.js';
import { dominantEol, type Line } from './file-text.js';
import { type BlockPlace, findBlock } from './line-match.js';
import { asciiTypography } from './normalize-text.js';
import { oldSide, type PatchHunk } from './patch-formats/patch-model.js';
import { ToolError } from './tool-error.js';

export interface HunkReport {
  /** 1-based line where the hunk applied in the file as it was before this hunk. */
  line: number;
  /** How far that is from where the header said, when it is not exact. */
  offset?: number;
}

/**
 * Applies hunks in order to a file's lines, keeping each untouched and context line's own bytes
 * (text and terminator) and giving new lines the file's dominant terminator. Where a hunk goes is
 * decided by its context and removed lines, found after the previous hunk: a unified header's
 * line number picks the nearest of several places (as GNU patch does), `@@ anchor` lines pick the
 * first place after the anchor, and with neither the place must be unique. Throws a ToolError
 * (`no_match`, `ambiguous`) naming the hunk and line; nothing is written by this function.
 */
export function applyHunks(
  lines: Line[],
  hunks: readonly PatchHunk[],
  rel: string,
): { lines: Line[]; reports: HunkReport[]; repairs: string[] } {
  const eol = dominantEol(lines);
  const repairs = new Set<string>();
  let current = lines;
  let delta = 0;
  let floor = 0;
  const reports: HunkReport[] = [];
  hunks.forEach((hunk, index) => {
    const old = oldSide(hunk);
    const texts = current.map((l) => l.text);
    const label = `Hunk ${index + 1} of ${rel} (patch line ${hunk.patchLine})`;
    const expected =
      hunk.oldStart === undefined
        ? undefined
        : Math.max(0, hunk.oldCount === 0 ? hunk.oldStart + delta : hunk.oldStart - 1 + delta);
    const place = placeHunk(texts, old, hunk, floor, expected, label, rel, index);
    for (const r of [...hunk.repairs, ...place.repairs]) repairs.add(r);
    if (eol === '\r\n' && hunk.ops.some((o) => o.op === '+')) repairs.add('crlf');
    const replaced = spliceHunk(current, place, hunk, eol);
    const added = replaced.length - current.length;
    current = replaced;
    floor = place.at + old.length + added;
    delta += added;
    if (expected !== undefined && place.at !== expected) {
      repairs.add('line_numbers');
      reports.push({ line: place.at + 1, offset: place.at - expected });
    } else {
      reports.push({ line: place.at + 1 });
    }
  });
  return { lines: current, reports, repairs: [...repairs] };
}

function placeHunk(
  texts: string[],
  old: string[],
  hunk: PatchHunk,
  floor: number,
  expected: number | undefined,
  label: string,
  rel: string,
  index: number,
): BlockPlace {
  const plain = (at: number): BlockPlace => ({ at, repairs: [], adapt: (l) => l });
  const ambiguous = (at: number[], why: string) =>
    new ToolError(
      'ambiguous',
      `${label} fits ${at.length} places, at lines ${at.map((a) => a + 1).join(', ')}, ${why}; nothing was changed. Add context lines (or an @@ anchor line) so it fits exactly one.`,
      { path: rel, line: (at[0] as number) + 1, lines: at.map((a) => a + 1), hunk: index + 1 },
    );
  const anchorEnds = hunk.anchors.length > 0 ? findAnchors(texts, hunk.anchors, floor) : undefined;
  if (anchorEnds?.length === 0) {
    throw new ToolError(
      'no_match',
      `${label}: the anchor line ${JSON.stringify(hunk.anchors.join(' / '))} is not in the file after line ${floor}; nothing was changed. Read the file again and use a line that is there.`,
      { path: rel, line: floor + 1, hunk: index + 1 },
    );
  }
  if (old.length === 0) {
    if (anchorEnds) {
      if (anchorEnds.length > 1)
        throw ambiguous(anchorEnds, 'because its anchor line appears more than once');
      return plain((anchorEnds[0] as number) + 1);
    }
    if (expected !== undefined) return plain(Math.min(Math.max(expected, floor), texts.length));
    // "*** Begin Patch" defines a bare addition as an append; a unified hunk without numbers or
    // context says nothing about where it goes.
    if (hunk.repairs.includes('hunk_header')) {
      throw new ToolError(
        'parse',
        `${label} only adds lines and has neither line numbers nor context lines, so nothing says where they go. Add a few context lines.`,
        { path: rel, line: hunk.patchLine, hunk: index + 1 },
      );
    }
    return plain(texts.length);
  }
  if (anchorEnds) {
    const byAt = new Map<number, BlockPlace>();
    for (const end of anchorEnds) {
      const first = findBlock(texts, old, { from: end, atEnd: hunk.atEnd })[0];
      if (first && !byAt.has(first.at)) byAt.set(first.at, first);
    }
    if (byAt.size > 1) throw ambiguous([...byAt.keys()], 'one after each place its anchor line appears');
    const only = [...byAt.values()][0];
    if (only) return only;
    throw noMatch(texts, old, label, rel, index, anchorEnds[0] as number);
  }
  const places = findBlock(texts, old, { from: floor, atEnd: hunk.atEnd });
  if (places.length === 0) throw noMatch(texts, old, label, rel, index, expected ?? floor);
  if (places.length === 1) return places[0] as BlockPlace;
  if (expected === undefined)
    throw ambiguous(
      places.map((p) => p.at),
      'and the patch gives no line numbers',
    );
  let best: BlockPlace[] = [];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const place of places) {
    const distance = Math.abs(place.at - expected);
    if (distance < bestDistance) {
      best = [place];
      bestDistance = distance;
    } else if (distance === bestDistance) {
      best.push(place);
    }
  }
  // Equally near above and below: nothing says which one the model meant.
  if (best.length > 1) {
    throw ambiguous(
      best.map((p) => p.at),
      `equally near line ${expected + 1} where its header puts it`,
    );
  }
  return best[0] as BlockPlace;
}

/** Index of the last anchor line, for each chain of anchors found in order after `floor`. */
function findAnchors(texts: string[], anchors: string[], floor: number): number[] {
  const norm = (s: string) => asciiTypography(s).trim();
  const wanted = anchors.map(norm);
  const ends: number[] = [];
  for (let i = floor; i < texts.length; i++) {
    if (norm(texts[i] as string) !== wanted[0]) continue;
    let at = i;
    for (let k = 1; k < wanted.length && at !== -1; k++) {
      let next = -1;
      for (let j = at + 1; j < texts.length; j++) {
        if (norm(texts[j] as string) === wanted[k]) {
          next = j;
          break;
        }
      }
      at = next;
    }
    if (at !== -1 && !ends.includes(at)) ends.push(at);
  }
  return ends;
}

function noMatch(
  texts: string[],
  old: string[],
  label: string,
  rel: string,
  index: number,
  near: number,
): ToolError {
  const closest = closestRegion(texts, old);
  return new ToolError(
    'no_match',
    `${label} does not match the file: its context and removed lines are not at line ${near + 1} or anywhere after the previous hunk${closest ? ` (the closest text is at lines ${closest.start_line}-${closest.end_line}, shown in "closest")` : ''}; nothing was changed. Read the file again and regenerate the patch.`,
    {
      path: rel,
      line: near + 1,
      hunk: index + 1,
      ...(closest ? { closest: closest.text, differences: closest.differences } : {}),
    },
  );
}

function spliceHunk(lines: Line[], place: BlockPlace, hunk: PatchHunk, eol: '\n' | '\r\n'): Line[] {
  const region: Line[] = [];
  let cursor = place.at;
  for (const { op, text } of hunk.ops) {
    if (op === ' ') region.push({ ...(lines[cursor++] as Line) });
    else if (op === '-') cursor++;
    else region.push({ text: place.adapt(text), eol });
  }
  const reachesEnd = cursor === lines.length;
  const before = lines.slice(0, place.at);
  const after = lines.slice(cursor);
  if (reachesEnd && region.length > 0) {
    const originalLast = lines.length > 0 ? (lines[lines.length - 1] as Line).eol : eol;
    const last = region[region.length - 1] as Line;
    // Explicit "\ No newline" markers win; without them the file keeps its final-newline state,
    // since models routinely leave the markers out.
    if (hunk.newNoEol) last.eol = '';
    else if (hunk.oldNoEol) last.eol = eol;
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
export function contentOfNewFile(hunks: readonly PatchHunk[], rel: string): string {
  let out = '';
  for (const hunk of hunks) {
    if (hunk.ops.some((o) => o.op !== '+')) {
      throw new ToolError('parse', `The patch creates ${rel} but has context or removed lines for it.`, {
        path: rel,
        line: hunk.patchLine,
      });
    }
    const texts = hunk.ops.map((o) => o.text);
    out += texts.join('\n') + (texts.length > 0 && !hunk.newNoEol ? '\n' : '');
  }
  return out;
}
