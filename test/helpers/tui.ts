import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { attach, type NeovimClient } from 'neovim';
import { nvimBinary, repoRoot } from './nvim.js';

export const tmuxAvailable = spawnSync('tmux', ['-V']).status === 0;

export interface TuiNvim {
  nvim: NeovimClient;
  dir: string;
  /** The terminal screen as text, one string per row. */
  screen(): string[];
  keys(...keys: string[]): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a connection to the socket is accepted (not merely whether its file exists). */
export function socketAccepts(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socket);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Neovim's own terminal UI in a tmux pane of the given size, with the plugin first on
 * 'runtimepath' and temp XDG dirs, reachable over --listen for setup and assertions.
 */
export async function startTui(
  env: Record<string, string> = {},
  size = { columns: 120, lines: 36 },
  bin = nvimBinary(),
): Promise<TuiNvim> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tui-'));
  const project = path.join(dir, 'project');
  fs.mkdirSync(project);
  const socket = path.join(dir, 'nvim.sock');
  const server = `agent-tui-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const vars: Record<string, string> = {
    XDG_CONFIG_HOME: dir,
    XDG_DATA_HOME: dir,
    XDG_STATE_HOME: dir,
    XDG_CACHE_HOME: dir,
    AGENT_NVIM_NO_PROBE: '1',
    TERM: 'xterm-256color',
    ...env,
  };
  const tmuxEnv: NodeJS.ProcessEnv = { ...process.env, ...vars };
  for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENROUTER_API_KEY', 'TMUX']) delete tmuxEnv[k];
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [bin, '--clean', '-n', '-i', 'NONE', '--listen', socket, '--cmd', `set rtp^=${repoRoot}`]
    .map(quote)
    .join(' ');
  const tmux = (...args: string[]) =>
    spawnSync('tmux', ['-L', server, ...args], { env: tmuxEnv, encoding: 'utf8' });
  const envArgs = Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const started = tmux(
    'new-session',
    '-d',
    '-x',
    String(size.columns),
    '-y',
    String(size.lines),
    ...envArgs,
    '-c',
    project,
    cmd,
  );
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  const cleanup = () => {
    const socketPath = tmux('display-message', '-p', '#{socket_path}').stdout?.trim();
    tmux('kill-server');
    if (socketPath) fs.rmSync(socketPath, { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  // The socket file appears at bind(), a moment before Neovim listens on it: wait until a
  // connection is accepted, or the client below would fail with ECONNREFUSED.
  while (!(await socketAccepts(socket))) {
    if (Date.now() > deadline) {
      cleanup();
      throw new Error('the Neovim in tmux never opened its socket');
    }
    await sleep(20);
  }
  const silent = { level: 'error', debug() {}, info() {}, warn() {}, error() {} };
  const nvim = attach({ socket, options: { logger: silent as never } });
  await nvim.channelId;
  // The server listens before the terminal UI has attached.
  while ((await nvim.lua('return #vim.api.nvim_list_uis()')) === 0) {
    if (Date.now() > deadline) {
      nvim.quit();
      cleanup();
      throw new Error('no UI attached to the Neovim in tmux');
    }
    await sleep(50);
  }
  return {
    nvim,
    dir: project,
    screen: () => (tmux('capture-pane', '-p').stdout ?? '').split('\n'),
    keys: (...keys: string[]) => {
      tmux('send-keys', ...keys);
    },
    async close() {
      nvim.command('qa!').catch(() => undefined);
      await sleep(200);
      cleanup();
    },
  };
}
