import { spawn } from 'node:child_process';
import { HeadTailBuffer } from '../util/head-tail-buffer.js';

export const STREAM_CAP_BYTES = 1024 * 1024;
/** After SIGTERM, how long the group gets to clean up before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** After the shell exits, how long background children may keep our pipes open before we let go. */
const PIPE_LINGER_MS = 250;

export interface ProcessOutcome {
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Bytes cut from the middle of a stream that passed the cap. */
  stdout_omitted_bytes?: number;
  stderr_omitted_bytes?: number;
  duration_ms: number;
  timed_out?: boolean;
  cancelled?: boolean;
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `/bin/sh -c command` in its own process group so cancel and timeout can kill the whole
 * tree (killing only the shell leaves `make`'s compilers or a test runner's workers behind).
 * Plain `spawn` rather than execa: execa's buffer limit kills the child and its cancellation
 * signals only the direct child, and here both streams must keep draining past the cap.
 */
/**
 * Process groups of the commands still running. When the host exits (Neovim quits), they are
 * killed with it: its shutdown does not wait out a command's grace period.
 */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

export function runShell(command: string, options: RunOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  const stdout = new HeadTailBuffer(STREAM_CAP_BYTES);
  const stderr = new HeadTailBuffer(STREAM_CAP_BYTES);
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: options.cwd,
      env: {
        ...process.env,
        ...options.env,
        // Nothing can answer a pager or a credential prompt: stdin is closed.
        PAGER: 'cat',
        GIT_PAGER: 'cat',
        GIT_TERMINAL_PROMPT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid !== undefined) liveGroups.add(child.pid);
    let timedOut = false;
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // The group is already gone.
      }
    };
    const stop = (): void => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    const finish = (code: number | null, sig: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      clearTimeout(timeout);
      options.signal.removeEventListener('abort', onAbort);
      if (cancelled || timedOut) {
        // Make sure nothing of the tree outlives a cancel, even if the shell exited first.
        killGroup('SIGKILL');
      }
      if (killTimer) clearTimeout(killTimer);
      const outcome: ProcessOutcome = {
        exit_code: code,
        signal: sig,
        stdout: stdout.text(),
        stderr: stderr.text(),
        duration_ms: Math.round(performance.now() - started),
      };
      if (stdout.omittedBytes > 0) outcome.stdout_omitted_bytes = stdout.omittedBytes;
      if (stderr.omittedBytes > 0) outcome.stderr_omitted_bytes = stderr.omittedBytes;
      if (timedOut) outcome.timed_out = true;
      if (cancelled) outcome.cancelled = true;
      resolve(outcome);
    };

    child.on('error', (err) => {
      clearTimeout(timeout);
      options.signal.removeEventListener('abort', onAbort);
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
    child.on('close', finish);
    child.on('exit', (code, sig) => {
      // A background job (`server &`) can hold the pipes open forever; give it a moment to
      // flush, then stop reading and report what the command itself did.
      setTimeout(() => {
        if (settled) return;
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, sig);
      }, PIPE_LINGER_MS).unref();
    });
  });
}
