import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { realRoot } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { reportChanged } from './permission.js';
import { fail } from './tool-error.js';

export const PLANS_DIR = '.agent/plans';

export const createPlanFileTool = defineTool({
  name: 'create_plan_file',
  aliases: ['write_plan', 'save_plan'],
  description: [
    `Save the plan as Markdown in ${PLANS_DIR}/<name>.md (the only file Plan mode may write).`,
    'Give it a short kebab-case name. End the plan with a "## Tasks" section of "- [ ] task" lines:',
    'Agent mode turns them into the todo list when the user builds the plan. Writing the same name',
    'again replaces the plan.',
  ].join(' '),
  schema: z.object({
    name: z.string().min(1).describe('File name such as "add-login-form" or "add-login-form.md".'),
    content: z.string().min(1).describe('The plan, in Markdown.'),
  }),
  argAliases: { filename: 'name', title: 'name', plan: 'content' },
  modes: ['plan', 'agent'],
  mutates: true,
  async execute(args, ctx) {
    const ext = path.extname(args.name);
    if (ext && ext.toLowerCase() !== '.md') {
      return fail('invalid_args', 'Plan files are Markdown: use a name ending in .md, or no extension.');
    }
    const base = (ext ? args.name.slice(0, -ext.length) : args.name)
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '');
    if (base === '' || args.name.includes('/') || args.name.includes('\\')) {
      return fail('invalid_args', 'Give a plain file name like "add-login-form", without folders.');
    }
    const root = await realRoot(ctx.root);
    // A symlinked .agent or plans folder would send the write anywhere; refuse rather than follow.
    for (const dir of ['.agent', PLANS_DIR]) {
      const stats = await fs.lstat(path.join(root, dir)).catch(() => undefined);
      if (stats?.isSymbolicLink()) {
        return fail(
          'outside_project',
          `${dir} is a symbolic link; plans are only written to a real ${PLANS_DIR} folder.`,
          {
            path: dir,
          },
        );
      }
      if (stats && !stats.isDirectory())
        return fail('io', `${dir} exists and is not a folder.`, { path: dir });
    }
    const rel = `${PLANS_DIR}/${base}.md`;
    const abs = path.join(root, rel);
    const existing = await fs.lstat(abs).catch(() => undefined);
    if (existing && !existing.isFile())
      return fail('outside_project', `${rel} is not a regular file.`, { path: rel });
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await writeFileAtomic(abs, args.content.endsWith('\n') ? args.content : `${args.content}\n`);
    await reportChanged(ctx, abs);
    return { path: rel, replaced: existing !== undefined, changed_paths: [rel] };
  },
});
