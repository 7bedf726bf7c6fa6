import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import {
  messages,
  nvimBinary,
  nvimVersion,
  startNvim,
  type TestNvim,
  transcript,
  waitFor,
} from '../helpers/nvim.js';

describe(`chat on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  let server: LlmServer | undefined;
  afterEach(async () => {
    await t?.close();
    await server?.close();
    t = server = undefined;
  });

  it(':AgentChat opens a right split at once, before the host is ready, and toggles closed', async () => {
    t = await startNvim();
    const opened = await t.lua<Record<string, unknown>>(`
      vim.cmd('AgentChat')
      local chat = require('agent.ui.chat')
      local tw, iw = chat.transcript_win(), chat.input_win()
      return {
        host = require('agent').status().host,
        transcript_ft = vim.bo[vim.api.nvim_win_get_buf(tw)].filetype,
        input_ft = vim.bo[vim.api.nvim_win_get_buf(iw)].filetype,
        current_is_input = vim.api.nvim_get_current_win() == iw,
        right = vim.api.nvim_win_get_position(tw)[2] > 0,
        width = vim.api.nvim_win_get_width(tw),
        columns = vim.o.columns,
        same_column = vim.api.nvim_win_get_position(tw)[2] == vim.api.nvim_win_get_position(iw)[2],
      }`);
    // Drawn in the same call that asked for it: the host had not even been spawned yet.
    expect(opened.host).toBe('stopped');
    expect(opened.transcript_ft).toBe('agent-chat');
    expect(opened.input_ft).toBe('agent-input');
    expect(opened.current_is_input).toBe(true);
    expect(opened.right).toBe(true);
    expect(opened.same_column).toBe(true);
    expect(opened.width).toBe(Math.floor((opened.columns as number) * 0.4));
    await waitFor(
      () => t?.lua<boolean>(`return require('agent').status().host == 'ready'`),
      10_000,
      'host ready',
    );
    const closed = await t.lua<boolean>(`vim.cmd('AgentChat'); return require('agent.ui.chat').is_open()`);
    expect(closed).toBe(false);
    expect(await t.lua<number>('return #vim.api.nvim_list_wins()')).toBe(1);
  });

  it('sends the input to the host and shows the streamed reply', async () => {
    server = await startLlmServer({
      turns: [{ text: 'Hello from the **scripted** model.\nSecond line.', chunkSize: 3 }],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'scripted-model' } });
    await t.lua(`
      _G.done_events = {}
      vim.api.nvim_create_autocmd('User', { pattern = 'AgentRunDone', callback = function(ev) table.insert(_G.done_events, ev.data) end })
      vim.cmd('AgentChat')
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'Say hello', 'please' })
      vim.cmd('stopinsert')`);
    await t.nvim.input('<CR>');
    const text = await waitFor(
      async () => {
        const s = await transcript(t as TestNvim);
        return s.includes('Second line.') ? s : undefined;
      },
      10_000,
      'reply in the transcript',
    );
    expect(text).toContain('## You\n\nSay hello\nplease');
    expect(text).toContain('Hello from the **scripted** model.\nSecond line.');
    expect(
      await t.lua<string[]>(
        `return vim.api.nvim_buf_get_lines(require('agent.ui.chat').input_buf(), 0, -1, false)`,
      ),
    ).toEqual(['']);
    const events = await waitFor(
      async () => {
        const list = await t?.lua<Record<string, unknown>[]>('return _G.done_events');
        return list && list.length > 0 ? list : undefined;
      },
      5000,
      'AgentRunDone',
    );
    expect(events[0], JSON.stringify(events)).toMatchObject({ outcome: 'done' });
    const winbar = await t.lua<string>(`
      local win = require('agent.ui.chat').transcript_win()
      vim.api.nvim_win_set_width(win, 120)
      require('agent.ui.status').render()
      return vim.wo[win].winbar`);
    expect(winbar, winbar).toMatch(/ask · env\/scripted-model · \S+ in \/ \S+ out · ctx \S+ \(est \S+\)$/);
    const request = server.modelRequests()[0]?.body as {
      messages: { role: string; content: unknown }[];
      model: string;
    };
    expect(request.model).toBe('scripted-model');
    expect(JSON.stringify(request.messages.at(-1))).toContain('Say hello\\nplease');
  });

  it('without any provider explains in the chat what to configure', async () => {
    t = await startNvim();
    await t.lua(`require('agent').open(); require('agent').send('hi')`);
    const text = await waitFor(
      async () => {
        const s = await transcript(t as TestNvim);
        return s.includes('No model provider is configured.') ? s : undefined;
      },
      10_000,
      'first-run help',
    );
    expect(text).toContain('ANTHROPIC_API_KEY');
    expect(text).toContain("require('agent').setup({");
    expect(await t.lua<boolean>(`return require('agent').status().running`)).toBe(false);
  });

  it('opens as a float pair when configured, and on the left', async () => {
    t = await startNvim();
    const float = await t.lua<Record<string, unknown>>(`
      require('agent').setup({ window = { layout = 'float', width = 0.6, height = 0.6 } })
      require('agent').open()
      local chat = require('agent.ui.chat')
      return {
        t = vim.api.nvim_win_get_config(chat.transcript_win()).relative,
        i = vim.api.nvim_win_get_config(chat.input_win()).relative,
      }`);
    expect(float).toEqual({ t: 'editor', i: 'editor' });
    const left = await t.lua<number>(`
      require('agent').close()
      require('agent').setup({ window = { side = 'left', width = 30 } })
      require('agent').open()
      local tw = require('agent.ui.chat').transcript_win()
      return vim.api.nvim_win_get_position(tw)[2] * 1000 + vim.api.nvim_win_get_width(tw)`);
    expect(left).toBe(30);
  });

  it('asks about a visual selection with file, range and filetype as context', async () => {
    server = await startLlmServer({ turns: [{ text: 'It adds.' }, { text: 'Because.' }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url } });
    await t.lua(`
      vim.cmd('edit sum.lua')
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'local x = 1', 'local function add(a, b)', '  return a + b', 'end' })
      vim.bo.filetype = 'lua'
      vim.cmd('2,4AgentChat what does this do?')`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('It adds.'), 10_000, 'reply');
    const sent = JSON.stringify(server.modelRequests()[0]?.body);
    expect(sent).toContain('Selected lines 2-4 of sum.lua');
    expect(sent).toContain('```lua');
    expect(sent).toContain('return a + b');
    expect(sent).toContain('what does this do?');
    expect(await transcript(t)).not.toContain('return a + b');
    // The selection shows as one attachment line.
    expect(await transcript(t)).toMatch(/📎 selection \(sum\.lua lines 2-4, \d+ B\)/);
    // The same through the <Plug> mapping from Visual mode, which asks for the question.
    await t.lua(`
      vim.ui.input = function(_, on_confirm) on_confirm('why local?') end
      vim.fn.win_gotoid(vim.fn.bufwinid('sum.lua'))
      vim.keymap.set('x', '<F5>', '<Plug>(AgentAskSelection)')
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('ggV<F5>', true, false, true), 'mx', false)`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('Because.'), 10_000, 'second reply');
    const second = JSON.stringify(server.modelRequests()[1]?.body);
    expect(second).toContain('Selected line 1 of sum.lua');
    expect(second).toContain('why local?');
    expect(await transcript(t)).toMatch(/📎 selection \(sum\.lua line 1, \d+ B\)/);
  });

  it('attaches @file and #buffer context: sent with the prompt, one line each in the transcript', async () => {
    server = await startLlmServer({ turns: [{ text: 'Seen both.' }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    fs.writeFileSync(path.join(t.project, 'util.c'), 'int add(int a, int b) { return a + b; }\n');
    await t.lua(`
      vim.cmd('edit main.c')
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'int main(void) { return add(1, 2); }' })
      require('agent').open()
      require('agent').send('compare @util.c with #buffer and @missing.c')`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('Seen both.'), 10_000, 'reply');
    const text = await transcript(t);
    expect(text).toContain('compare @util.c with #buffer and @missing.c');
    expect(text).toMatch(/📎 @util\.c \(.*\)/);
    expect(text).toMatch(/📎 #buffer/);
    expect(text).toContain('Not attached: @missing.c');
    expect(text).not.toContain('return a + b');
    const sent = JSON.stringify(server.modelRequests()[0]?.body);
    expect(sent).toContain('return a + b');
    expect(sent).toContain('return add(1, 2)');
  });

  it('the winbar shows the step while running, then tokens, context used and cost when the price is known', async () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    server = await startLlmServer({
      turns: [{ text: words, chunkSize: 10, delayMs: 20, usage: { input: 25_000, output: 300 } }],
    });
    t = await startNvim();
    await t.lua(
      `require('agent').setup({
        providers = { work = { type = 'openai_compatible', base_url = ..., api_key = 'k',
          models = { m = { context_window = 100000, price = { input = 10, output = 20 } } } } },
        model = 'work/m',
      })
      require('agent').open()
      vim.api.nvim_win_set_width(require('agent.ui.chat').transcript_win(), 120)
      require('agent').send('hi')`,
      [server.url],
    );
    const winbar = () => t?.lua<string>(`return vim.wo[require('agent.ui.chat').transcript_win()].winbar`);
    const winbarWith = (part: string, ms: number, what: string) =>
      waitFor(
        async () => {
          const bar = await winbar();
          return bar?.includes(part) ? bar : undefined;
        },
        ms,
        what,
      );
    const running = await winbarWith('step 1/', 10_000, 'the step while running');
    expect(running).toMatch(/ask · work\/m · .*step 1\/\d+/);
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 10_000, 'run end');
    const done = await winbarWith('$', 5000, 'the cost');
    // 25,000 in at $10/M and 300 out at $20/M: $0.256; 25,000 of 100,000 tokens of context is 25%.
    expect(done).toMatch(/25(\.0)?k in \/ 300 out/);
    expect(done).toContain('ctx 25%');
    expect(done).toContain('$0.2560');
    expect(done).not.toContain('step');
    // A narrow chat keeps mode and model and drops whole fields from the end.
    await t.lua(`vim.api.nvim_win_set_width(require('agent.ui.chat').transcript_win(), 40)`);
    const narrow = await winbarWith('…', 5000, 'the winbar fitted after the resize');
    expect(narrow, narrow).toMatch(/^%#AgentStatus# ask · work\/m · ctx 25%% \(est \d+%%\) …$/);
  });

  it('talks to an Anthropic provider configured in setup() (its SDK loads on first use)', async () => {
    server = await startLlmServer({
      turns: [{ text: 'Hello from the messages API.', reasoning: 'thinking it over' }],
    });
    t = await startNvim();
    await t.lua(
      `require('agent').setup({
        providers = { claude = { type = 'anthropic', base_url = ..., api_key = 'test-key-123456' } },
        model = 'claude/claude-sonnet-4-5',
      })
      require('agent').send('hi')`,
      [server.anthropicUrl],
    );
    await waitFor(
      async () => (await transcript(t as TestNvim)).includes('Hello from the messages API.'),
      10_000,
      'reply',
    );
    expect(server.modelRequests()[0]?.path).toBe('/v1/messages');
    expect(await transcript(t)).toContain('## Agent · claude/claude-sonnet-4-5');
  });

  it('closing the chat while an answer streams loses nothing: reopened, it shows the whole answer', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    server = await startLlmServer({ turns: [{ text: `${words} END`, chunkSize: 20, delayMs: 5 }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`require('agent').open(); require('agent').send('stream please')`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('w10'), 10_000, 'streaming started');
    await t.nvim.command('AgentChat');
    expect(await t.lua<boolean>(`return require('agent.ui.chat').is_open()`)).toBe(false);
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 10_000, 'run end');
    await t.nvim.command('AgentChat');
    const text = await transcript(t);
    expect(text).toContain(`${words} END`);
    expect(await t.lua<boolean>(`return require('agent.ui.chat').is_open()`)).toBe(true);
  });

  it('Ctrl+Enter and Ctrl+S send from Insert mode; a message sent while a run streams is queued', async () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    server = await startLlmServer({
      turns: [{ text: words, chunkSize: 10, delayMs: 10 }, { text: 'second answer' }],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`require('agent').open()`);
    await t.nvim.input('ifirst question<C-CR>');
    await waitFor(async () => (await transcript(t as TestNvim)).includes('w10'), 10_000, 'streaming');
    await t.nvim.input('second question<C-s>');
    await waitFor(async () => (await transcript(t as TestNvim)).includes('Queued'), 5000, 'queued notice');
    expect(server.modelRequests()).toHaveLength(1);
    await waitFor(
      async () => (await transcript(t as TestNvim)).includes('second answer'),
      10_000,
      'second run',
    );
    const bodies = server.modelRequests().map((r) => JSON.stringify(r.body));
    expect(bodies[0]).toContain('first question');
    expect(bodies[1]).toContain('second question');
    expect(
      await t.lua<string[]>(
        `return vim.api.nvim_buf_get_lines(require('agent.ui.chat').input_buf(), 0, -1, false)`,
      ),
    ).toEqual(['']);
  });

  it("a failing User autocmd of the user's is reported and stops nothing", async () => {
    server = await startLlmServer({
      turns: [{ text: 'first', chunkSize: 2, delayMs: 20 }, { text: 'second' }],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`
      vim.api.nvim_create_autocmd('User', { pattern = 'AgentRunDone', callback = function() error('broken hook') end })
      require('agent').send('one')
      require('agent').send('two')`);
    await waitFor(
      async () => (await transcript(t as TestNvim)).includes('second'),
      10_000,
      'the queued message sent',
    );
    await new Promise((r) => setTimeout(r, 500));
    // Reported (by Neovim, or by the chat where Neovim would throw instead).
    expect(await messages(t)).toContain('broken hook');
  });

  it(':Agent clear during a run stops it first and leaves nothing of it in the new chat', async () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    server = await startLlmServer({
      turns: [
        { text: words, chunkSize: 10, delayMs: 10 },
        { text: 'fresh answer', chunkSize: 10 },
      ],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`
      _G.done = {}
      vim.api.nvim_create_autocmd('User', { pattern = 'AgentRunDone', callback = function(ev) table.insert(_G.done, ev.data.outcome) end })
      require('agent').open()
      require('agent').send('stream please')`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('w10'), 10_000, 'streaming started');
    await t.nvim.command('Agent clear');
    await waitFor(() => t?.lua<boolean>(`return #_G.done == 1`), 10_000, 'the stopped run to end');
    await new Promise((r) => setTimeout(r, 200));
    expect(await t.lua<string[]>('return _G.done')).toEqual(['cancelled']);
    expect((await transcript(t)).trim()).toBe('');
    await t.lua(`require('agent').send('again')`);
    await waitFor(() => t?.lua<boolean>(`return #_G.done == 2`), 10_000, 'the next run');
    const text = await transcript(t);
    expect(text).toContain('fresh answer');
    expect(text).not.toMatch(/w10|Stopped/);
  });

  it('follows the end while the cursor is at the bottom, and leaves a cursor the user moved', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    server = await startLlmServer({
      turns: [
        { text: long, chunkSize: 40, delayMs: 5 },
        { text: long, chunkSize: 40, delayMs: 5 },
      ],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    const cursor = () =>
      t?.lua<number[]>(
        `local w = require('agent.ui.chat').transcript_win(); return { vim.api.nvim_win_get_cursor(w)[1], vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(w)) }`,
      );
    await t.lua(`require('agent').open(); require('agent').send('first')`);
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 10_000, 'first run');
    await new Promise((r) => setTimeout(r, 200));
    const [row, count] = (await cursor()) ?? [];
    expect(row).toBe(count);
    await t.lua(`require('agent').send('second')`);
    await waitFor(
      async () => (await transcript(t as TestNvim)).split('line 20').length > 2,
      10_000,
      'second streaming',
    );
    await t.lua(`vim.api.nvim_win_set_cursor(require('agent.ui.chat').transcript_win(), { 3, 0 })`);
    await waitFor(
      () => t?.lua<boolean>(`return not require('agent').status().running`),
      10_000,
      'second run',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await cursor())?.[0]).toBe(3);
  });

  it('streams plain text past the parsed Markdown and highlights all of it when the answer ends', async () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} has **bold ${i}** and \`code\`.`);
    server = await startLlmServer({ turns: [{ text: paragraphs.join('\n\n'), chunkSize: 20, delayMs: 15 }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`require('agent').open(); vim.cmd('wincmd t'); require('agent').send('write')`);
    const midway = await waitFor(
      () =>
        t?.lua<{ held: boolean; cursor: number; lines: number } | null>(`
          local chat = require('agent.ui.chat')
          local buf = chat.transcript_buf()
          local text = table.concat(chat.lines(), '\\n')
          if not text:find('Paragraph 5 ', 1, true) then return vim.NIL end
          return {
            held = require('agent.ui.chat-markdown').held(buf),
            cursor = vim.api.nvim_win_get_cursor(0)[1],
            lines = vim.api.nvim_buf_line_count(buf),
          }`),
      10_000,
      'the answer streaming',
    );
    // Streamed text is in the buffer at once, kept from the parser; the user's cursor stays put.
    expect(midway.held).toBe(true);
    expect(midway.cursor).toBe(1);
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 10_000, 'run end');
    const after = await t.lua<{ held: boolean; kinds: string[]; slots: number; chunks: number }>(`
      local buf = require('agent.ui.chat').transcript_buf()
      local parser = vim.treesitter.highlighter.active[buf].tree
      parser:parse(true)
      local kinds = {}
      for row, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        local col = line:find('bold 39', 1, true) or line:find('bold 0', 1, true)
        if col then
          local node = parser:named_node_for_range({ row - 1, col, row - 1, col + 1 }, { ignore_injections = false })
          table.insert(kinds, node and node:type() or '')
        end
      end
      -- The answer was parsed in pieces: its own chunks beside the one before it, in a fixed
      -- number of slots (a change of that number would drop every tree).
      local chunks = 0
      for _, region in pairs(parser:included_regions()) do
        if region[1][4] > region[1][1] then chunks = chunks + 1 end
      end
      return {
        held = require('agent.ui.chat-markdown').held(buf),
        kinds = kinds,
        slots = vim.tbl_count(parser:included_regions()),
        chunks = chunks,
      }`);
    expect(after.held).toBe(false);
    expect(after.slots).toBe(24);
    expect(after.chunks).toBeGreaterThanOrEqual(2);
    // The first and the last paragraph of the answer: both parsed as Markdown once it ended.
    expect(after.kinds).toEqual(['strong_emphasis', 'strong_emphasis']);
    expect(await t.lua<number>('return vim.api.nvim_win_get_cursor(0)[1]')).toBe(1);
  });
});
