import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { encodeText } from '../util/text-bytes.js';
import { applyHunks, contentOfNewFile, type HunkReport } from './apply-hunks.js';
import { type ConfinedPath, confinePath } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { refuseChangedMeanwhile, refuseStaleFile } from './edit-guard.js';
import { type FileText, joinLines, readEditableText, splitLines } from './file-text.js';
import { parsePatchText } from './patch-formats/parse-patch.js';
import { type FilePatch, oldSide } from './patch-formats/patch-model.js';
import { reportChanged, requestPermission } from './permission.js';
import type { ToolCallContext } from './tool-context.js';
import { fail, ToolError } from './tool-error.js';

/** The state of one file while every section of the patch is checked in memory. */
interface Pending {
  target: ConfinedPath;
  /** What is on disk now (undefined: does not exist). */
  original?: FileText;
  /** After the patch (undefined: deleted). */
  text?: string;
  bom: boolean;
  action: 'created' | 'updated' | 'deleted';
  hunks: HunkReport[];
  repairs: Set<string>;
}

const PATCH_RULES = [
  'Context and removed lines must match the file. All hunks of all files are checked before',
  'anything is written: if one does not match, or fits more than one place, no file changes.',
  'Renames are not supported: delete the old file and create the new one. Paths are relative to',
  'the project root.',
].join(' ');

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  aliases: ['patch', 'apply_diff'],
  description: [
    'Apply a patch to one or more files. Write a unified diff as produced by `diff -u` or',
    '`git diff`: "--- a/path" / "+++ b/path" headers, then "@@ -l,n +l,n @@" hunks with three lines',
    'of unchanged context around each change (" " context, "-" removed, "+" added lines). Create a',
    'file with "--- /dev/null", delete one with "+++ /dev/null". The "*** Begin Patch" format is',
    `accepted too. ${PATCH_RULES}`,
  ].join(' '),
  descriptionFor: {
    openai: [
      'Apply a patch to one or more files, in the "*** Begin Patch" format:',
      '"*** Begin Patch", then per file "*** Update File: path" followed by hunks, each introduced',
      'by "@@" or "@@ line that precedes the change" (a function or class header) and made of',
      '" " context, "-" removed and "+" added lines with three lines of context around each',
      'change; "*** Add File: path" followed by "+" lines; "*** Delete File: path"; finally',
      '"*** End Patch". Use "*** End of File" after a hunk that must match the end of the file.',
      `Unified diffs (\`diff -u\`, \`git diff\`) are accepted too. ${PATCH_RULES}`,
    ].join(' '),
  },
  schema: z.object({
    patch: z.string().min(1).describe('The patch text: a unified diff or a "*** Begin Patch" block.'),
  }),
  argAliases: { diff: 'patch', input: 'patch' },
  modes: ['agent'],
  mutates: true,
  async execute(args, ctx) {
    const parsed = parsePatchText(args.patch);
    const pending = new Map<string, Pending>();
    for (const file of parsed.files) await planFile(ctx, file, pending);
    const rels = [...pending.values()].map((p) => p.target.rel);
    const denied = await requestPermission(ctx, {
      pattern: rels.join(' '),
      summary: `Patch ${rels.length === 1 ? rels[0] : `${rels.length} files`}`,
      diff: resultingDiff([...pending.values()]),
      paths: rels,
    });
    if (denied) return denied;
    for (const item of pending.values()) {
      const before = item.original ? encodeText(item.original.text, item.original.bom) : undefined;
      const meanwhile = await refuseChangedMeanwhile(ctx, item.target, before);
      if (meanwhile) return meanwhile;
    }
    return commit(ctx, [...pending.values()], parsed.format);
  },
});

