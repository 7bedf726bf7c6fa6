import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// Debian 12's Neovim 0.7.2: passed in by scripts/test.mjs, else unpacked here the same way.
// @ts-expect-error the provisioning script is plain JavaScript without type declarations
import { provideSuite } from '../../scripts/provide-nvim.mjs';
import { nvimVersion, repoRoot } from '../helpers/nvim.js';

const old: string = process.env.AGENT_TEST_NVIM_OLD ?? (provideSuite('bookworm') as { bin: string }).bin;

describe(`on Neovim ${nvimVersion(old)}`, () => {
  it(':AgentChat prints one clear message and starts nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-old-'));
    const out = path.join(dir, 'out');
    const env = {
      ...process.env,
      XDG_CONFIG_HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_STATE_HOME: dir,
      XDG_CACHE_HOME: dir,
    };
    const res = spawnSync(
      old,
      [
        '--headless',
        '--clean',
        '--cmd',
        `set rtp^=${repoRoot}`,
        '-c',
        'AgentChat',
        '-c',
        'lua require("agent").setup({}); require("agent").open()',
        '-c',
        `call writefile(split(execute('messages'), "\\n") + ['windows=' . len(nvim_list_wins()), 'jobs=' . len(filter(nvim_list_chans(), 'get(v:val, "stream", "") ==# "job"'))], '${out}')`,
        '-c',
        'qa!',
      ],
      { env, encoding: 'utf8', timeout: 20_000 },
    );
    expect(res.status).toBe(0);
    const lines = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean);
    const version = nvimVersion(old);
    const message = `agent.nvim needs Neovim 0.10 or newer; this is ${version}. Nothing was started.`;
    expect(lines).toEqual([message, message, message, 'windows=1', 'jobs=0']);
    expect(`${res.stdout}${res.stderr}`).not.toMatch(/stack traceback|E5108/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
