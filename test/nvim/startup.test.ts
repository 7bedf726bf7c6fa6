import { afterEach, describe, expect, it } from 'vitest';
import { messages, nvimBinary, nvimVersion, repoRoot, startNvim, type TestNvim } from '../helpers/nvim.js';

describe(`plugin entry on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('defines commands, <Plug> maps and the toggle key without loading anything', async () => {
    t = await startNvim();
    const state = await t.lua<Record<string, unknown>>(`
      local loaded = {}
      for name in pairs(package.loaded) do
        if name == 'agent' or name:match('^agent%.') then table.insert(loaded, name) end
      end
      return {
        loaded = loaded,
        jobs = #vim.tbl_filter(function(c) return c.stream == 'job' end, vim.api.nvim_list_chans()),
        agentchat = vim.fn.exists(':AgentChat'),
        agent = vim.fn.exists(':Agent'),
        plug_toggle = vim.fn.maparg('<Plug>(AgentToggle)', 'n') ~= '',
        plug_sel = vim.fn.maparg('<Plug>(AgentAskSelection)', 'x') ~= '',
        toggle_key = vim.fn.maparg('<C-M-a>', 'n'),
      }`);
    expect(state.loaded).toEqual([]);
    expect(state.jobs).toBe(0);
    expect(state.agentchat).toBe(2);
    expect(state.agent).toBe(2);
    expect(state.plug_toggle).toBe(true);
    expect(state.plug_sel).toBe(true);
    expect(state.toggle_key).toBe('<Plug>(AgentToggle)');
  });

  it('status() and statusline() give the status text for a statusline; log() opens the log', async () => {
    t = await startNvim();
    const found = await t.lua<Record<string, unknown>>(`
      local a = require('agent')
      a.setup({ mode = 'plan', model = 'openai/gpt-x' })
      local status = a.status()
      local evaluated = vim.api.nvim_eval_statusline("%{v:lua.require'agent'.statusline()}", {}).str
      a.log()
      return {
        text = status.text, same = tostring(status) == status.text and a.statusline() == status.text,
        evaluated = evaluated, log = vim.fs.basename(vim.api.nvim_buf_get_name(0)), wins = #vim.api.nvim_list_wins(),
        jobs = #vim.tbl_filter(function(c) return c.stream == 'job' end, vim.api.nvim_list_chans()),
      }`);
    expect(found).toEqual({
      text: 'plan · openai/gpt-x',
      same: true,
      evaluated: 'plan · openai/gpt-x',
      log: 'agent.log',
      wins: 2,
      jobs: 0,
    });
  });

  it('setup() works with no options, twice, and returns the module', async () => {
    t = await startNvim();
    const ok = await t.lua<boolean>(`
      local a = require('agent')
      return a.setup() == a and a.setup({}) == a and #vim.tbl_filter(function(c) return c.stream == 'job' end, vim.api.nvim_list_chans()) == 0`);
    expect(ok).toBe(true);
    expect(await messages(t)).toBe('');
  });

  it('bad options give one message naming the dotted path and expected type', async () => {
    t = await startNvim();
    await t.lua(`require('agent').setup({ keys = { toggle = 42 } })`);
    expect(await messages(t)).toBe('agent: keys.toggle must be string|false, got number');
    await t.nvim.command('messages clear');
    await t.lua(`require('agent').setup({ window = { side = 'middle' } })`);
    expect(await messages(t)).toContain('agent: window.side must be one of right|left|top|bottom');
    await t.nvim.command('messages clear');
    await t.lua(
      `require('agent').setup({ providers = { work = { type = 'openai_compatible', base_url = 3 } } })`,
    );
    expect(await messages(t)).toBe('agent: providers.work.base_url must be string|nil, got number');
    await t.nvim.command('messages clear');
    await t.lua(`require('agent').setup({ modle = 'x/y' })`);
    expect(await messages(t)).toBe('agent: unknown option "modle"');
  });

  it('keys.toggle changes or removes the default key', async () => {
    t = await startNvim();
    const maps = await t.lua<string[]>(`
      require('agent').setup({ keys = { toggle = '<leader>aa' } })
      local a = { vim.fn.maparg('<C-M-a>', 'n'), vim.fn.maparg('<leader>aa', 'n') }
      require('agent').setup({ keys = { toggle = false } })
      table.insert(a, vim.fn.maparg('<leader>aa', 'n'))
      return a`);
    expect(maps).toEqual(['', '<Plug>(AgentToggle)', '']);
  });

  it('leaves a user mapping of the default key alone', async () => {
    t = await startNvim({ withoutPlugin: true });
    const map = await t.lua<string[]>(
      `
      vim.keymap.set('n', '<C-M-a>', ':echo "mine"<CR>')
      vim.opt.runtimepath:prepend(...)
      vim.cmd.runtime('plugin/agent.lua')
      local maps = { vim.fn.maparg('<C-M-a>', 'n') }
      -- Also through setup() (lazy.nvim's opts call it; the first :AgentChat does too).
      require('agent').setup({ mode = 'ask' })
      table.insert(maps, vim.fn.maparg('<C-M-a>', 'n'))
      -- A key the user names is mapped, and their own is left when they move it elsewhere.
      require('agent').setup({ keys = { toggle = '<C-M-a>' } })
      table.insert(maps, vim.fn.maparg('<C-M-a>', 'n'))
      vim.keymap.set('n', '<C-M-a>', ':echo "mine again"<CR>')
      require('agent').setup({ keys = { toggle = '<leader>a' } })
      table.insert(maps, vim.fn.maparg('<C-M-a>', 'n'))
      table.insert(maps, vim.fn.maparg('<leader>a', 'n'))
      return maps`,
      [repoRoot],
    );
    expect(map).toEqual([
      ':echo "mine"<CR>',
      ':echo "mine"<CR>',
      '<Plug>(AgentToggle)',
      ':echo "mine again"<CR>',
      '<Plug>(AgentToggle)',
    ]);
  });

  it(':Agent completes its subcommands and rejects unknown ones clearly', async () => {
    t = await startNvim();
    const completions = await t.lua<string[]>(`return vim.fn.getcompletion('Agent m', 'cmdline')`);
    expect(completions).toEqual(['mode', 'model']);
    expect(await t.lua<string[]>(`return vim.fn.getcompletion('silent Agent m', 'cmdline')`)).toEqual([
      'mode',
      'model',
    ]);
    // File names complete from what is typed, into folders.
    await t.lua(`vim.fn.mkdir('exports/old', 'p')`);
    expect(await t.lua<string[]>(`return vim.fn.getcompletion('Agent export exports/', 'cmdline')`)).toEqual([
      'exports/old/',
    ]);
    const modes = await t.lua<string[]>(`return vim.fn.getcompletion('Agent mode ', 'cmdline')`);
    expect(modes).toEqual(['ask', 'plan', 'agent']);
    await expect(t.nvim.command('Agent frobnicate')).rejects.toThrow(
      /agent: unknown subcommand "frobnicate"; use one of approve, build, clear, compact, export, log, mode, model, prompt, redo, rename, resume, save_rules, sessions, stop, undo/,
    );
  });
});
