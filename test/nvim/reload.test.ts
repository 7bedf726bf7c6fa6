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
    fs.writeFileSync(file, 'top\noriginal\nbottom\n');
    await t.lua(
      `vim.cmd('edit b.c'); vim.api.nvim_buf_set_lines(0, 1, 2, false, { 'mine' }); vim.api.nvim_win_set_cursor(0, { 3, 1 })`,
    );
    fs.writeFileSync(file, 'top\nagent\nbottom\nmore\n');
    // The question comes on the next tick: the host's request does not wait for the user.
    const run = (choice: number) =>
      t?.lua<{ asked_at_once: boolean; lines: string[]; modified: boolean; cursor: number[] }>(
        `local choice = ...
         _G.asked = false
         vim.ui.select = function(items, _, cb) _G.asked = true; cb(items[choice]) end
         require('agent.reload').file_changed(vim.fn.fnamemodify('b.c', ':p'))
         local asked_at_once = _G.asked
         vim.wait(1000, function() return _G.asked end)
         local buf = vim.fn.bufnr('b.c')
         return { asked_at_once = asked_at_once, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
                  modified = vim.bo[buf].modified, cursor = vim.api.nvim_win_get_cursor(0) }`,
        [choice],
      );
    expect(await run(1)).toEqual({
      asked_at_once: false,
      lines: ['top', 'mine', 'bottom'],
      modified: true,
      cursor: [3, 1],
    });
    // Kept: Neovim neither asks about the file on disk (W12) nor warns when :w overwrites it.
    const checked = await t.lua<string>(`vim.cmd('checktime'); return vim.fn.execute('messages')`);
    expect(checked).not.toMatch(/W11|W12|changed/);
    await t.nvim.input(':w<CR>');
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.nvim.mode).blocking).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('top\nmine\nbottom\n');

    await t.lua(`vim.api.nvim_buf_set_lines(0, 1, 2, false, { 'mine again' })`);
    fs.writeFileSync(file, 'top\nagent\nbottom\n');
    const diff = await t.lua<{ tabs: number; diffs: number }>(`
      _G.asked = false
      vim.ui.select = function(items, _, cb) _G.asked = true; cb(items[3]) end
      require('agent.reload').file_changed(vim.fn.fnamemodify('b.c', ':p'))
      vim.wait(1000, function() return _G.asked end)
      local diffs = 0
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do if vim.wo[w].diff then diffs = diffs + 1 end end
      return { tabs = #vim.api.nvim_list_tabpages(), diffs = diffs }`);
    expect(diff).toEqual({ tabs: 2, diffs: 2 });
    fs.writeFileSync(file, 'top\nagent once more\nbottom\n');
    expect((await run(2))?.lines).toEqual(['top', 'agent once more', 'bottom']);
  });

  it("holds back Neovim's question only for the agent's change, and not past the user's own :w", async () => {
    t = await startNvim();
    const file = path.join(t.project, 'c.c');
    fs.writeFileSync(file, 'one\n');
    await t.lua(`vim.cmd('edit c.c'); vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'mine' })`);
    fs.writeFileSync(file, 'agent\n');
    const guards = await t.lua<number[]>(`
      -- A picker that is dismissed without calling back.
      vim.ui.select = function() _G.asked = true end
      require('agent.reload').file_changed(vim.fn.fnamemodify('c.c', ':p'))
      vim.wait(1000, function() return _G.asked end)
      local count = function() return #vim.api.nvim_get_autocmds({ event = 'FileChangedShell', buffer = 0 }) end
      local before = count()
      vim.cmd('write!')
      return { before, count() }`);
    expect(guards).toEqual([1, 0]);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it("keeps unsaved edits of a file longer than 'undoreload' without reloading it, and without Neovim's question", async () => {
    t = await startNvim();
    const file = path.join(t.project, 'big.c');
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    await t.lua(
      `vim.o.undoreload = 2; vim.cmd('edit big.c'); vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'ONE' })`,
    );
    fs.writeFileSync(file, 'agent\n');
    const state = await t.lua<{ lines: string[]; modified: boolean; undo: number; messages: string }>(`
      _G.asked = false
      vim.ui.select = function(items, _, cb) _G.asked = true; cb(items[1]) end
      require('agent.reload').file_changed(vim.fn.fnamemodify('big.c', ':p'))
      vim.wait(1000, function() return _G.asked end)
      vim.cmd('checktime')
      return { lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), modified = vim.bo.modified,
               undo = vim.fn.undotree().seq_cur, messages = vim.fn.execute('messages') }`);
    expect(state.lines).toEqual(['ONE', 'two', 'three']);
    expect(state.modified).toBe(true);
    expect(state.undo).toBe(1);
    expect(state.messages).not.toMatch(/W11|W12/);
  });

  it('finds the buffer of a path with pattern characters, or reached through a symlink', async () => {
    t = await startNvim();
    const dir = path.join(t.project, 'app', '[id]');
    fs.mkdirSync(dir, { recursive: true });
    const page = path.join(dir, 'page.tsx');
    fs.writeFileSync(page, 'old\n');
    fs.writeFileSync(path.join(t.project, 'real.c'), 'old\n');
    const linked = path.join(t.dir, 'linked');
    fs.symlinkSync(t.project, linked);
    await t.lua(
      `local page, linked = ...
       vim.cmd.edit(vim.fn.fnameescape(page))
       vim.cmd.split(vim.fn.fnameescape(linked .. '/real.c'))`,
      [page, linked],
    );
    fs.writeFileSync(page, 'new\n');
    fs.writeFileSync(path.join(t.project, 'real.c'), 'new\n');
    const lines = await t.lua<string[][]>(
      `local page, real = ...
       require('agent.reload').file_changed(page)
       require('agent.reload').file_changed(real)
       local out = {}
       for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
         table.insert(out, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false))
       end
       return out`,
      [page, fs.realpathSync(path.join(t.project, 'real.c'))],
    );
    expect(lines).toEqual([['new'], ['new']]);
    // Read as a pattern, app/[id].tsx names app/i.tsx too: deleting the first leaves the second.
    fs.writeFileSync(path.join(t.project, 'app', 'i.tsx'), 'kept\n');
    const kept = await t.lua<number>(
      `vim.cmd('edit app/i.tsx')
       require('agent.reload').file_changed(vim.fn.fnamemodify('app/[id].tsx', ':p'))
       return vim.fn.bufloaded('app/i.tsx')`,
    );
    expect(kept).toBe(1);
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