async function planFile(ctx: ToolCallContext, file: FilePatch, pending: Map<string, Pending>) {
  const target = await confinePath(ctx.root, file.path, { allowMissing: true });
  const rel = target.rel;
  let item = pending.get(target.real);
  if (!item) {
    const original = target.exists ? await readEditableText(target) : undefined;
    // Checked before matching: against changed text the model needs a fresh read, not a mismatch.
    const stale = original ? await refuseStaleFile(ctx, target, original.text) : undefined;
    if (stale) throw new ToolError(stale.error_kind, stale.error, { path: rel });
    item = {
      target,
      original,
      text: original?.text,
      bom: original?.bom ?? false,
      action: 'updated',
      hunks: [],
      repairs: new Set(),
    };
    pending.set(target.real, item);
  }
  const exists = item.text !== undefined;
  if (file.action === 'add') {
    if (exists) {
      throw new ToolError('exists', `${rel} already exists; patch it instead of creating it.`, {
        path: rel,
        line: file.patchLine,
      });
    }
    item.text = contentOfNewFile(file.hunks, rel);
    item.action = item.original ? 'updated' : 'created';
    return;
  }
  if (!exists) {
    throw new ToolError('missing_file', `${rel} does not exist; create it as a new file instead.`, {
      path: rel,
      line: file.patchLine,
    });
  }
  const lines = splitLines(item.text as string);
  if (file.action === 'delete') {
    const removed = file.hunks.flatMap(oldSide);
    if (removed.length > 0 && removed.join('\n') !== lines.map((l) => l.text).join('\n')) {
      throw new ToolError('no_match', `The patch deletes ${rel} but its content differs from the file.`, {
        path: rel,
        line: 1,
      });
    }
    item.text = undefined;
    item.action = 'deleted';
    return;
  }
  if (file.hunks.length === 0) {
    throw new ToolError('parse', `The patch names ${rel} but has no hunks for it.`, {
      path: rel,
      line: file.patchLine,
    });
  }
  const applied = applyHunks(lines, file.hunks, rel);
  item.text = joinLines(applied.lines);
  item.hunks.push(...applied.reports);
  for (const r of applied.repairs) item.repairs.add(r);
  if (item.action !== 'created') item.action = 'updated';
}

/**
 * What will really change, rather than the model's patch text: after line-number, indentation or
 * quote repairs the two differ, and the user approves the change that will be written.
 */
function resultingDiff(items: Pending[]): string {
  return items
    .filter((item) => item.original === undefined || item.text !== item.original.text)
    .map((item) => {
      const rel = item.target.rel;
      const before = item.original?.text ?? '';
      const after = item.text ?? '';
      return createTwoFilesPatch(
        item.original ? `a/${rel}` : '/dev/null',
        item.text === undefined ? '/dev/null' : `b/${rel}`,
        before,
        after,
      );
    })
    .join('');
}

async function commit(ctx: ToolCallContext, items: Pending[], format: 'unified' | 'openai') {
  const repairs = [...new Set(items.flatMap((i) => [...i.repairs]))];
  const changed: string[] = [];
  const files: Array<Record<string, unknown>> = [];
  for (const item of items) {
    const { target } = item;
    if (item.original !== undefined && item.text === item.original.text) continue;
    try {
      if (item.text === undefined) {
        // Deleting a symlink removes the link, as git would, not the file it points to.
        const isLink = (await fs.lstat(target.abs)).isSymbolicLink();
        await fs.rm(isLink ? target.abs : target.real);
      } else {
        await fs.mkdir(path.dirname(target.real), { recursive: true });
        await writeFileAtomic(target.real, encodeText(item.text, item.bom));
      }
    } catch (err) {
      return fail(
        'io',
        `Writing ${target.rel} failed (${(err as Error).message}).${changed.length > 0 ? ` These files were already changed: ${changed.join(', ')}.` : ' No file was changed.'}`,
        { path: target.rel, changed_paths: changed },
      );
    }
    changed.push(target.rel);
    await reportChanged(ctx, target.abs);
    if (item.text === undefined) ctx.reads.forget(target.rel);
    else ctx.reads.saw(target.rel, item.text);
    const moved = item.hunks.filter((h) => h.offset !== undefined);
    files.push({
      path: target.rel,
      action: item.action,
      ...(item.hunks.length > 0 ? { hunks: item.hunks.length } : {}),
      ...(moved.length > 0 ? { hunks_moved: moved } : {}),
      ...(item.repairs.size > 0 ? { applied_with: [...item.repairs] } : {}),
    });
  }
  return {
    format,
    files,
    changed_paths: changed,
    ...(repairs.length > 0 ? { applied_with: repairs, note: `applied with: ${repairs.join(', ')}` } : {}),
  };
}
