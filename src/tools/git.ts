import { spawn } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';
import { GIT_READ_ONLY_SUBCOMMANDS } from '../util/git-read-only.js';
import { HeadTailBuffer } from '../util/head-tail-buffer.js';
import { type ChangeSnapshot, changedSince, snapshotBefore } from './changed-files.js';
import { realRoot } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { reportChanged, requestPermission } from './permission.js';
import { fail } from './tool-error.js';

/** Subcommands that only read, allowed in every mode (with the list-only forms checked below). */
const READ_ONLY = new Set([
  ...GIT_READ_ONLY_SUBCOMMANDS,
  // Read-only in their list forms; the forms that write are refused below.
  'whatchanged',
  'branch',
  'tag',
  'remote',
  'stash',
  'reflog',
  'config',
]);

const MUTATING = new Set([
  'add',
  'rm',
  'mv',
  'commit',
  'checkout',
  'switch',
  'restore',
  'reset',
  'revert',
  'merge',
  'rebase',
  'cherry-pick',
  'stash',
  'branch',
  'tag',
  'fetch',
  'pull',
  'push',
  'apply',
  'am',
  'clean',
  'notes',
  'worktree',
  'submodule',
  'remote',
  'config',
  'reflog',
]);

/** Options that make a read-only command write files, read files outside the repository or run programs. */
const DANGEROUS_OPTION =
  /^(--output(=|$)|-O|--open-files-in-pager|--ext-diff|--no-index|--contents(=|$)|--exec|--upload-pack|--receive-pack|--config-env|-c$)/;

const BRANCH_LIST_FLAGS = new Set([
  '-a',
  '-r',
  '-v',
  '-vv',
  '--all',
  '--remotes',
  '--show-current',
  '--verbose',
]);

/** Whether these arguments keep a dual-use subcommand (branch, tag, stash, ...) read-only. */
function readsOnly(sub: string, args: string[]): boolean {
  if (!READ_ONLY.has(sub)) return false;
  switch (sub) {
    case 'branch':
      // Conservative: list flags only, or --list with patterns; anything else may create,
      // move or delete a branch and goes through Agent mode and permission.
      return (
        args.includes('--list') ||
        args.includes('-l') ||
        args.every((a) => BRANCH_LIST_FLAGS.has(a) || /^--(format|sort)=/.test(a))
      );
    case 'tag':
      return args.length === 0 || args.some((a) => a === '-l' || a === '--list');
    case 'remote':
      return args.length === 0 || args[0] === '-v' || args[0] === 'show' || args[0] === 'get-url';
    case 'stash':
      return args[0] === 'list' || args[0] === 'show';
    case 'reflog':
      return (
        args.length === 0 || args[0] === 'show' || !['expire', 'delete', 'drop'].includes(args[0] as string)
      );
    case 'config':
      return args.some((a) => ['--get', '--get-all', '--list', '-l', '--get-regexp'].includes(a));
    default:
      return true;
  }
}

export const gitTool = defineTool({
  name: 'git',
  description: [
    'Run git in the project: git <subcommand> <args...>, without a shell. Read-only subcommands',
    '(status, diff, log, show, blame, branch, ls-files, rev-parse, grep, ...) work in every mode;',
    'changing ones (add, commit, checkout, switch, restore, reset, stash, merge, rebase, ...) only in',
    "Agent mode and with the user's permission. Output is capped at 1 MiB per stream.",
  ].join(' '),
  schema: z.object({
    subcommand: z
      .string()
      .regex(/^[a-z][a-z-]*$/, 'a git subcommand such as "status" or "log"')
      .describe('e.g. "status", "diff", "log".'),
    args: z
      .array(z.string())
      .optional()
      .describe('Arguments after the subcommand, e.g. ["--stat", "HEAD~3"].'),
  }),
  argAliases: { command: 'subcommand' },
  modes: ['ask', 'plan', 'agent'],
  mutates: true,
  maxOutputBytes: 2 * 1024 * 1024 + 64 * 1024,
  async execute(args, ctx) {
    const sub = args.subcommand;
    const rest = args.args ?? [];
    if (rest.some((a) => DANGEROUS_OPTION.test(a))) {
      return fail(
        'unsupported',
        'That option can write files or run programs; it is not allowed through this tool.',
      );
    }
    const readOnly = readsOnly(sub, rest);
    if (!readOnly) {
      if (!MUTATING.has(sub)) {
        return fail('unsupported', `git ${sub} is not supported by this tool.`);
      }
      if (ctx.mode !== 'agent') {
        return fail(
          'not_available',
          `git ${sub} changes the repository and is only available in Agent mode.`,
        );
      }
      const command = `git ${[sub, ...rest].join(' ')}`;
      const denied = await requestPermission(ctx, { pattern: command, summary: command });
      if (denied) return denied;
    }
    let before: ChangeSnapshot | undefined;
    if (!readOnly) before = await snapshotBefore(ctx.root).catch(() => undefined);
    const out = await runGit(await realRoot(ctx.root), [sub, ...rest], ctx.signal);
    if (/not a git repository/i.test(out.stderr)) {
      return fail('not_a_repo', 'The project is not a git repository.');
    }
    const result: Record<string, unknown> = { exit_code: out.code, stdout: out.stdout, stderr: out.stderr };
    if (!readOnly) {
      const changed = before ? await changedSince(before).catch(() => undefined) : undefined;
      result.changed_paths = changed ?? [];
      if (!changed) result.changed_paths_incomplete = true;
      for (const rel of changed ?? []) {
        await reportChanged(ctx, path.join(await realRoot(ctx.root), rel));
        ctx.reads.forget(rel);
      }
    }
    return result;
  },
});

function runGit(
  cwd: string,
  args: string[],
  signal: AbortSignal,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const stdout = new HeadTailBuffer(1024 * 1024);
  const stderr = new HeadTailBuffer(1024 * 1024);
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--no-pager', '-c', 'color.ui=never', ...args], {
      cwd,
      signal,
      stdio: ['ignore', 'pipe', 'pipe'],
      // No editor, pager or credential prompt can be answered: stdin is closed.
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C' },
    });
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: stdout.text(), stderr: stderr.text() }));
  });
}
