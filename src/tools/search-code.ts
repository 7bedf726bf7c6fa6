import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { globToRegExp } from '../util/glob-to-regexp.js';
import { confinePath, realRoot, toProjectRelative } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { findRipgrep, lineSplitter, ripgrepFilterArgs, runRipgrep } from './ripgrep.js';
import { fail, type ToolFailure } from './tool-error.js';
import { walkFiles } from './walk-files.js';

export const MAX_MATCHES = 500;
const MAX_LINE_CHARS = 400;
const MAX_FILE_BYTES = 16 * 1024 * 1024;

export interface Match {
  path: string;
  line: number;
  text: string;
}

const caseMode = z.enum(['smart', 'sensitive', 'insensitive']);

export const searchCodeTool = defineTool({
  name: 'search_code',
  aliases: ['grep', 'search', 'rg', 'ripgrep'],
  description: [
    'Search file contents with a regular expression (ripgrep syntax) or a literal string.',
    'Returns matching lines as {path, line, text}, sorted by path and line, at most 500.',
    'Use include to restrict to file names ("*.ts", "*.{c,h}").',
    '.gitignored files, hidden files and generated folders (node_modules, dist, build, target, ...)',
    'are skipped unless include_ignored=true. Binary files are skipped.',
  ].join(' '),
  schema: z.object({
    pattern: z.string().min(1).describe('Regular expression, or plain text when literal=true.'),
    path: z
      .string()
      .optional()
      .describe('File or directory to search, relative to the project root (default ".").'),
    include: z.string().optional().describe('Glob of file names to search, e.g. "*.ts".'),
    literal: z.boolean().optional().describe('Treat pattern as plain text (default false).'),
    case: caseMode
      .optional()
      .describe(
        '"sensitive" (default), "insensitive", or "smart" (insensitive if the pattern is all lower case).',
      ),
    include_ignored: z.boolean().optional().describe('Also search hidden, .gitignored and generated files.'),
  }),
  argAliases: { query: 'pattern', regex: 'pattern', glob: 'include' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const target = await confinePath(ctx.root, args.path ?? '.');
    const root = await realRoot(ctx.root);
    const start = toProjectRelative(root, target.real);
    const top = new TopMatches(MAX_MATCHES);
    const options = { ...args, case: args.case ?? 'sensitive', literal: args.literal ?? false };
    const rg = await findRipgrep(ctx.config);
    let failure = rg ? await searchWithRipgrep(rg, root, start, options, top, ctx.signal) : 'missing';
    if (failure === 'missing') {
      failure = await searchNatively(root, start, target.stats?.isFile() ?? false, options, top, ctx.signal);
    }
    if (failure) return failure;
    const matches = top.sorted();
    const result: Record<string, unknown> = { matches, count: top.total };
    if (top.total > matches.length) {
      result.truncated = true;
      result.note = `Showing the first ${matches.length} of ${top.total} matches; narrow the pattern, path or include.`;
    }
    return result;
  },
});

interface SearchOptions {
  pattern: string;
  include?: string;
  literal: boolean;
  case: z.infer<typeof caseMode>;
  include_ignored?: boolean;
}

async function searchWithRipgrep(
  rg: string,
  root: string,
  start: string,
  options: SearchOptions,
  top: TopMatches,
  signal: AbortSignal,
): Promise<ToolFailure | 'missing' | undefined> {
  const args = [
    ...ripgrepFilterArgs(options.include_ignored ?? false),
    '--no-heading',
    '--with-filename',
    '--line-number',
    '--null',
    '--color=never',
    '--no-messages',
    `--max-columns=${MAX_LINE_CHARS}`,
    '--max-columns-preview',
    options.case === 'insensitive'
      ? '--ignore-case'
      : options.case === 'smart'
        ? '--smart-case'
        : '--case-sensitive',
  ];
  if (options.literal) args.push('--fixed-strings');
  if (options.include) args.push('--glob', options.include);
  args.push('--regexp', options.pattern, '--', start);
  const lines = lineSplitter((line) => {
    const nul = line.indexOf('\0');
    if (nul === -1) return;
    const colon = line.indexOf(':', nul);
    let file = line.slice(0, nul);
    if (file.startsWith('./')) file = file.slice(2);
    top.add({ path: file, line: Number(line.slice(nul + 1, colon)), text: line.slice(colon + 1) });
  });
  let run: Awaited<ReturnType<typeof runRipgrep>>;
  try {
    run = await runRipgrep(rg, args, root, signal, (chunk) => lines.push(chunk));
  } catch (err) {
    // A configured or cached rg that is gone: the native search still answers.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  lines.end();
  if (run.code === 2 && top.total === 0) {
    return fail(
      'invalid_pattern',
      `The search failed: ${run.stderr.trim() || 'ripgrep exited with status 2'}`,
    );
  }
  return undefined;
}

async function searchNatively(
  root: string,
  start: string,
  startIsFile: boolean,
  options: SearchOptions,
  top: TopMatches,
  signal: AbortSignal,
) {
  let regex: RegExp;
  let anyLine: RegExp;
  const ignoreCase =
    options.case === 'insensitive' ||
    (options.case === 'smart' && options.pattern === options.pattern.toLowerCase());
  try {
    const source = options.literal ? options.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : options.pattern;
    regex = new RegExp(source, ignoreCase ? 'i' : '');
    // The whole-file pre-check needs multiline mode, or `^foo` would only look at line 1.
    anyLine = new RegExp(source, ignoreCase ? 'im' : 'm');
  } catch (err) {
    return fail('invalid_pattern', `The search failed: ${(err as Error).message}`);
  }
  const files = startIsFile
    ? [start]
    : (
        await walkFiles({
          root,
          start: start === '.' ? '' : start,
          includeIgnored: options.include_ignored,
          signal,
        })
      ).map((e) => e.rel);
  const include = options.include ? globToRegExp(options.include) : undefined;
  const todo = include ? files.filter((f) => include.test(f)) : files;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      if (signal.aborted) throw signal.reason;
      const rel = todo[next++] as string;
      scanFile(rel, await readSearchable(path.join(root, rel)), regex, anyLine, top);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return undefined;
}

async function readSearchable(abs: string): Promise<string | undefined> {
  try {
    const stats = await fs.stat(abs);
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return undefined;
    const bytes = await fs.readFile(abs);
    if (bytes.subarray(0, 8192).includes(0)) return undefined;
    return bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

function scanFile(
  rel: string,
  text: string | undefined,
  regex: RegExp,
  anyLine: RegExp,
  top: TopMatches,
): void {
  if (text === undefined || !anyLine.test(text)) return;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    if (!regex.test(line)) continue;
    const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} [... omitted]` : line;
    top.add({ path: rel, line: i + 1, text: shown });
  }
}

/** Keeps the first `limit` matches in (path, line) order without holding every match in memory. */
export class TopMatches {
  private items: Match[] = [];
  total = 0;

  constructor(private readonly limit: number) {}

  add(match: Match): void {
    this.total++;
    this.items.push(match);
    if (this.items.length >= this.limit * 4) this.trim();
  }

  sorted(): Match[] {
    this.trim();
    return this.items;
  }

  private trim(): void {
    this.items.sort(compareMatch);
    this.items.length = Math.min(this.items.length, this.limit);
  }
}

function compareMatch(a: Match, b: Match): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line;
}
