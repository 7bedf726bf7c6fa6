import { ToolError } from '../tool-error.js';
import { emptyHunk, type FilePatch, type PatchHunk } from './patch-model.js';

/**
 * OpenAI's patch envelope, the one GPT-4.1, GPT-5 and Codex models are trained to write:
 *
 *   *** Begin Patch
 *   *** Update File: src/app.py
 *   @@ def main():
 *   -    print("hi")
 *   +    print("hello")
 *   *** Add File: notes.txt
 *   +first line
 *   *** Delete File: old.txt
 *   *** End Patch
 *
 * There are no line numbers: `@@ text` lines are anchors (the hunk comes after that line, and
 * stacked anchors narrow it further), and `*** End of File` pins a hunk to the end of the file.
 */
const FILE_HEADER = /^\*\*\* (Update|Add|Delete) File:\s*(.+?)\s*$/;
/** What is left of a unified hunk header ("@@ -12,6 +12,7 @@ heading") after its first "@@". */
const UNIFIED_NUMBERS = /^-(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/;

export function looksLikeOpenAiPatch(lines: readonly string[]): boolean {
  return lines.some((l) => l.trim() === '*** Begin Patch' || FILE_HEADER.test(l));
}

export function parseOpenAiPatch(lines: readonly string[]): FilePatch[] {
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let hunk: PatchHunk | undefined;
  let blanks: number[] = [];
  const close = () => {
    if (hunk && file) finishHunk(hunk, blanks, file);
    hunk = undefined;
    blanks = [];
  };
  const start = () => {
    hunk = emptyHunk(0);
    blanks = [];
    file?.hunks.push(hunk);
    return hunk;
  };
  const begin = lines.findIndex((l) => l.trim() === '*** Begin Patch');
  for (let i = Math.max(0, begin + 1); i < lines.length; i++) {
    const line = lines[i] as string;
    // Markers start at column 0: " *** End of File" is a context line of a Markdown file.
    const marker = line.trimEnd();
    if (marker === '*** End Patch') break;
    const header = FILE_HEADER.exec(line);
    if (header) {
      close();
      const action = (header[1] as string).toLowerCase() as 'update' | 'add' | 'delete';
      file = { action, path: header[2] as string, hunks: [], patchLine: i + 1 };
      files.push(file);
      continue;
    }
    if (marker.startsWith('*** Move to:')) {
      throw new ToolError(
        'parse',
        'Moving a file is not supported: delete the old file and add the new one.',
        {
          path: file?.path,
          line: i + 1,
        },
      );
    }
    if (marker === '*** End of File') {
      if (hunk) hunk.atEnd = true;
      close();
      continue;
    }
    if (!file) {
      if (line.trim() === '') continue;
      throw new ToolError(
        'parse',
        `Line ${i + 1} of the patch is outside any "*** Update/Add/Delete File:" section.`,
        {
          line: i + 1,
        },
      );
    }
    if (file.action === 'delete') {
      if (line.trim() === '') continue;
      throw new ToolError('parse', `"*** Delete File: ${file.path}" takes no lines (line ${i + 1}).`, {
        path: file.path,
        line: i + 1,
      });
    }
    if (file.action === 'update' && line.startsWith('@@')) {
      // Stacked anchors (@@ class A / @@ def f) belong to the same hunk until its first line.
      let current = hunk;
      if (!current || current.ops.length > 0) {
        close();
        current = start();
      }
      if (current.patchLine === 0) current.patchLine = i + 1;
      const anchor = line.slice(2).trim();
      // Models that also write unified diffs put "@@ -12,6 +12,7 @@" or "@@ @@" here: line numbers
      // (hints, as in a unified diff) or nothing, never a line of the file to look for.
      const numbers = UNIFIED_NUMBERS.exec(anchor);
      if (numbers) {
        current.oldStart = Number(numbers[1]);
        current.oldCount = numbers[2] === undefined ? 1 : Number(numbers[2]);
        current.repairs.push('hunk_header');
      } else if (anchor === '@@') {
        current.repairs.push('hunk_header');
      } else if (anchor !== '') {
        current.anchors.push(anchor);
      }
      continue;
    }
    const op = line[0];
    const allowed = file.action === 'add' ? op === '+' : op === ' ' || op === '-' || op === '+';
    if (allowed) {
      const target = hunk ?? start();
      if (target.patchLine === 0) target.patchLine = i + 1;
      target.ops.push({ op: op as ' ' | '-' | '+', text: line.slice(1) });
      continue;
    }
    if (line.trim() === '') {
      const target = hunk ?? start();
      if (target.patchLine === 0) target.patchLine = i + 1;
      blanks.push(target.ops.length);
      target.ops.push({ op: file.action === 'add' ? '+' : ' ', text: '' });
      continue;
    }
    throw new ToolError(
      'parse',
      file.action === 'add'
        ? `Line ${i + 1}: every line of an added file starts with "+".`
        : `Line ${i + 1} of the patch is not a hunk line (" ", "-", "+" or "@@"): ${JSON.stringify(line.slice(0, 80))}`,
      { path: file.path, line: i + 1 },
    );
  }
  close();
  return files;
}

function finishHunk(hunk: PatchHunk, blanks: number[], file: FilePatch): void {
  while (hunk.ops.length > 0 && blanks.includes(hunk.ops.length - 1)) hunk.ops.pop();
  if (blanks.some((b) => b < hunk.ops.length)) hunk.repairs.push('blank_context');
  if (hunk.ops.length === 0 && file.action === 'update' && hunk.anchors.length === 0) {
    file.hunks.splice(file.hunks.indexOf(hunk), 1);
    return;
  }
  if (hunk.ops.length === 0 && file.action === 'update') {
    throw new ToolError('parse', `The hunk after "@@ ${hunk.anchors.join(' ')}" has no lines.`, {
      path: file.path,
      line: hunk.patchLine,
    });
  }
}
