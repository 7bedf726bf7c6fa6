import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { encodeText } from '../util/text-bytes.js';
import { closestRegion } from './closest-region.js';
import { confinePath } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { refuseChangedMeanwhile, refuseStaleFile } from './edit-guard.js';
import { lineOf, locateEdit } from './edit-match.js';
import { readEditableText } from './file-text.js';
import { textLines } from './normalize-text.js';
import { reportChanged, requestPermission } from './permission.js';
import { fail } from './tool-error.js';

export const editFileTool = defineTool({
  name: 'edit_file',
  aliases: ['edit', 'str_replace', 'replace', 'replace_in_file'],
  description: [
    'Replace an exact piece of text in a file. old_text must appear exactly once (include enough',
    'surrounding lines to make it unique) unless replace_all=true. Copy old_text from read_file',
    'output without the line-number prefixes, with its exact indentation. Everything else in the',
    'file is kept byte for byte (encoding, BOM, line endings, permissions). To create a file use',
    'write_file; for many changes at once use apply_patch.',
  ].join(' '),
  schema: z.object({
    path: z.string().min(1).describe('Path relative to the project root.'),
    old_text: z.string().min(1).describe('The exact text to replace.'),
    new_text: z.string().describe('The text to put in its place.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence (default false).'),
    expected_replacements: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('How many places old_text must match; all of them are replaced (default 1).'),
  }),
  argAliases: {
    file_path: 'path',
    filename: 'path',
    old_string: 'old_text',
    new_string: 'new_text',
    old_str: 'old_text',
    new_str: 'new_text',
  },
  invalidArgsHint: (args) => {
    const command = typeof args.command === 'string' ? args.command : undefined;
    if (command === 'view') return 'To see a file use read_file.';
    if (command === 'create') return 'To create a file use write_file.';
    if (command === 'insert' || 'insert_line' in args) {
      return 'edit_file does not insert at line numbers: set old_text to the line(s) where the text goes and new_text to those lines with the new ones added.';
    }
    return undefined;
  },
  modes: ['agent'],
  mutates: true,
  async execute(args, ctx) {
    const target = await confinePath(ctx.root, args.path);
    const rel = target.rel;
    const file = await readEditableText(target);
    const stale = await refuseStaleFile(ctx, target, file.text);
    if (stale) return stale;
    if (args.old_text === args.new_text) {
      return fail('no_change', 'old_text and new_text are identical; nothing to change.', { path: rel });
    }
    const found = locateEdit(file.text, args.old_text, args.new_text);
    if (!found) {
      const closest = closestRegion(
        file.text.split('\n').map((l) => l.replace(/\r$/, '')),
        textLines(args.old_text),
      );
      // read_file numbers its lines; models copying its output sometimes keep the numbers.
      const numbered = textLines(args.old_text).every((l) => /^\s*\d+\t/.test(l))
        ? ' old_text seems to include the line-number prefixes of read_file output; leave them out.'
        : '';
      return fail(
        'no_match',
        (closest
          ? `old_text was not found in ${rel}. The closest text is at lines ${closest.start_line}-${closest.end_line} (shown in "closest", differences in "differences"); nothing was changed. Read the file again and copy old_text exactly.`
          : `old_text was not found in ${rel}; nothing was changed. Read the file again and copy old_text exactly.`) +
          numbered,
        {
          path: rel,
          ...(closest
            ? { line: closest.start_line, closest: closest.text, differences: closest.differences }
            : {}),
        },
      );
    }
    const lines = found.edits.map((e) => lineOf(file.text, e.start));
    const expected = args.expected_replacements;
    if (expected !== undefined && found.edits.length !== expected && !args.replace_all) {
      return fail(
        'ambiguous',
        `old_text matches ${found.edits.length} place${found.edits.length === 1 ? '' : 's'} in ${rel} (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}), not the ${expected} expected; nothing was changed. Read the file again and adjust old_text or expected_replacements.`,
        { path: rel, line: lines[0], lines },
      );
    }
    if (found.edits.length > 1 && !args.replace_all && expected === undefined) {
      const how = found.repairs.length > 0 ? ` (after allowing for ${found.repairs.join(', ')})` : '';
      return fail(
        'ambiguous',
        `old_text matches ${found.edits.length} places in ${rel}${how}, at lines ${lines.join(', ')}; nothing was changed. Include more surrounding lines to pick one, or set replace_all=true.`,
        { path: rel, line: lines[0], lines },
      );
    }
    let updated = '';
    let last = 0;
    for (const edit of found.edits) {
      updated += file.text.slice(last, edit.start) + edit.text;
      last = edit.end;
    }
    updated += file.text.slice(last);
    if (updated === file.text) {
      return fail('no_change', `The edit leaves ${rel} unchanged.`, { path: rel });
    }
    const denied = await requestPermission(ctx, {
      pattern: rel,
      summary: `Edit ${rel}`,
      diff: createTwoFilesPatch(rel, rel, file.text, updated),
      paths: [rel],
    });
    if (denied) return denied;
    const meanwhile = await refuseChangedMeanwhile(ctx, target, encodeText(file.text, file.bom));
    if (meanwhile) return meanwhile;
    await writeFileAtomic(target.real, encodeText(updated, file.bom));
    await reportChanged(ctx, target.abs);
    ctx.reads.saw(rel, updated);
    const result: Record<string, unknown> = {
      path: rel,
      replacements: found.edits.length,
      line: lines[0],
      changed_paths: [rel],
    };
    if (found.repairs.length > 0) {
      result.applied_with = found.repairs;
      result.note = `applied with: ${found.repairs.join(', ')}`;
    }
    return result;
  },
});
