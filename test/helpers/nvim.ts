import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { attach, type NeovimClient } from 'neovim';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

/** The Neovim under test: AGENT_TEST_NVIM (set by scripts/test.mjs per matrix entry), else PATH's. */
export function nvimBinary(): string {
  return process.env.AGENT_TEST_NVIM ?? 'nvim';
}

export function nvimVersion(bin = nvimBinary()): string {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /NVIM v(\S+)/.exec(out)?.[1] ?? 'unknown';
}

export interface TestNvim {
  nvim: NeovimClient;
  proc: ChildProcess;
  /** Temp folder holding the XDG dirs and a project folder (the cwd). */
  dir: string;
  project: string;
  env: NodeJS.ProcessEnv;
  lua<T = unknown>(code: string, args?: unknown[]): Promise<T>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface StartOptions {
  /** Extra environment for Neovim and so for the host it spawns. */
  env?: Record<string, string | undefined>;
  /** Lua run after the plugin is loaded (e.g. a setup() call). */
  init?: string;
  bin?: string;
  /** Leave the plugin off 'runtimepath' (the startup baseline). */
  withoutPlugin?: boolean;
  /** Run in this folder instead of a fresh project folder (e.g. a second Neovim on one project). */
  cwd?: string;
}

/** Environment variables that would make a test depend on the developer's machine. */
const MACHINE_ENV = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENROUTER_API_KEY',
  'AGENT_NVIM_BASE_URL',
  'AGENT_NVIM_MODEL',
  'NVIM',
  'NVIM_LISTEN_ADDRESS',
  'VIMINIT',
  'MYVIMRC',
];

/**
 * A real `nvim --embed --headless --clean` with temp XDG dirs and the plugin first on
 * 'runtimepath', driven through the node client.
 */
export async function startNvim(options: StartOptions = {}): Promise<TestNvim> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-nvim-test-'));
  const project = options.cwd ?? path.join(dir, 'project');
  fs.mkdirSync(project, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of MACHINE_ENV) delete env[name];
  Object.assign(env, {
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    // Local servers on default ports must not be found by accident during tests.
    AGENT_NVIM_NO_PROBE: '1',
  });
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const args = ['--embed', '--headless', '--clean', '-n', '-i', 'NONE'];
  if (!options.withoutPlugin) args.push('--cmd', `set rtp^=${repoRoot.replace(/[ ,\\]/g, '\\$&')}`);
  const proc = spawn(options.bin ?? nvimBinary(), args, {
    cwd: project,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const nvim = attach({ proc, options: { logger: silentLogger as never } });
  const close = async () => {
    if (proc.exitCode === null) {
      // Neovim closes the channel before it could answer :qa, so the call is not awaited.
      nvim.command('qa!').catch(() => undefined);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          proc.kill('SIGKILL');
          resolve();
        }, 3000);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const handle: TestNvim = {
    nvim,
    proc,
    dir,
    project,
    env,
    lua: async <T>(code: string, luaArgs: unknown[] = []) => (await nvim.lua(code, luaArgs as never)) as T,
    close,
    [Symbol.asyncDispose]: close,
  };
  await nvim.channelId;
  if (options.init) await handle.lua(options.init);
  return handle;
}

const silentLogger = { level: 'error', debug() {}, info() {}, warn() {}, error() {} };

/** Polls until `check` returns a truthy value (or throws the last failure after the timeout). */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** The chat transcript's text. */
export function transcript(t: TestNvim): Promise<string> {
  return t.lua<string>(`return table.concat(require('agent.ui.chat').lines(), '\\n')`);
}

/** Messages shown so far (`:messages`), for asserting on errors the user sees. */
export async function messages(t: TestNvim): Promise<string> {
  return (await t.nvim.commandOutput('messages')) as string;
}
