/**
 * What both patch formats parse into, so placement, checking and writing are written once.
 * Positions and counts from the text are hints: the file decides where a hunk goes.
 */
export interface HunkOp {
  op: ' ' | '-' | '+';
  text: string;
}

export interface PatchHunk {
  ops: HunkOp[];
  /** 1-based old-file line from a unified header, when it had numbers. */
  oldStart?: number;
  /** Old-side line count from a unified header (0 means "insert after oldStart"). */
  oldCount?: number;
  /** `@@ anchor` lines (OpenAI format): the hunk comes after these lines, in this order. */
  anchors: string[];
  /** `*** End of File`: the hunk must end at the end of the file. */
  atEnd: boolean;
  oldNoEol: boolean;
  newNoEol: boolean;
  /** 1-based line of the hunk header in the patch text, for errors. */
  patchLine: number;
  /** Slips forgiven while parsing: hunk_counts, hunk_header, blank_context. */
  repairs: string[];
}

export interface FilePatch {
  action: 'update' | 'add' | 'delete';
  path: string;
  hunks: PatchHunk[];
  /** 1-based line of the file header in the patch text. */
  patchLine: number;
}

export interface ParsedPatch {
  format: 'unified' | 'openai';
  files: FilePatch[];
}

export function oldSide(hunk: PatchHunk): string[] {
  return hunk.ops.filter((o) => o.op !== '+').map((o) => o.text);
}

export function emptyHunk(patchLine: number): PatchHunk {
  return { ops: [], anchors: [], atEnd: false, oldNoEol: false, newNoEol: false, patchLine, repairs: [] };
}
