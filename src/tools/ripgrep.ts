import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { GENERATED_DIRS } from './ignore-rules.js';
import type { ToolConfig } from './tool-context.js';

let onPath: Promise<string | undefined> | undefined;

/** The ripgrep binary to use, or undefined for the native fallback. */
export function findRipgrep(config: ToolConfig): Promise<string | undefined> {
  if (config.rg_path === false) return Promise.resolve(undefined);
  if (typeof config.rg_path === 'string') return Promise.resolve(config.rg_path);
  onPath ??= lookupOnPath('rg');
  return onPath;
}

async function lookupOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      await fs.access(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** Filters shared by every ripgrep call: what the native walk skips, ripgrep skips too. */
export function ripgrepFilterArgs(includeIgnored: boolean): string[] {
  // --no-require-git: honour .gitignore in projects that are not (yet) repositories, like the walk.
  const args = ['--no-config', '--no-require-git', '--glob', '!.git'];
  if (includeIgnored) return [...args, '--hidden', '--no-ignore'];
  for (const dir of GENERATED_DIRS) args.push('--glob', `!${dir}/`);
  return args;
}

export interface RipgrepRun {
  code: number | null;
  stderr: string;
}

/**
 * Runs ripgrep with stdin closed (an rg without a readable path would otherwise search stdin and
 * hang) and feeds stdout to `onChunk` as it arrives, so matches are processed while rg runs.
 */
export function runRipgrep(
  rg: string,
  args: string[],
  cwd: string,
  signal: AbortSignal,
  onChunk: (chunk: Buffer) => void,
): Promise<RipgrepRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], signal });
    let stderr = '';
    child.stdout.on('data', onChunk);
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Splits a byte stream into complete lines (the last partial line waits for the next chunk). */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer): void; end(): void } {
  let rest = '';
  const decoder = new TextDecoder('utf-8');
  return {
    push(chunk) {
      const text = rest + decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        onLine(text.slice(start, nl));
        start = nl + 1;
      }
      rest = text.slice(start);
    },
    end() {
      const text = rest + decoder.decode();
      if (text) onLine(text);
      rest = '';
    },
  };
}
