import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nvimBinary, nvimVersion, startNvim, type TestNvim } from '../helpers/nvim.js';

describe(`buffers stay true on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('reloads an unmodified buffer keeping the cursor, with no "changed on disk" question later', async () => {
    t = await startNvim();
    const file = path.join(t.project, 'a.c');
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    await t.lua(`vim.cmd('edit a.c'); vim.api.nvim_win_set_cursor(0, { 3, 2 })`);
    fs.writeFileSync(file, 'one\ntwo\nTHREE\nfour\n');
    const state = await t.lua<{ lines: string[]; cursor: number[]; modified: boolean; messages: string }>(
      `require('agent.reload').file_changed(...)
       vim.cmd('checktime')
       return { lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), cursor = vim.api.nvim_win_get_cursor(0),
                modified = vim.bo.modified, messages = vim.fn.execute('messages') }`,
      [file],
    );
    expect(state.lines).toEqual(['one', 'two', 'THREE', 'four']);
    expect(state.cursor).toEqual([3, 2]);
    expect(state.modified).toBe(false);
    expect(state.messages).not.toMatch(/W11|W12|changed since/);
  });

  it("never overwrites unsaved edits: keep, take the agent's, or compare in a diff", async () => {
    t = await startNvim();
    const file = path.join(t.project, 'b.c');
    fs.writeFileSync(file, 'original\n');
    await t.lua(`vim.cmd('edit b.c'); vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'mine' })`);
    fs.writeFileSync(file, 'agent\n');
    const run = (choice: number) =>
      t?.lua<string[]>(
        `local choice = ...
         vim.ui.select = function(items, _, cb) cb(items[choice]) end
         require('agent.reload').file_changed(vim.fn.fnamemodify('b.c', ':p'))
         return vim.api.nvim_buf_get_lines(vim.fn.bufnr('b.c'), 0, -1, false)`,
        [choice],
      );
    expect(await run(1)).toEqual(['mine']);
    const diff = await t.lua<{ tabs: number; diffs: number }>(`
      vim.ui.select = function(items, _, cb) cb(items[3]) end
      require('agent.reload').file_changed(vim.fn.fnamemodify('b.c', ':p'))
      local diffs = 0
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do if vim.wo[w].diff then diffs = diffs + 1 end end
      return { tabs = #vim.api.nvim_list_tabpages(), diffs = diffs }`);
    expect(diff).toEqual({ tabs: 2, diffs: 2 });
    expect(await run(2)).toEqual(['agent']);
  });

  it('a deleted file closes its unmodified buffer and keeps a modified one', async () => {
    t = await startNvim();
    for (const name of ['gone.c', 'kept.c']) fs.writeFileSync(path.join(t.project, name), 'x\n');
    // 'hidden' is on by default: kept.c stays loaded with its unsaved edit.
    await t.lua(
      `vim.cmd('edit kept.c'); vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'edited' }); vim.cmd('edit gone.c')`,
    );
    for (const name of ['gone.c', 'kept.c']) fs.rmSync(path.join(t.project, name));
    const state = await t.lua<{ gone: number; kept: number; wins: number }>(`
      require('agent.reload').file_changed(vim.fn.fnamemodify('gone.c', ':p'))
      require('agent.reload').file_changed(vim.fn.fnamemodify('kept.c', ':p'))
      return { gone = vim.fn.bufloaded('gone.c'), kept = vim.fn.bufloaded('kept.c'), wins = #vim.api.nvim_list_wins() }`);
    expect(state).toEqual({ gone: 0, kept: 1, wins: 1 });
  });
});
