import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parsePatch, type StructuredPatch } from 'diff';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { encodeText } from '../util/text-bytes.js';
import { applyHunks, contentOfNewFile, type HunkReport, removedLines } from './apply-hunks.js';
import { type ConfinedPath, confinePath } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { type FileText, joinLines, readEditableText, splitLines } from './file-text.js';
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
}

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  aliases: ['patch', 'apply_diff'],
  description: [
    'Apply a unified diff (as produced by `diff -u` or `git diff`) to one or more files:',
    '"--- a/path" / "+++ b/path" headers, "@@ -l,n +l,n @@" hunks with a few lines of context.',
    'Create a file with "--- /dev/null", delete one with "+++ /dev/null". All hunks of all files are',
    'checked before anything is written: if one does not match, no file changes. Renames are not',
    'supported: delete the old file and create the new one. Paths are relative to the project root.',
  ].join(' '),
  schema: z.object({
    patch: z.string().min(1).describe('The unified diff text.'),
  }),
  argAliases: { diff: 'patch', input: 'patch' },
  modes: ['agent'],
  mutates: true,
  async execute(args, ctx) {
    const sections = parseSections(args.patch);
    const pending = new Map<string, Pending>();
    for (const section of sections) await planSection(ctx, section, pending);
    for (const item of pending.values()) {
      if (item.action !== 'created' && (await ctx.editor.bufferText(item.target.abs)) !== undefined) {
        return fail(
          'unsaved_buffer',
          `${item.target.rel} has unsaved changes in the editor. Ask the user to save or discard them, then read it again.`,
          { path: item.target.rel },
        );
      }
    }
    const rels = [...pending.values()].map((p) => p.target.rel);
    const denied = await requestPermission(ctx, {
      pattern: rels.join(' '),
      summary: `Patch ${rels.length === 1 ? rels[0] : `${rels.length} files`}`,
      diff: args.patch,
      paths: rels,
    });
    if (denied) return denied;
    return commit(ctx, [...pending.values()]);
  },
});

function parseSections(patch: string): StructuredPatch[] {
  if (/^(?:---|\+\+\+|diff --git) "/m.test(patch)) {
    throw new ToolError(
      'parse',
      'Quoted file names are not supported; use paths without spaces or special characters.',
    );
  }
  let sections: StructuredPatch[];
  try {
    sections = parsePatch(patch.replace(/\r\n/g, '\n'));
  } catch (err) {
    throw new ToolError(
      'parse',
      `The patch could not be parsed: ${(err as Error).message}. Check the hunk line counts.`,
    );
  }
  sections = sections.filter(
    (s) => s.oldFileName !== undefined || s.newFileName !== undefined || s.hunks.length,
  );
  if (sections.length === 0) {
    throw new ToolError(
      'parse',
      'No file sections found: a unified diff needs "--- path" and "+++ path" headers.',
    );
  }
  return sections;
}

function stripPrefixes(section: StructuredPatch): { oldName?: string; newName?: string } {
  let oldName = section.oldFileName?.trim();
  let newName = section.newFileName?.trim();
  const isNull = (n?: string) => n === '/dev/null';
  const git = section.isGit || (oldName?.startsWith('a/') && newName?.startsWith('b/'));
  if (git || isNull(oldName) || isNull(newName)) {
    if (!isNull(oldName) && oldName?.startsWith('a/')) oldName = oldName.slice(2);
    if (!isNull(newName) && newName?.startsWith('b/')) newName = newName.slice(2);
  }
  return { oldName, newName };
}

async function planSection(ctx: ToolCallContext, section: StructuredPatch, pending: Map<string, Pending>) {
  const { oldName, newName } = stripPrefixes(section);
  if (!oldName || !newName)
    throw new ToolError('parse', 'A file section is missing its "---" or "+++" header.');
  const creating = oldName === '/dev/null';
  const deleting = newName === '/dev/null';
  if (section.isRename || (!creating && !deleting && oldName !== newName)) {
    throw new ToolError(
      'parse',
      `Renames are not supported (${oldName} -> ${newName}): delete the old file and create the new one.`,
      { path: oldName },
    );
  }
  const name = creating ? newName : oldName;
  const target = await confinePath(ctx.root, name, { allowMissing: true });
  const rel = target.rel;
  let item = pending.get(target.real);
  if (!item) {
    const original = target.exists ? await readEditableText(target) : undefined;
    item = {
      target,
      original,
      text: original?.text,
      bom: original?.bom ?? false,
      action: 'updated',
      hunks: [],
    };
    pending.set(target.real, item);
  }
  const exists = item.text !== undefined;
  if (creating) {
    if (exists)
      throw new ToolError('exists', `${rel} already exists; patch it instead of creating it.`, { path: rel });
    item.text = contentOfNewFile(section.hunks, rel);
    item.action = item.original ? 'updated' : 'created';
    return;
  }
  if (!exists) {
    throw new ToolError('missing_file', `${rel} does not exist; create it with "--- /dev/null".`, {
      path: rel,
    });
  }
  const lines = splitLines(item.text as string);
  if (deleting) {
    const removed = removedLines(section.hunks);
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
  const applied = applyHunks(lines, section.hunks, rel);
  item.text = joinLines(applied.lines);
  item.hunks.push(...applied.reports);
  if (item.action !== 'created') item.action = 'updated';
}

async function commit(ctx: ToolCallContext, items: Pending[]) {
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
    const moved = item.hunks.filter((h) => h.offset !== undefined);
    files.push({
      path: target.rel,
      action: item.action,
      ...(item.hunks.length > 0 ? { hunks: item.hunks.length } : {}),
      ...(moved.length > 0 ? { hunks_moved: moved } : {}),
    });
  }
  return { files, changed_paths: changed };
}
