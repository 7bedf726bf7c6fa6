import { ToolError } from '../tool-error.js';
import { emptyHunk, type FilePatch, type PatchHunk } from './patch-model.js';

/**
 * A lenient unified-diff reader. Hunk headers are hints, as GNU patch treats them: counts are
 * recounted from the lines, `@@ ... @@` without numbers is allowed, and an empty line inside a
 * hunk is a blank context line whose leading space got lost. Anything else that is not part of a
 * hunk is a parse error with its line number, because a silently dropped line would change what
 * the hunk means.
 */
const HEADER = /^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@+/;
const GIT_NOISE =
  /^(index |new file mode|deleted file mode|old mode|new mode|similarity index|dissimilarity index|Index: |={3,}|Binary files)/;

interface OpenHunk {
  hunk: PatchHunk;
  counts?: { old: number; new: number };
  /** Indexes into hunk.ops of lines that were empty in the patch. */
  blanks: number[];
}

export function parseUnified(lines: readonly string[]): FilePatch[] {
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let open: OpenHunk | undefined;
  let git: { path: string; line: number; created: boolean; deleted: boolean; used: boolean } | undefined;
  const close = () => {
    if (open) finishHunk(open, file?.path ?? '');
    open = undefined;
  };
  const closeGit = () => {
    // A git section without ---/+++ lines creates or deletes an empty file.
    if (git && !git.used && (git.created || git.deleted)) {
      files.push({ action: git.created ? 'add' : 'delete', path: git.path, hunks: [], patchLine: git.line });
    }
    git = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const next = lines[i + 1];
    if (line.startsWith('diff --git ')) {
      close();
      closeGit();
      file = undefined;
      const m = /^diff --git a\/(\S+) b\/(\S+)\s*$/.exec(line);
      if (m) git = { path: m[2] as string, line: i + 1, created: false, deleted: false, used: false };
      continue;
    }
    // Inside a hunk whose header promises more lines, "--- x" is a removed "-- x" line, unless a
    // hunk header follows the pair as it does after every real file header.
    const headerFollows = lines[i + 2]?.startsWith('@@') === true;
    if (line.startsWith('--- ') && next?.startsWith('+++ ') && (!open || !needsMore(open) || headerFollows)) {
      close();
      file = fileHeader(line.slice(4), next.slice(4), Boolean(git), i + 1);
      if (git) git.used = true;
      files.push(file);
      i++;
      continue;
    }
    if (/^(rename|copy) (from|to) /.test(line)) {
      throw new ToolError(
        'parse',
        `Renames are not supported (line ${i + 1}): delete the old file and create the new one.`,
        {
          line: i + 1,
        },
      );
    }
    if (git && !open && line.startsWith('new file mode')) git.created = true;
    if (git && !open && line.startsWith('deleted file mode')) git.deleted = true;
    if (!file && line.startsWith('@@')) {
      if (!git) {
        throw new ToolError(
          'parse',
          `The hunk at line ${i + 1} of the patch comes before any "--- path" / "+++ path" header.`,
          {
            line: i + 1,
          },
        );
      }
      // Some models write only the "diff --git" line above their hunks.
      file = { action: 'update', path: git.path, hunks: [], patchLine: git.line };
      git.used = true;
      files.push(file);
    }
    if (file && line.startsWith('@@')) {
      close();
      open = startHunk(line, i + 1);
      file.hunks.push(open.hunk);
      continue;
    }
    if (file && !open && /^[-+ ]/.test(line) && file.hunks.length === 0) {
      // Hunk lines right under the file header: the model left out the @@ line altogether.
      open = { hunk: emptyHunk(i + 1), blanks: [] };
      open.hunk.repairs.push('hunk_header');
      file.hunks.push(open.hunk);
    }
    if (open) {
      const op = line[0];
      if (op === ' ' || op === '-' || op === '+') {
        open.hunk.ops.push({ op, text: line.slice(1) });
        continue;
      }
      if (op === '\\') {
        const previous = open.hunk.ops[open.hunk.ops.length - 1]?.op;
        if (previous !== '+') open.hunk.oldNoEol = true;
        if (previous !== '-') open.hunk.newNoEol = true;
        continue;
      }
      if (line.trim() === '') {
        open.blanks.push(open.hunk.ops.length);
        open.hunk.ops.push({ op: ' ', text: '' });
        continue;
      }
      if (GIT_NOISE.test(line)) {
        close();
        continue;
      }
      throw new ToolError(
        'parse',
        `Line ${i + 1} of the patch is not a hunk line (every line in a hunk starts with " ", "-" or "+"): ${JSON.stringify(line.slice(0, 80))}`,
        { path: file?.path, line: i + 1 },
      );
    }
  }
  close();
  closeGit();
  return files;
}

