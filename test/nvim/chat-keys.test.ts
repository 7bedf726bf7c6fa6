import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, startNvim, type TestNvim, transcript, waitFor } from '../helpers/nvim.js';

describe(`chat keys and pickers on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  let server: LlmServer | undefined;
  afterEach(async () => {
    await t?.close();
    await server?.close();
    t = server = undefined;
  });

  it('picks a model from the list the server gives, and the next prompt uses it', async () => {
    server = await startLlmServer({
      models: ['alpha', { id: 'beta', max_model_len: 65536 }],
      turns: [{ text: 'from beta' }],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'alpha' } });
    await t.lua(`
      _G.offered = nil
      vim.ui.select = function(items, opts, on_choice)
        _G.offered = vim.tbl_map(opts.format_item, items)
        on_choice('env/beta')
      end
      require('agent').open()
      vim.cmd('Agent model')`);
    const offered = await waitFor(
      () => t?.lua<string[] | null>('return _G.offered or vim.NIL'),
      10_000,
      'model list',
    );
    expect(offered).toEqual(['env/alpha', 'env/beta  (65k context)']);
    await t.lua(`require('agent').send('hi')`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('from beta'), 10_000, 'reply');
    expect(((server.modelRequests()[0]?.body ?? {}) as { model?: string }).model).toBe('beta');
    expect(await t.lua<string>(`return require('agent').status().model`)).toBe('env/beta');
  });

  it(':Agent mode without an argument offers the three modes', async () => {
    t = await startNvim();
    const mode = await t.lua<string>(`
      vim.ui.select = function(items, _, on_choice) on_choice(items[3]) end
      vim.cmd('Agent mode')
      return require('agent').status().mode`);
    expect(mode).toBe('agent');
  });

  it('reasoning streams dim and folds away when the answer starts; Q lists changed files', async () => {
    server = await startLlmServer({
      turns: [
        {
          reasoning: 'Let me think.\nStep one.\nStep two.',
          toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }],
        },
        { text: 'Wrote a.txt.' },
      ],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`
      vim.api.nvim_create_autocmd('User', { pattern = 'AgentPermissionAsked', callback = function(ev)
        vim.schedule(function() require('agent').reply_permission(ev.data.id, 'once') end)
      end })
      require('agent').open()
      require('agent').send('write a', { mode = 'agent' })`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('Wrote a.txt.'), 10_000, 'answer');
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 5000, 'run end');
    const folds = await t.lua<{ line: string; closed: number }[]>(`
      local w = require('agent.ui.chat').transcript_win()
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)
      local out = {}
      for i, l in ipairs(lines) do
        if l:match('Step') or l:match('Let me think') then
          table.insert(out, { line = l, closed = vim.api.nvim_win_call(w, function() return vim.fn.foldclosed(i) end) })
        end
      end
      return out`);
    expect(folds.map((f) => f.line)).toEqual(['Let me think.', 'Step one.', 'Step two.']);
    const dbg = await t.lua<string>(`
      local w = require('agent.ui.chat').transcript_win()
      local b = vim.api.nvim_win_get_buf(w)
      local out = {}
      for i, l in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
        local f = vim.api.nvim_win_call(w, function() return vim.fn.foldclosed(i) .. '/' .. vim.fn.foldlevel(i) end)
        table.insert(out, i .. ' [' .. f .. '] ' .. l:sub(1, 40))
      end
      return table.concat(out, '\\n')`);
    for (const f of folds) expect(f.closed, dbg).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(t.project, 'a.txt'), 'utf8')).toBe('a\n');
    const qf = await t.lua<string[]>(`
      vim.api.nvim_set_current_win(require('agent.ui.chat').transcript_win())
      vim.api.nvim_feedkeys('Q', 'x', false)
      return vim.tbl_map(function(i) return vim.fn.bufname(i.bufnr) end, vim.fn.getqflist())`);
    expect(qf).toEqual(['a.txt']);
    // The reasoning was drawn dim; <CR> on a changed file opens it in the editor's window.
    const opened = await t.lua<{ reasoning: string[]; name: string; chat_open: boolean }>(`
      local chat = require('agent.ui.chat')
      local w = chat.transcript_win()
      local buf = vim.api.nvim_win_get_buf(w)
      local reasoning = {}
      for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        if l:match('^Step one') then
          for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, { i - 1, 0 }, { i - 1, -1 }, { details = true, overlap = true })) do
            if m[4].hl_group then table.insert(reasoning, m[4].hl_group) end
          end
        end
        local col = l:find('a.txt', 1, true)
        if l:match('Changed') and col then
          vim.api.nvim_set_current_win(w)
          vim.cmd('normal! zR')
          vim.api.nvim_win_set_cursor(w, { i, col })
        end
      end
      -- Paths in the chat are the project's, wherever Neovim's current directory went since.
      vim.cmd('cd /')
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
      return { reasoning = reasoning, name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t'), chat_open = chat.is_open() }`);
    expect(opened).toEqual({ reasoning: ['AgentReasoning'], name: 'a.txt', chat_open: true });
  });

  it(':Agent approve edits lets file edits through without a prompt and shows it in the status', async () => {
    server = await startLlmServer({
      turns: [
        { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } }] },
        { text: 'Wrote b.' },
      ],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`
      _G.asked = 0
      vim.api.nvim_create_autocmd('User', { pattern = 'AgentPermissionAsked', callback = function() _G.asked = _G.asked + 1 end })
      require('agent').open()
      vim.cmd('Agent approve edits')
      require('agent').send('write b', { mode = 'agent' })`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('Wrote b.'), 10_000, 'answer');
    expect(fs.readFileSync(path.join(t.project, 'b.txt'), 'utf8')).toBe('b\n');
    expect(await t.lua<number>('return _G.asked')).toBe(0);
    expect(await t.lua<string>(`return vim.wo[require('agent.ui.chat').transcript_win()].winbar`)).toContain(
      'auto-edits',
    );
  });

  it('? in the chat shows the keys, modes and commands in a float that q closes', async () => {
    t = await startNvim();
    const shown = await t.lua<{ relative: string; text: string; after: number }>(`
      require('agent').open()
      vim.api.nvim_set_current_win(require('agent.ui.chat').transcript_win())
      vim.api.nvim_feedkeys('?', 'x', false)
      local relative = vim.api.nvim_win_get_config(0).relative
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')
      vim.api.nvim_feedkeys('q', 'x', false)
      return { relative = relative, text = text, after = #vim.api.nvim_list_wins() }`);
    expect(shown.relative).toBe('editor');
    expect(shown.text).toContain('Modes (now: ask)');
    expect(shown.text).toContain(':Agent build');
    expect(shown.after).toBe(3);
  });
  it('themes through Agent* groups: headings, the input hint, the float border, kept after :colorscheme', async () => {
    server = await startLlmServer({ turns: [{ text: 'answer' }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`
      vim.api.nvim_set_hl(0, 'AgentUser', { fg = '#ff0000' })
      require('agent').setup({ window = { layout = 'float' } })
      require('agent').open()
      require('agent').send('hi')`);
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 10_000, 'run');
    const found = await t.lua<Record<string, unknown>>(`
      local chat = require('agent.ui.chat')
      local function groups(buf, row)
        local out = {}
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, { row, 0 }, { row, -1 }, { details = true })) do
          if m[4].hl_group then table.insert(out, m[4].hl_group) end
          for _, chunk in ipairs(m[4].virt_text or {}) do table.insert(out, chunk[2]) end
        end
        return out
      end
      local buf = chat.transcript_buf()
      local rows = {}
      for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        if line:match('^## ') then rows[line:match('^## (%a+)')] = i - 1 end
      end
      local hint_empty = groups(chat.input_buf(), 0)
      vim.api.nvim_buf_set_lines(chat.input_buf(), 0, -1, false, { 'typed' })
      vim.api.nvim_exec_autocmds('TextChanged', { buffer = chat.input_buf() })
      local hint_typed = groups(chat.input_buf(), 0)
      vim.cmd('hi clear')
      vim.cmd('doautocmd ColorScheme')
      return {
        you = groups(buf, rows.You), agent = groups(buf, rows.Agent),
        hint = { hint_empty, hint_typed },
        border = vim.wo[chat.transcript_win()].winhighlight,
        links = { vim.api.nvim_get_hl(0, { name = 'AgentAssistant' }).link, vim.api.nvim_get_hl(0, { name = 'AgentToolDone' }).link },
      }`);
    expect(found).toEqual({
      you: ['AgentUser'],
      agent: ['AgentAssistant'],
      hint: [['AgentInputPrompt'], []],
      border: 'FloatBorder:AgentBorder',
      links: ['Special', 'DiagnosticOk'],
    });
    // A group the user set before setup() is theirs.
    expect(
      await t.lua<number>(
        `vim.api.nvim_set_hl(0, 'AgentUser', { fg = '#ff0000' }); require('agent.highlight').apply(); return vim.api.nvim_get_hl(0, { name = 'AgentUser' }).fg`,
      ),
    ).toBe(0xff0000);
  });
  it('the plan preview coming up while the user types leaves Insert mode and takes b only after a pause', async () => {
    t = await startNvim();
    const plan = path.join(t.project, 'plan.md');
    fs.writeFileSync(plan, '# Plan\n\n## Tasks\n- [ ] one\n');
    await t.lua(`vim.cmd('enew')`);
    await t.nvim.input('itypi');
    await waitFor(
      async () => (await t?.lua<{ mode: string }>('return vim.api.nvim_get_mode()'))?.mode === 'i',
      5000,
      'insert',
    );
    await t.lua(
      `_G.built = 0
       require('agent.ui.plan').show(..., { on_build = function() _G.built = _G.built + 1 end, on_close = function() end })`,
      [plan],
    );
    await t.nvim.input('b');
    const now = await t.lua<{ mode: string; built: number; open: boolean }>(
      `return { mode = vim.api.nvim_get_mode().mode, built = _G.built, open = require('agent.ui.plan').is_open() }`,
    );
    expect(now).toEqual({ mode: 'n', built: 0, open: true });
    await new Promise((r) => setTimeout(r, 450));
    await t.nvim.input('b');
    await waitFor(() => t?.lua<boolean>('return _G.built == 1'), 5000, 'build');
  });
});
