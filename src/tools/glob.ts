import { z } from 'zod';
import { globToRegExp } from '../util/glob-to-regexp.js';
import { confinePath, realRoot, toProjectRelative } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { findRipgrep, lineSplitter, ripgrepFilterArgs, runRipgrep } from './ripgrep.js';
import type { ToolCallContext } from './tool-context.js';
import { fail } from './tool-error.js';
import { compareRel, walkFiles } from './walk-files.js';

export const MAX_GLOB_RESULTS = 500;

export const globTool = defineTool({
  name: 'glob',
  aliases: ['find_files', 'file_search'],
  description: [
    'Find project files whose path matches a glob: "**/*.ts", "src/**/test_*.py", "*.{js,jsx}".',
    'A pattern without "/" matches file names at any depth. Results are sorted paths, at most 500.',
    '.gitignored files, hidden files and generated folders (node_modules, dist, build, target, ...)',
    'are skipped unless include_ignored=true.',
  ].join(' '),
  schema: z.object({
    pattern: z.string().min(1).describe('Glob matched against paths relative to the search directory.'),
    path: z.string().optional().describe('Directory to search, relative to the project root (default ".").'),
    include_ignored: z.boolean().optional().describe('Also match hidden, .gitignored and generated files.'),
  }),
  argAliases: { glob: 'pattern', dir: 'path' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const target = await confinePath(ctx.root, args.path ?? '.');
    if (!target.stats?.isDirectory()) {
      return fail('not_a_directory', `${target.rel} is a file, not a directory.`, { path: target.rel });
    }
    const root = await realRoot(ctx.root);
    const start = toProjectRelative(root, target.real);
    const files = await listProjectFiles(ctx, root, start, args.include_ignored ?? false);
    const prefix = start === '.' ? '' : `${start}/`;
    const matcher = globToRegExp(args.pattern);
    const matched = files.filter((rel) => matcher.test(rel.slice(prefix.length))).sort(compareRel);
    const result: Record<string, unknown> = {
      files: matched.slice(0, MAX_GLOB_RESULTS),
      count: matched.length,
    };
    if (matched.length > MAX_GLOB_RESULTS) {
      result.truncated = true;
      result.note = `Showing the first ${MAX_GLOB_RESULTS} of ${matched.length} matches; use a narrower pattern.`;
    }
    return result;
  },
});

/**
 * Every file under `start` (project-relative), using `rg --files` when available (parallel and
 * exactly the ignore semantics search_code uses) and the native walk otherwise.
 */
export async function listProjectFiles(
  ctx: ToolCallContext,
  root: string,
  start: string,
  includeIgnored: boolean,
): Promise<string[]> {
  const rg = await findRipgrep(ctx.config);
  if (rg) {
    const found = await listWithRipgrep(ctx, rg, root, start, includeIgnored);
    if (found) return found;
  }
  const entries = await walkFiles({
    root,
    start: start === '.' ? '' : start,
    includeIgnored,
    signal: ctx.signal,
  });
  return entries.map((e) => e.rel);
}

async function listWithRipgrep(
  ctx: ToolCallContext,
  rg: string,
  root: string,
  start: string,
  includeIgnored: boolean,
): Promise<string[] | undefined> {
  const files: string[] = [];
  const lines = lineSplitter((line) => {
    if (line) files.push(line.startsWith('./') ? line.slice(2) : line);
  });
  const args = ['--files', ...ripgrepFilterArgs(includeIgnored), '--', start];
  let run: Awaited<ReturnType<typeof runRipgrep>>;
  try {
    run = await runRipgrep(rg, args, root, ctx.signal, (c) => lines.push(c));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  lines.end();
  if (run.code !== 0 && run.code !== 1) throw new Error(`ripgrep failed: ${run.stderr.trim()}`);
  return files;
}
