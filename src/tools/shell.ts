import path from 'node:path';
import { z } from 'zod';
import { type ChangeSnapshot, changedSince, snapshotBefore } from './changed-files.js';
import { confinePath } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { reportChanged, requestPermission } from './permission.js';
import { runShell } from './run-process.js';
import type { ToolCallContext } from './tool-context.js';
import { fail } from './tool-error.js';

export const DEFAULT_TIMEOUT_S = 120;
export const MAX_TIMEOUT_S = 600;

export const shellTool = defineTool({
  name: 'shell',
  aliases: ['terminal', 'bash', 'run_command', 'run_terminal_cmd', 'exec'],
  description: [
    'Run a command with /bin/sh -c in the project folder (or cwd, relative to the project root).',
    'stdin is closed, so interactive commands fail: pass flags like --yes. Returns exit_code, signal,',
    'stdout, stderr (each capped at 1 MiB: the start and the end are kept), duration and the files the',
    `command changed. Times out after ${DEFAULT_TIMEOUT_S} s by default (timeout, up to ${MAX_TIMEOUT_S} s), killing`,
    "every process it started. Not a sandbox: the command runs with the user's rights.",
  ].join(' '),
  schema: z.object({
    command: z.string().min(1).describe('The command line, interpreted by /bin/sh.'),
    cwd: z.string().optional().describe('Working directory relative to the project root (default ".").'),
    timeout: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_S)
      .optional()
      .describe(`Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}, max ${MAX_TIMEOUT_S}).`),
  }),
  argAliases: { cmd: 'command', workdir: 'cwd', working_directory: 'cwd' },
  modes: ['agent'],
  // Generous: stdout and stderr are capped at 1 MiB each by the runner already.
  maxOutputBytes: 2 * 1024 * 1024 + 64 * 1024,
  mutates: true,
  async execute(args, ctx) {
    const cwd = await confinePath(ctx.root, args.cwd ?? '.');
    if (!cwd.stats?.isDirectory()) {
      return fail('not_a_directory', `cwd ${cwd.rel} is not a directory.`, { path: cwd.rel });
    }
    const denied = await requestPermission(ctx, {
      pattern: args.command,
      summary: cwd.rel === '.' ? args.command : `(in ${cwd.rel}) ${args.command}`,
    });
    if (denied) return denied;
    return runTracked(ctx, args.command, cwd.real, (args.timeout ?? DEFAULT_TIMEOUT_S) * 1000);
  },
});

/**
 * Runs a command and reports the files it changed (shared by shell and build). If tracking
 * fails the command's output still comes back, flagged as possibly incomplete.
 */
export async function runTracked(ctx: ToolCallContext, command: string, cwd: string, timeoutMs: number) {
  let before: ChangeSnapshot | undefined;
  try {
    before = await snapshotBefore(ctx.root);
  } catch {
    before = undefined;
  }
  const outcome = await runShell(command, { cwd, timeoutMs, signal: ctx.signal });
  let changed: string[] = [];
  let incomplete = before === undefined;
  if (before) {
    try {
      changed = await changedSince(before);
    } catch {
      incomplete = true;
    }
  }
  for (const rel of changed) {
    await reportChanged(ctx, path.join(before?.root ?? ctx.root, rel));
    // The model did not see what the command wrote; the edit match protects the file from now on.
    ctx.reads.forget(rel);
  }
  const result: Record<string, unknown> = { ...outcome, changed_paths: changed };
  if (incomplete) result.changed_paths_incomplete = true;
  if (outcome.cancelled) {
    return { ...result, error: 'The user stopped the command.', error_kind: 'cancelled' };
  }
  if (outcome.timed_out) {
    return {
      ...result,
      error: `The command timed out after ${timeoutMs / 1000} s and was killed.`,
      error_kind: 'timeout',
    };
  }
  return result;
}
