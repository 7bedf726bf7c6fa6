import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, startNvim, type TestNvim, transcript, waitFor } from '../helpers/nvim.js';

/**
 * Helpers loaded in every Neovim: requests whose callbacks record into `_G.got`, and a window
 * split so that "focus goes back" has a window other than the first one to go back to.
 */
const PRELUDE = `
  _G.got = {}
  _G.P = require('agent.ui.prompt')
  function _G.perm(id, extra)
    local req = vim.tbl_extend('force', { id = id, tool = 'shell', summary = 'Run npm test', pattern = 'npm test*' }, extra or {})
    P.permission(req, function(decision) table.insert(_G.got, { id = id, value = decision }) end)
  end
  function _G.ask(id, question, options)
    P.ask({ id = id, question = question, options = options }, function(answer)
      table.insert(_G.got, { id = id, value = answer })
    end)
  end
  function _G.snapshot()
    local win = P.win()
    local buf = win and vim.api.nvim_win_get_buf(win)
    return {
      visible = P.visible() or vim.NIL,
      pending = P.pending(),
      -- The hint line keeps keys with their labels by non-breaking spaces; compare plain text.
      lines = vim.tbl_map(function(l) return (l:gsub('\\194\\160', ' ')) end, buf and vim.api.nvim_buf_get_lines(buf, 0, -1, false) or {}),
      filetype = buf and vim.bo[buf].filetype or '',
      focused = win ~= nil and vim.api.nvim_get_current_win() == win,
      current = vim.api.nvim_get_current_win(),
      wins = #vim.api.nvim_list_wins(),
    }
  end
  vim.cmd('vsplit')
  _G.origin = vim.api.nvim_get_current_win()
`;

interface Snapshot {
  visible: string | null;
  pending: string[];
  lines: string[];
  filetype: string;
  focused: boolean;
  current: number;
  wins: number;
}

interface Got {
  id: string;
  value: unknown;
}

const DIFF = [
  'diff --git a/src/sum.lua b/src/sum.lua',
  '--- a/src/sum.lua',
  '+++ b/src/sum.lua',
  '@@ -1,3 +1,3 @@',
  ' local function add(a, b)',
  '-  return a - b',
  '+  return a + b',
  ' end',
  '',
].join('\n');