function needsMore(open: OpenHunk): boolean {
  if (!open.counts) return false;
  const old = open.hunk.ops.filter((o) => o.op !== '+').length;
  const added = open.hunk.ops.filter((o) => o.op !== '-').length;
  return old < open.counts.old || added < open.counts.new;
}

function startHunk(line: string, patchLine: number): OpenHunk {
  const hunk = emptyHunk(patchLine);
  const m = HEADER.exec(line);
  if (!m) {
    hunk.repairs.push('hunk_header');
    return { hunk, blanks: [] };
  }
  const oldCount = m[2] === undefined ? 1 : Number(m[2]);
  hunk.oldStart = Number(m[1]);
  hunk.oldCount = oldCount;
  return { hunk, blanks: [], counts: { old: oldCount, new: m[4] === undefined ? 1 : Number(m[4]) } };
}

function finishHunk(open: OpenHunk, path: string): void {
  const { hunk, counts } = open;
  const ops = hunk.ops;
  const countsFit = () =>
    counts !== undefined &&
    ops.filter((o) => o.op !== '+').length === counts.old &&
    ops.filter((o) => o.op !== '-').length === counts.new;
  // Trailing empty lines are usually the gap before the next file, not context; keep them only
  // when the header counts say they belong to the hunk.
  if (!countsFit()) {
    while (ops.length > 0 && open.blanks.includes(ops.length - 1)) ops.pop();
  }
  if (ops.length === 0) {
    throw new ToolError('parse', `The hunk at line ${hunk.patchLine} of the patch has no lines.`, {
      path,
      line: hunk.patchLine,
    });
  }
  if (open.blanks.some((b) => b < ops.length)) hunk.repairs.push('blank_context');
  if (counts && !countsFit()) hunk.repairs.push('hunk_counts');
}

function fileHeader(oldRaw: string, newRaw: string, isGit: boolean, patchLine: number): FilePatch {
  if (oldRaw.startsWith('"') || newRaw.startsWith('"')) {
    throw new ToolError(
      'parse',
      'Quoted file names are not supported; use paths without spaces or special characters.',
      {
        line: patchLine,
      },
    );
  }
  // diff -u appends a tab and a timestamp to each name.
  let oldName = oldRaw.split('\t')[0]?.trim() ?? '';
  let newName = newRaw.split('\t')[0]?.trim() ?? '';
  const isNull = (n: string) => n === '/dev/null';
  if (isGit || (oldName.startsWith('a/') && newName.startsWith('b/')) || isNull(oldName) || isNull(newName)) {
    if (!isNull(oldName) && oldName.startsWith('a/')) oldName = oldName.slice(2);
    if (!isNull(newName) && newName.startsWith('b/')) newName = newName.slice(2);
  }
  if (!oldName || !newName) {
    throw new ToolError('parse', 'A file section is missing its "---" or "+++" file name.', {
      line: patchLine,
    });
  }
  if (isNull(oldName)) return { action: 'add', path: newName, hunks: [], patchLine };
  if (isNull(newName)) return { action: 'delete', path: oldName, hunks: [], patchLine };
  if (oldName !== newName) {
    throw new ToolError(
      'parse',
      `Renames are not supported (${oldName} -> ${newName}): delete the old file and create the new one.`,
      { path: oldName, line: patchLine },
    );
  }
  return { action: 'update', path: oldName, hunks: [], patchLine };
}
