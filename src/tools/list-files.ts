import { z } from 'zod';
import { confinePath, realRoot, toProjectRelative } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { fail } from './tool-error.js';
import { compareRel, walkFiles } from './walk-files.js';

export const MAX_ENTRIES = 500;
export const MAX_DEPTH = 12;

export const listFilesTool = defineTool({
  name: 'list_files',
  aliases: ['ls', 'list_dir', 'list_directory'],
  description: [
    'List the files under a project directory (default: the project root), sorted, at most 500.',
    `Recursive by default, down to ${MAX_DEPTH} levels; set recursive=false for one level.`,
    'Hidden files, .gitignored files and generated folders (node_modules, dist, build, target, ...) are',
    'skipped unless include_ignored=true. Symbolic links are listed (and repeated under "links") but not followed.',
  ].join(' '),
  schema: z.object({
    path: z.string().optional().describe('Directory relative to the project root (default ".").'),
    extension: z.string().optional().describe('Only files with this extension, e.g. "ts" or ".ts".'),
    recursive: z.boolean().optional().describe('Descend into subdirectories (default true).'),
    include_ignored: z
      .boolean()
      .optional()
      .describe('Also list hidden, .gitignored and generated files (default false).'),
  }),
  argAliases: { dir: 'path', directory: 'path' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const target = await confinePath(ctx.root, args.path ?? '.');
    if (!target.stats?.isDirectory()) {
      return fail('not_a_directory', `${target.rel} is a file, not a directory.`, { path: target.rel });
    }
    const root = await realRoot(ctx.root);
    const start = toProjectRelative(root, target.real);
    const report = { depthLimited: false };
    const entries = await walkFiles({
      report,
      root,
      start: start === '.' ? '' : start,
      includeIgnored: args.include_ignored ?? false,
      listLinks: true,
      maxDepth: args.recursive === false ? 1 : MAX_DEPTH,
      signal: ctx.signal,
    });
    const ext = args.extension ? `.${args.extension.replace(/^\*?\./, '')}` : undefined;
    const files = ext ? entries.filter((e) => e.rel.endsWith(ext)) : entries;
    files.sort((a, b) => compareRel(a.rel, b.rel));
    const shown = files.slice(0, MAX_ENTRIES);
    const result: Record<string, unknown> = {
      path: target.rel,
      files: shown.map((e) => e.rel),
      count: files.length,
    };
    const links = shown.filter((e) => e.link).map((e) => e.rel);
    if (links.length > 0) result.links = links;
    if (report.depthLimited && args.recursive !== false) {
      result.depth_limited = true;
      result.depth_note = `Folders deeper than ${MAX_DEPTH} levels were not listed; list them with a deeper path.`;
    }
    if (files.length > MAX_ENTRIES) {
      result.truncated = true;
      result.note = `Showing the first ${MAX_ENTRIES} of ${files.length} files; narrow the path or the extension.`;
    }
    return result;
  },
});
