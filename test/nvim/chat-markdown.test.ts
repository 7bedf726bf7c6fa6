import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, startNvim, type TestNvim, waitFor } from '../helpers/nvim.js';

/**
 * Lua for the tests below: `append(text)` writes as the chat does (text at the very end of `buf`,
 * then `md.sync`) and parses what a window shows there, with `parser` the transcript's.
 */
const APPEND = `
      local function append(text)
        local row = vim.api.nvim_buf_line_count(buf) - 1
        local col = #vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
        vim.api.nvim_buf_set_text(buf, row, col, row, col, vim.split(text, '\\n'))
        md.sync(buf)
        parser:parse({ math.max(0, row - 30), 0, row + 1, 0 })
      end`;

// The transcript's Markdown parser in chunks, driven directly: many answers streamed in many
// pieces (more than the parser has slots), a clear, and answers again.
describe(`chat Markdown chunks on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  let server: LlmServer | undefined;
  afterEach(async () => {
    await t?.close();
    await server?.close();
    t = server = undefined;
  });

  it('keeps its slots through merges and a clear, and every line ends up parsed as Markdown', async () => {
    t = await startNvim();
    const result = await t.lua<{
      steps: { slots: number; trees: number; held: boolean }[];
      before: number;
      strong: number;
      plain: string[];
    }>(`
      local md = require('agent.ui.chat-markdown')
      md.advance_ms = 0
      local buf = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_set_current_buf(buf)
      md.attach(buf)
      local parser = vim.treesitter.highlighter.active[buf].tree
      local steps = {}
      local function step()
        table.insert(steps, {
          slots = vim.tbl_count(parser:included_regions()),
          trees = vim.tbl_count(parser:trees()),
          held = md.held(buf),
        })
      end
      ${APPEND}
      local function answer(n, paragraphs)
        append('## You\\n\\nquestion ' .. n .. '\\n\\n## Agent\\n\\n')
        md.hold(buf)
        for p = 1, paragraphs do
          append('Answer ' .. n .. ' part ' .. p .. ' has **strong ' .. p .. '** ')
          append('and more words.\\n\\n')
          if p == 3 then append('\`\`\`lua\\nlocal x = 1\\n\\nprint(x)\\n\`\`\`\\n\\n') end
        end
        step()
        md.release(buf)
        append('> Done\\n\\n')
        step()
      end
      local function strong_count()
        parser:parse(true)
        local strong, plain = 0, {}
        for row, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
          local col = line:find('**strong', 1, true)
          if col then
            local node = parser:named_node_for_range({ row - 1, col + 2, row - 1, col + 3 }, { ignore_injections = false })
            if node and node:type() == 'strong_emphasis' then strong = strong + 1 else table.insert(plain, line) end
          end
        end
        return strong, plain
      end
      answer(1, 20)
      answer(2, 20)
      local before, plain_before = strong_count()
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
      md.sync(buf)
      step()
      answer(3, 5)
      local strong, plain = strong_count()
      return { steps = steps, before = before, strong = strong, plain = vim.list_extend(plain_before, plain) }`);
    // Every step: all slots present, each with a tree (a missing one would change the count at
    // the next edit and drop every tree).
    for (const s of result.steps) {
      expect(s.slots).toBe(24);
      expect(s.trees).toBe(24);
    }
    expect(result.steps.map((s) => s.held)).toEqual([true, false, true, false, false, true, false]);
    // Every paragraph parsed, before the clear (40, in more pieces than slots) and after it (5).
    expect(result.plain).toEqual([]);
    expect(result.before).toBe(40);
    expect(result.strong).toBe(5);
  });

  it('a window scrolled up while the answer streams shows its finished paragraphs parsed', async () => {
    const paragraphs = Array.from(
      { length: 300 },
      (_, i) => `Paragraph ${i} has **bold ${i}** and more words.`,
    );
    server = await startLlmServer({ turns: [{ text: paragraphs.join('\n\n'), chunkSize: 20, delayMs: 15 }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`require('agent').open(); require('agent').send('write')`);
    // Far enough that the first paragraphs became a chunk and left the screen, with seconds of
    // the answer still to come (the check below needs the text still streaming).
    await waitFor(
      () =>
        t?.lua<boolean>(
          `return table.concat(require('agent.ui.chat').lines(), '\\n'):find('Paragraph 70 ', 1, true) ~= nil`,
        ),
      15_000,
      'the answer streaming',
    );
    // The user goes to the top of the transcript; Neovim reports the scroll once idle.
    await t.lua(
      `vim.api.nvim_set_current_win(require('agent.ui.chat').transcript_win()); vim.cmd('normal! gg')`,
    );
    await new Promise((r) => setTimeout(r, 600));
    const kind = await t.lua<string>(`
      local buf = require('agent.ui.chat').transcript_buf()
      local parser = vim.treesitter.highlighter.active[buf].tree
      for row, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        local col = line:find('bold 1*', 1, true)
        if col then
          local node = parser:named_node_for_range({ row - 1, col, row - 1, col + 1 }, { ignore_injections = false })
          return (require('agent.ui.chat-markdown').held(buf) and 'held ' or 'released ') .. (node and node:type() or 'nil')
        end
      end
      return 'not found'`);
    expect(kind).toBe('held strong_emphasis');
  });

  it('parses each injection on its own on 0.11+, so Neovim only scans the rows it draws for them', async () => {
    t = await startNvim();
    const found = await t.lua<{
      runtime: number;
      chat: number[];
      inline: number[];
      conceal: { runtime: number; chat: number; captures: number[] };
    }>(`
      local buf = require('agent.ui.chat').transcript_buf()
      local parser = vim.treesitter.highlighter.active[buf].tree
      -- Patterns of a query that combine their injections (the query object is private to the tree).
      local function directives(query, name)
        local n = 0
        for _, pattern in pairs(query and query.info.patterns or {}) do
          for _, step in ipairs(pattern) do
            if step[1] == 'set!' and step[2] == name then n = n + 1 end
          end
        end
        return n
      end
      local function combined(query) return directives(query, 'injection.combined') end
      local highlights = vim.treesitter.highlighter.active[buf]:get_query('markdown'):query()
      -- Markdown's own HTML injections appear once parsed, in the inline child too.
      vim.bo[buf].modifiable = true
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, { '<div>', 'x', '</div>', '', 'a <b>b</b> **c**' })
      parser:parse(true)
      local inline = parser:children().markdown_inline
      return {
        runtime = combined(vim.treesitter.query.get('markdown', 'injections')),
        chat = { combined(parser._injection_query), #parser._injection_query.info.patterns },
        inline = { inline and combined(inline._injection_query) or -1, inline and #inline._injection_query.info.patterns or -1 },
        conceal = {
          runtime = directives(vim.treesitter.query.get('markdown', 'highlights'), 'conceal_lines'),
          chat = directives(highlights, 'conceal_lines'),
          captures = { #highlights.captures, #vim.treesitter.query.get('markdown', 'highlights').captures },
        },
      }`);
    // The runtime's query combines (the check can fail); on 0.11+ the chat's does not and keeps
    // the rest. 0.10 scans injections whole anyway and keeps the runtime's queries.
    const old = nvimVersion(nvimBinary()).startsWith('0.10');
    expect(found.runtime).toBeGreaterThan(0);
    expect(found.chat[0]).toBe(old ? found.runtime : 0);
    expect(found.chat[1]).toBeGreaterThanOrEqual(3);
    if (!old) expect(found.inline[0]).toBe(0);
    expect(found.inline[1]).toBeGreaterThanOrEqual(1);
    // Fence lines are not concealed whole (0.11+ has the directive, 0.10 does not), and the
    // highlights are otherwise the runtime's.
    if (!old) expect(found.conceal.runtime).toBeGreaterThan(0);
    expect(found.conceal.chat).toBe(0);
    expect(found.conceal.captures[0]).toBeGreaterThan(10);
    expect(found.conceal.captures[0]).toBe(found.conceal.captures[1]);
  });

  it("on 0.10, keeps each chunk's injections and finds the same ones as Neovim after edits anywhere", async () => {
    t = await startNvim();
    const found = await t.lua<{ kept: boolean; steps: { mine: string; runtime: string; count: number }[] }>(`
      local md = require('agent.ui.chat-markdown')
      md.advance_ms = 0
      local buf = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_set_current_buf(buf)
      md.attach(buf)
      local parser = vim.treesitter.highlighter.active[buf].tree
      -- 0.11+ looks injections up where it draws, and keeps its own lookup.
      if vim.fn.has('nvim-0.11') == 1 then return { kept = rawget(parser, '_get_injections') ~= nil, steps = {} } end
      local runtime = require('vim.treesitter.languagetree')._get_injections
      -- Every injection region, in one canonical order.
      local function flat(by_lang)
        local out = {}
        for lang, regions in pairs(by_lang) do
          for _, region in ipairs(regions) do
            for _, r in ipairs(region) do out[#out + 1] = lang .. ':' .. table.concat(r, ',') end
          end
        end
        table.sort(out)
        return out
      end
      local steps = {}
      local function check()
        parser:parse(true)
        local mine = flat(parser:_get_injections())
        table.insert(steps, { mine = table.concat(mine, ' '), runtime = table.concat(flat(runtime(parser)), ' '), count = #mine })
      end
      ${APPEND}
      for n = 1, 3 do
        append('## Agent\\n\\n')
        md.hold(buf)
        for p = 1, 6 do append('Part ' .. n .. '.' .. p .. ' has **strong** and \`code\`.\\n\\n') end
        append('\`\`\`lua\\nlocal x = ' .. n .. '\\n\`\`\`\\n\\n')
        md.release(buf)
        check()
      end
      -- A status icon replaced in place (same length), in the first answer.
      vim.api.nvim_buf_set_text(buf, 2, 0, 2, 4, { 'PART' })
      check()
      -- Lines inserted into the second answer: it and every answer below it move.
      local second = vim.fn.search('Part 2.3', 'n') - 1
      vim.api.nvim_buf_set_lines(buf, second, second, false, { 'New **line**.', '' })
      md.sync(buf)
      check()
      -- And some removed.
      vim.api.nvim_buf_set_lines(buf, 0, 4, false, {})
      md.sync(buf)
      check()
      return { kept = rawget(parser, '_get_injections') ~= nil, steps = steps }`);
    const old = nvimVersion(nvimBinary()).startsWith('0.10');
    expect(found.kept).toBe(old);
    expect(found.steps).toHaveLength(old ? 6 : 0);
    for (const step of found.steps) {
      expect(step.count).toBeGreaterThan(6);
      expect(step.mine).toBe(step.runtime);
    }
  });

  it("registers Markdown for the chat's filetypes and keeps its parser and keys through the user's FileType autocmds", async () => {
    t = await startNvim();
    const found = await t.lua<Record<string, unknown>>(`
      -- What a config with Treesitter on for every filetype with a parser does, and a key of the user's.
      vim.api.nvim_create_autocmd('FileType', {
        pattern = { 'agent-chat', 'agent-input', 'agent-plan' },
        callback = function(ev)
          _G.started = (_G.started or 0) + (pcall(vim.treesitter.start, ev.buf) and 1 or 0)
          vim.keymap.set('n', 'q', '<Cmd>let g:mine = 1<CR>', { buffer = ev.buf, desc = 'mine' })
        end,
      })
      require('agent').open()
      local chat = require('agent.ui.chat')
      local buf = chat.transcript_buf()
      local highlighter = vim.treesitter.highlighter.active[buf]
      local plan = vim.fn.tempname() .. '.md'
      vim.fn.writefile({ '# Plan', '', '## Tasks', '- one' }, plan)
      require('agent.ui.plan').show(plan, { on_build = function() end, on_close = function() end })
      local plan_buf = vim.api.nvim_get_current_buf()
      return {
        langs = { vim.treesitter.language.get_lang('agent-chat'), vim.treesitter.language.get_lang('agent-plan') },
        started = _G.started,
        same_parser = highlighter ~= nil and highlighter.tree == vim.treesitter.get_parser(buf),
        slots = highlighter and vim.tbl_count(highlighter.tree:included_regions()) or 0,
        plan = { vim.bo[plan_buf].filetype, vim.treesitter.highlighter.active[plan_buf] ~= nil },
        keys = {
          vim.fn.maparg('q', 'n', false, true).desc,
          vim.api.nvim_buf_call(chat.input_buf(), function() return vim.fn.maparg('q', 'n', false, true).desc end),
          vim.api.nvim_buf_call(buf, function() return vim.fn.maparg('q', 'n', false, true).desc end),
          vim.api.nvim_buf_call(buf, function() return vim.fn.maparg('?', 'n', false, true).desc end),
        },
      }`);
    expect(found).toEqual({
      langs: ['markdown', 'markdown'],
      started: 2,
      same_parser: true,
      slots: 24,
      plan: ['agent-plan', true],
      keys: ['mine', 'mine', 'mine', 'agent: keys and modes'],
    });
  });

  it('leaves a query the user set with vim.treesitter.query.set() as it is', async () => {
    t = await startNvim();
    const captures = await t.lua<number[]>(`
      vim.treesitter.query.set('markdown', 'highlights', '(atx_heading) @markup.heading')
      local buf = require('agent.ui.chat').transcript_buf()
      local query = vim.treesitter.highlighter.active[buf]:get_query('markdown'):query()
      return { #query.captures, #vim.treesitter.query.get('markdown', 'highlights').captures }`);
    expect(captures).toEqual([1, 1]);
  });
});