describe(`floating prompts on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim;
  beforeEach(async () => {
    t = await startNvim({ init: PRELUDE });
  });
  afterEach(async () => {
    await t?.close();
  });

  const snapshot = () => t.lua<Snapshot>('return snapshot()');
  const got = () => t.lua<Got[]>('return _G.got');
  const origin = () => t.lua<number>('return _G.origin');
  /** Runs keys to completion before returning (feedkeys with the 'x' flag). */
  const keys = (k: string) =>
    t.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), 'xt', false)`, [k]);
  const gotCount = (n: number) =>
    waitFor(async () => ((await got()).length >= n ? got() : undefined), 5000, `${n} answers`);

  it('shows a permission with its diff in an agent-prompt float and allows once by key', async () => {
    await t.lua(
      `perm('p1', { tool = 'edit', summary = 'Edit src/sum.lua', pattern = 'src/sum.lua', diff = ..., paths = { 'src/sum.lua' } })`,
      [DIFF],
    );
    const shown = await snapshot();
    expect(shown.visible).toBe('p1');
    expect(shown.filetype).toBe('agent-prompt');
    expect(shown.focused).toBe(true);
    expect(shown.lines[0]).toBe('Edit src/sum.lua');
    expect(shown.lines).toContain('File: src/sum.lua');
    expect(shown.lines).toContain('-  return a - b');
    expect(shown.lines).toContain('+  return a + b');
    const hint = shown.lines.at(-1) as string;
    expect(hint).toContain('o allow once');
    expect(hint).toContain('a always allow: src/sum.lua');
    expect(hint).toContain('r deny with a reason');
    // When the hint wraps, a key stays on the same row as its label.
    const raw = await t.lua<string>(
      'return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(P.win()), -2, -1, false)[1]',
    );
    expect(raw).toContain('o\u00a0allow\u00a0once');

    const look = await t.lua<Record<string, unknown>>(`
      local win = P.win()
      local buf = vim.api.nvim_win_get_buf(win)
      local config = vim.api.nvim_win_get_config(win)
      local title = type(config.title) == 'table' and config.title[1][1] or config.title
      local ns = vim.api.nvim_get_namespaces()['agent.prompt']
      local by_line = {}
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
        local group = m[4].line_hl_group
        if group then by_line[vim.api.nvim_buf_get_lines(buf, m[2], m[2] + 1, false)[1]] = group end
      end
      return {
        relative = config.relative,
        border = config.border ~= nil and config.border ~= 'none',
        title = title,
        added = by_line['+  return a + b'],
        removed = by_line['-  return a - b'],
        hunk = by_line['@@ -1,3 +1,3 @@'],
        context = by_line[' end'] or false,
        modifiable = vim.bo[buf].modifiable,
        add_link = vim.api.nvim_get_hl(0, { name = 'AgentPromptDiffAdd' }).link,
      }`);
    expect(look).toEqual({
      relative: 'editor',
      border: true,
      title: ' Allow edit? ',
      added: 'AgentPromptDiffAdd',
      removed: 'AgentPromptDiffDelete',
      hunk: 'AgentPromptDiffHunk',
      context: false,
      modifiable: false,
      add_link: 'DiffAdd',
    });

    // Visit the other split and come back, so that Neovim's own "previous window" is not the one
    // the user came from.
    await t.lua(`
      local other = vim.tbl_filter(function(w) return w ~= _G.origin and w ~= P.win() end, vim.api.nvim_list_wins())[1]
      vim.api.nvim_set_current_win(other)
      vim.api.nvim_set_current_win(P.win())`);
    await t.nvim.input('o');
    expect(await gotCount(1)).toEqual([{ id: 'p1', value: 'once' }]);
    const after = await snapshot();
    expect(after.visible).toBeNull();
    expect(after.pending).toEqual([]);
    expect(after.current).toBe(await origin());
    expect(after.wins).toBe(2);
  });

  it('takes JSON nulls from the host as absent optional fields', async () => {
    await t.lua(`perm('null1', { diff = vim.NIL, paths = vim.NIL, pattern = vim.NIL })`);
    const shown = await snapshot();
    expect(shown.lines).toEqual([
      'Run npm test',
      '',
      'o allow once · a always allow: any shell call · d/Esc deny · r deny with a reason',
    ]);
    await keys('a');
    expect(await got()).toEqual([{ id: 'null1', value: 'always' }]);
  });

  it('maps every decision key, and answers each request exactly once', async () => {
    const cases: [string, unknown][] = [
      ['o', 'once'],
      ['a', 'always'],
      ['d', 'deny'],
      ['q', 'deny'],
      ['<Esc>', 'deny'],
    ];
    for (const [i, [key]] of cases.entries()) {
      await t.lua(`perm(...)`, [`k${i}`]);
      // yy (copying a diff line) and n (the next search match) are not answers.
      await keys('yyn');
      expect((await snapshot()).visible).toBe(`k${i}`);
      await keys(key);
      // A second key after the decision has no prompt to act on.
      await keys('o');
    }
    expect(await got()).toEqual(cases.map(([, value], i) => ({ id: `k${i}`, value })));
    expect((await snapshot()).current).toBe(await origin());
  });

  it('denies with a typed reason; an empty or cancelled reason goes back to the prompt', async () => {
    await t.lua(`perm('r1')`);
    await keys('r<CR>');
    let now = await snapshot();
    expect(now.visible).toBe('r1');
    expect(now.focused).toBe(true);
    await keys('r<Esc>');
    expect((await snapshot()).visible).toBe('r1');
    expect(await got()).toEqual([]);
    // Through the real input line (vim.fn.input behind vim.ui.input), typed with nvim_input.
    await t.nvim.input('r');
    await t.nvim.input('touches prod<CR>');
    expect(await gotCount(1)).toEqual([{ id: 'r1', value: { deny: 'touches prod' } }]);
    now = await snapshot();
    expect(now.visible).toBeNull();
    expect(now.current).toBe(await origin());
  });

  it('ignores a reason that arrives after the prompt was answered or cancelled', async () => {
    // An asynchronous vim.ui.input (as dressing or snacks provide): the reply comes later.
    await t.lua(`
      _G.confirms = {}
      vim.ui.input = function(_, on_confirm) table.insert(_G.confirms, on_confirm) end
      perm('late1'); perm('late2')`);
    await keys('r');
    await keys('o');
    await t.lua(`_G.confirms[1]('too late')`);
    await keys('r');
    await t.lua(`P.cancel('late2'); _G.confirms[2]('also late')`);
    expect(await got()).toEqual([{ id: 'late1', value: 'once' }]);
    expect((await snapshot()).pending).toEqual([]);
  });

  it('queues requests, shows them in order, and cancels without calling back', async () => {
    await t.lua(`
      perm('q1')
      ask('q2', 'Which database?', { 'sqlite', 'postgres' })
      perm('q3', { tool = 'write', summary = 'Write notes.md', pattern = 'notes.md' })
      perm('q4')`);
    let now = await snapshot();
    expect(now.visible).toBe('q1');
    expect(now.pending).toEqual(['q1', 'q2', 'q3', 'q4']);
    expect(now.wins).toBe(3);
    expect(await t.lua(`return P.cancel('q4')`)).toBe(true);
    expect(await t.lua(`return P.cancel('nope')`)).toBe(false);
    await t.nvim.input('d');
    await gotCount(1);
    now = await snapshot();
    expect(now.visible).toBe('q2');
    expect(now.focused).toBe(true);
    expect(now.lines[0]).toBe('Which database?');
    await keys('2');
    now = await snapshot();
    expect(now.visible).toBe('q3');
    expect(now.pending).toEqual(['q3']);
    // Cancelling the visible prompt closes it and hands focus back.
    await t.lua(`P.cancel('q3')`);
    now = await snapshot();
    expect(now.visible).toBeNull();
    expect(now.wins).toBe(2);
    expect(now.current).toBe(await origin());
    expect(await got()).toEqual([
      { id: 'q1', value: 'deny' },
      { id: 'q2', value: 'postgres' },
    ]);
    await t.lua(`perm('c1'); perm('c2'); P.cancel_all()`);
    expect((await snapshot()).pending).toEqual([]);
    expect(await got()).toHaveLength(2);
  });

  it('asks a question: numbered options, <CR> on a row, j/k between rows, typed answers', async () => {
    await t.lua(`ask('a1', 'Which test runner?', { 'vitest', 'jest', 'mocha' })`);
    const shown = await snapshot();
    expect(shown.filetype).toBe('agent-prompt');
    expect(shown.lines.slice(0, 6)).toEqual([
      'Which test runner?',
      '',
      ' 1  vitest',
      ' 2  jest',
      ' 3  mocha',
      ' i  Type your own answer…',
    ]);
    const hint = shown.lines.at(-2) as string;
    expect(hint).toContain('1-3/<CR> pick');
    expect(hint).toContain('Esc dismiss');
    expect(shown.lines.at(-1)).toBe(
      "<C-w>c hide for now, reopen with :lua require('agent.ui.prompt').reopen()",
    );
    expect(await t.lua(`return vim.api.nvim_win_get_cursor(0)[1]`)).toBe(3);
    await keys('jj');
    expect(await t.lua(`return vim.api.nvim_win_get_cursor(0)[1]`)).toBe(5);
    // Past the last answer, j moves on into the hints (and k above the first into the question).
    await keys('jjj');
    expect(await t.lua(`return vim.api.nvim_win_get_cursor(0)[1]`)).toBe(8);
    await keys('kkk');
    expect(await t.lua(`return vim.api.nvim_win_get_cursor(0)[1]`)).toBe(4);
    await t.nvim.input('<CR>');
    expect(await gotCount(1)).toEqual([{ id: 'a1', value: 'jest' }]);

    await t.lua(`ask('a2', 'Name?', { 'foo', 'bar' })`);
    await keys('i<CR>'); // empty: back to the question
    expect((await snapshot()).visible).toBe('a2');
    await keys('c  <Esc>'); // cancelled: back again
    expect((await snapshot()).visible).toBe('a2');
    await t.nvim.input('i');
    await t.nvim.input('baz qux<CR>');
    await gotCount(2);

    await t.lua(`ask('a3', 'Pick', { 'one', 'two' })`);
    await keys('G');
    await keys('k'); // the free-text row
    await keys('<CR>custom<CR>');
    expect((await got()).slice(1)).toEqual([
      { id: 'a2', value: 'baz qux' },
      { id: 'a3', value: 'custom' },
    ]);
    expect((await snapshot()).current).toBe(await origin());
  });

  it('Esc and q dismiss a question: the callback gets nil, and the next prompt shows', async () => {
    await t.lua(`ask('h1', 'Continue?', { 'yes', 'no' }); perm('h2'); ask('h3', 'Again?', { 'a', 'b' })`);
    await keys('<Esc>');
    let now = await snapshot();
    expect(now.visible).toBe('h2');
    expect(await t.lua(`return _G.got[1] and _G.got[1].id == 'h1' and _G.got[1].value == nil`)).toBe(true);
    await keys('a');
    expect((await snapshot()).visible).toBe('h3');
    await keys('q');
    now = await snapshot();
    expect(now.visible).toBeNull();
    expect(now.pending).toEqual([]);
    expect(now.current).toBe(await origin());
    expect(await got()).toEqual([{ id: 'h1' }, { id: 'h2', value: 'always' }, { id: 'h3' }]);
    expect(await t.lua(`return P.reopen()`)).toBe(false);
  });

  it('<C-w>c hides a question; reopen() brings it back and the queue waits behind it', async () => {
    await t.lua(`ask('h1', 'Continue?', { 'yes', 'no' }); perm('h2')`);
    await t.nvim.input('<C-w>c');
    let now = await waitFor(async () => {
      const s = await snapshot();
      return s.current === (await origin()) && s.visible === null ? s : undefined;
    });
    expect(now.pending).toEqual(['h1', 'h2']);
    expect(now.wins).toBe(2);
    expect(await got()).toEqual([]);
    expect(await t.lua(`return P.reopen()`)).toBe(true);
    now = await snapshot();
    expect(now.visible).toBe('h1');
    expect(now.focused).toBe(true);
    await keys('1');
    now = await snapshot();
    expect(now.visible).toBe('h2');
    await keys('a');
    expect(await got()).toEqual([
      { id: 'h1', value: 'yes' },
      { id: 'h2', value: 'always' },
    ]);
    // The caller can name its own way back (a command).
    await t.lua(`P.setup({ reopen_hint = ':Agent prompt' }); ask('h3', 'Again?', { 'a', 'b' })`);
    expect((await snapshot()).lines.at(-1)).toMatch(/<C-w>c hide for now, reopen with :Agent prompt$/);
  });

  it('closing the float with :q or <C-w>c hides the prompt instead of answering it', async () => {
    await t.lua(`perm('w1')`);
    await keys(':q<CR>');
    let now = await waitFor(async () => {
      const s = await snapshot();
      return s.current === (await origin()) ? s : undefined;
    });
    expect(now.visible).toBeNull();
    expect(now.pending).toEqual(['w1']);
    expect(await got()).toEqual([]);
    await t.lua(`P.reopen()`);
    expect((await snapshot()).visible).toBe('w1');
    await t.nvim.input('<C-w>c');
    now = await waitFor(async () => {
      const s = await snapshot();
      return s.current === (await origin()) && s.visible === null ? s : undefined;
    });
    expect(now.pending).toEqual(['w1']);
    // Replacing the float's buffer (:enew in it) also only hides the prompt.
    await t.lua(`P.reopen()`);
    await keys(':enew<CR>');
    now = await waitFor(async () => {
      const s = await snapshot();
      return s.current === (await origin()) && s.wins === 2 ? s : undefined;
    });
    expect(now.pending).toEqual(['w1']);
    // The command the hint line names.
    await keys(":lua require('agent.ui.prompt').reopen()<CR>");
    expect((await snapshot()).focused).toBe(true);
    await keys('d');
    expect(await got()).toEqual([{ id: 'w1', value: 'deny' }]);
    expect((await snapshot()).current).toBe(await origin());
    // A cancelled hidden prompt lets the next one show.
    await t.lua(`perm('w2'); perm('w3')`);
    await keys(':close<CR>');
    await t.lua(`P.cancel('w2')`);
    expect((await snapshot()).visible).toBe('w3');
  });

  it('waits for a command line being typed before taking focus', async () => {
    await t.nvim.input(':let g:typed = 1');
    await waitFor(async () => (await t.lua<{ mode: string }>('return vim.api.nvim_get_mode()')).mode === 'c');
    await t.lua(`perm('cl1')`);
    let now = await snapshot();
    expect(now.visible).toBeNull();
    expect(now.pending).toEqual(['cl1']);
    await t.nvim.input('<CR>');
    now = await waitFor(async () => {
      const s = await snapshot();
      return s.visible ? s : undefined;
    });
    expect(now.visible).toBe('cl1');
    expect(now.focused).toBe(true);
    expect(await t.lua<number>('return vim.g.typed')).toBe(1);
    await keys('d');
    expect(await got()).toEqual([{ id: 'cl1', value: 'deny' }]);
    expect((await snapshot()).current).toBe(await origin());
  });

  it('fits a tiny 40x12 editor, scrolls long content and re-centers on resize', async () => {
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const diff = Array.from({ length: 200 }, (_, i) => `+line ${i}`).join('\n');
    await t.lua(`vim.o.columns = 40; vim.o.lines = 12`);
    await t.lua(`perm('t1', { summary = ..., diff = ... })`, [long, diff]);
    const geometry = `
      local c = vim.api.nvim_win_get_config(P.win())
      local footer = type(c.footer) == 'table' and (c.footer[1] or {})[1] or c.footer
      return { row = c.row, col = c.col, width = c.width, height = c.height, footer = footer or '',
        columns = vim.o.columns, avail = vim.o.lines - vim.o.cmdheight }`;
    const small = await t.lua<Record<string, number | string>>(geometry);
    const fits = (g: Record<string, number | string>) => {
      expect(g.row).toBeGreaterThanOrEqual(0);
      expect(g.col).toBeGreaterThanOrEqual(0);
      expect((g.row as number) + (g.height as number) + 2).toBeLessThanOrEqual(g.avail as number);
      expect((g.col as number) + (g.width as number) + 2).toBeLessThanOrEqual(g.columns as number);
    };
    fits(small);
    expect(small.columns).toBe(40);
    // The hint line is scrolled out of view, so the footer carries the keys.
    expect(small.footer).toBe(' o once·a always·d deny·r reason ');
    await keys('G');
    const scrolled = await t.lua<number>(`return vim.fn.line('w0', P.win())`);
    expect(scrolled).toBeGreaterThan(1);

    await t.lua(`vim.o.columns = 120; vim.o.lines = 40`);
    const big = await t.lua<{
      col: number;
      row: number;
      width: number;
      height: number;
      avail: number;
      columns: number;
    }>(geometry);
    fits(big);
    expect(big.col).toBe(Math.floor((120 - big.width - 2) / 2));
    expect(big.row).toBe(Math.floor((big.avail - big.height - 2) / 2));
    expect(big.width).toBeGreaterThan(small.width as number);
    await keys('o');
    expect(await got()).toEqual([{ id: 't1', value: 'once' }]);
  });

  it('opens near the chat when it is open: over the transcript, at its end', async () => {
    await t.lua(`vim.o.columns = 160; vim.o.lines = 40; require('agent').open()`);
    await t.lua(`perm('n1', { summary = 'Edit notes.txt' })`);
    const g = await t.lua<Record<string, number>>(`
      local c = vim.api.nvim_win_get_config(P.win())
      local chat = require('agent.ui.chat').transcript_win()
      local pos = vim.api.nvim_win_get_position(chat)
      return { row = c.row, col = c.col, width = c.width, height = c.height,
        chat_row = pos[1], chat_col = pos[2], chat_width = vim.api.nvim_win_get_width(chat),
        chat_height = vim.api.nvim_win_get_height(chat) }`);
    // Centred over the transcript (or against the editor's right edge when wider than it)...
    const middle = (g.col as number) + ((g.width as number) + 2) / 2;
    const chatMiddle = (g.chat_col as number) + (g.chat_width as number) / 2;
    expect(Math.abs(middle - chatMiddle) <= 1 || (g.col as number) + (g.width as number) + 2 === 160).toBe(
      true,
    );
    expect(g.col as number).toBeGreaterThan(60);
    // ...with its bottom border on the transcript's last row.
    expect((g.row as number) + (g.height as number) + 2).toBe(
      (g.chat_row as number) + (g.chat_height as number),
    );
    await keys('o');
    expect(await got()).toEqual([{ id: 'n1', value: 'once' }]);
  });

  it('shows a multi-line command on one hint line, and opens with a custom winborder', async () => {
    await t.lua(`
      if vim.fn.has('nvim-0.11') == 1 then vim.o.winborder = '+,-,+,|,+,-,+,|' end
      perm('m1', { summary = 'Run a heredoc', pattern = 'cat <<EOF > a.txt\\nline\\nEOF', paths = { 'we\\nird.txt' } })`);
    const shown = await snapshot();
    expect(shown.visible).toBe('m1');
    expect(shown.lines).toContain('File: we ⏎ ird.txt');
    expect(shown.lines.at(-1)).toContain('a always allow: cat <<EOF > a.txt ⏎ line ⏎ EOF');
    await keys('o');
    expect(await got()).toEqual([{ id: 'm1', value: 'once' }]);
  });

  it('keys typed for the text the user was writing when a prompt came up are not answers', async () => {
    await t.lua(`vim.cmd('enew'); vim.cmd('startinsert')`);
    await t.nvim.input('some text ');
    await t.lua(`perm('g1')`);
    // "and" meant for the text: a would allow always, d deny.
    await keys('and');
    expect((await snapshot()).visible).toBe('g1');
    expect(await got()).toEqual([]);
    await new Promise((r) => setTimeout(r, 450));
    await keys('o');
    expect(await got()).toEqual([{ id: 'g1', value: 'once' }]);
  });

  it('a short prompt has no footer and gives Insert mode back after the answer', async () => {
    await t.lua(
      `vim.cmd('enew'); vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'abc' }); vim.cmd('startinsert!')`,
    );
    await waitFor(async () => (await t.lua<{ mode: string }>('return vim.api.nvim_get_mode()')).mode === 'i');
    await t.lua(`ask('m1', 'Ok?', { 'yes', 'no' })`);
    await waitFor(async () => (await t.lua<{ mode: string }>('return vim.api.nvim_get_mode()')).mode === 'n');
    const footer = await t.lua<unknown>(`return vim.api.nvim_win_get_config(P.win()).footer or ''`);
    expect(footer === '' || (Array.isArray(footer) && footer.length === 0)).toBe(true);
    // Not typing when it came up: the first key answers.
    await t.nvim.input('2');
    await gotCount(1);
    await waitFor(async () => (await t.lua<{ mode: string }>('return vim.api.nvim_get_mode()')).mode === 'i');
    await t.nvim.input('d');
    await waitFor(async () => (await t.lua<string>(`return vim.api.nvim_get_current_line()`)) === 'abcd');
  });

  it('Esc on a question from the model tells it the user dismissed it, and the run goes on', async () => {
    const server = await startLlmServer({
      turns: [
        {
          toolCalls: [
            {
              id: 'q',
              name: 'ask_user',
              arguments: { question: 'Tabs or spaces?', options: ['tabs', 'spaces'] },
            },
          ],
        },
        { text: 'Going with spaces, then.' },
      ],
    });
    try {
      await t.close();
      t = await startNvim({ init: PRELUDE, env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
      await t.lua(`require('agent').send('format it', { mode = 'agent' })`);
      await waitFor(async () => ((await snapshot()).visible ? true : undefined), 10_000, 'the question');
      expect((await snapshot()).lines[0]).toBe('Tabs or spaces?');
      await keys('<Esc>');
      await waitFor(
        async () => (await transcript(t)).includes('Going with spaces'),
        10_000,
        'the run going on',
      );
      const told = JSON.stringify(server.modelRequests()[1]?.body);
      expect(told).toContain('dismissed the question without answering');
      expect(await transcript(t)).toContain('⊘ ask_user');
      expect((await snapshot()).pending).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
