import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { checkText } from '../util/text-bytes.js';
import { confinePath } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { refuseChangedMeanwhile, refuseStaleFile } from './edit-guard.js';
import { reportChanged, requestPermission } from './permission.js';
import { fail } from './tool-error.js';

export const writeFileTool = defineTool({
  name: 'write_file',
  aliases: ['write', 'create_file'],
  description: [
    'Create a file, or replace the whole content of an existing one, with the given text.',
    'Parent folders are created. Prefer edit_file or apply_patch for changes to existing files:',
    'they are smaller and cannot drop code you did not mean to touch.',
  ].join(' '),
  schema: z.object({
    path: z.string().min(1).describe('Path relative to the project root.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  argAliases: { file_path: 'path', filename: 'path', text: 'content', contents: 'content' },
  modes: ['agent'],
  mutates: true,
  async execute(args, ctx) {
    const target = await confinePath(ctx.root, args.path, { allowMissing: true });
    if (target.stats?.isDirectory()) {
      return fail('is_directory', `${target.rel} is a directory.`, { path: target.rel });
    }
    let before = '';
    let beforeBytes: Buffer | undefined;
    if (target.exists) {
      beforeBytes = await fs.readFile(target.real);
      const checked = checkText(beforeBytes);
      before = checked.kind === 'text' ? checked.text : '';
      const stale = await refuseStaleFile(ctx, target, before);
      if (stale) return stale;
    }
    const denied = await requestPermission(ctx, {
      pattern: target.rel,
      summary: `${target.exists ? 'Overwrite' : 'Create'} ${target.rel}`,
      diff: createTwoFilesPatch(target.rel, target.rel, before, args.content),
      paths: [target.rel],
    });
    if (denied) return denied;
    const meanwhile = await refuseChangedMeanwhile(ctx, target, beforeBytes);
    if (meanwhile) return meanwhile;
    await fs.mkdir(path.dirname(target.real), { recursive: true });
    await writeFileAtomic(target.real, args.content);
    await reportChanged(ctx, target.abs);
    ctx.reads.saw(target.rel, args.content);
    return {
      path: target.rel,
      created: !target.exists,
      bytes: Buffer.byteLength(args.content),
      changed_paths: [target.rel],
    };
  },
});
