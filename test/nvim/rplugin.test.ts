import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, repoRoot, startNvim, type TestNvim, waitFor } from '../helpers/nvim.js';

describe(`classic remote plugin on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  let server: LlmServer | undefined;
  afterEach(async () => {
    await t?.close();
    await server?.close();
    t = server = undefined;
  });

  it(':UpdateRemotePlugins registers it and it feeds the same dispatcher', async () => {
    server = await startLlmServer({ turns: [{ text: 'Hello through the remote plugin.' }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url } });
    const hostProg = path.join(repoRoot, 'node_modules/neovim/bin/cli.js');
    const manifest = await t.lua<string>(
      `vim.g.node_host_prog = ...
       -- --clean skips loading remote plugins and leaves a placeholder manifest path behind.
       local manifest = vim.fn.stdpath('data') .. '/rplugin.vim'
       vim.fn.mkdir(vim.fn.stdpath('data'), 'p')
       vim.g.loaded_remote_plugins = manifest
       vim.cmd('silent UpdateRemotePlugins')
       vim.cmd('source ' .. vim.fn.fnameescape(manifest))
       return table.concat(vim.fn.readfile(manifest), '\\n')`,
      [hostProg],
    );
    expect(manifest).toContain('rplugin/node/agent.nvim');
    expect(manifest).toContain("'name': 'AgentRequest'");
    await t.lua(
      `require('agent').setup({ host = 'rplugin' }); require('agent').open(); require('agent').send('hi')`,
    );
    const text = await waitFor(
      async () => {
        const s = await t?.lua<string>(`return table.concat(require('agent.ui.chat').lines(), '\\n')`);
        return s?.includes('Hello through the remote plugin.') ? s : undefined;
      },
      15_000,
      'reply through the remote plugin',
    );
    expect(text).toContain('## You\n\nhi');
    // No job host was started: the classic route uses Neovim's own node host.
    const ready = await t.lua<boolean>(`return require('agent').status().host == 'ready'`);
    expect(ready).toBe(true);
  });
});
