import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nvimBinary, nvimVersion, startNvim, type TestNvim, waitFor } from '../helpers/nvim.js';

interface Expanded {
  text: string;
  context: string[];
  attachments: { label: string; detail: string }[];
  errors: string[];
}

const expand = (t: TestNvim, text: string, opts: Record<string, unknown> = {}) =>
  t.lua<Expanded>(`return require('agent.context').expand(...)`, [text, opts]);

/** The Neovim under test by absolute path, so it starts with an empty PATH. */
function absoluteNvim(): string {
  const bin = nvimBinary();
  if (path.isAbsolute(bin)) return bin;
  return spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).stdout.trim();
}

const context = (r: Expanded) => r.context.join('\n');

function write(t: TestNvim, rel: string, content: string | Buffer) {
  const file = path.join(t.project, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** Calls the input buffer's 'omnifunc' as Vim would: findstart 1, then 0 with the base. */
const omni = (t: TestNvim, line: string) =>
  t.lua<{ start: number; items: { word: string; menu: string }[]; ms: number }>(
    `
    local line = ...
    local buf = require('agent.ui.chat').input_buf()
    vim.api.nvim_win_set_buf(0, buf)
    -- As in Insert mode, the cursor may sit after the last character.
    vim.wo.virtualedit = 'onemore'
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { line })
    vim.api.nvim_win_set_cursor(0, { 1, #line })
    local f = vim.bo[buf].omnifunc
    local t0 = vim.uv.hrtime()
    local start = vim.fn.eval(f .. '(1, "")')
    local items = {}
    if start >= 0 then items = vim.fn.eval(string.format('%s(0, %s)', f, vim.fn.string(line:sub(start + 1)))) end
    return { start = start, items = items, ms = (vim.uv.hrtime() - t0) / 1e6 }`,
    [line],
  );

describe(`context attachments on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('@path attaches the file in a fenced block; the prompt keeps the token as typed', async () => {
    t = await startNvim();
    write(t, 'src/a.lua', 'local x = 1\nreturn x\n');
    const r = await expand(t, 'What does @src/a.lua do?');
    expect(r.text).toBe('What does @src/a.lua do?');
    expect(r.errors).toEqual([]);
    expect(r.context).toEqual(['File: src/a.lua (2 lines)', '```lua', 'local x = 1', 'return x', '```']);
    expect(r.attachments).toEqual([{ label: '@src/a.lua', detail: 'lines 1-2, 20 B' }]);
    const line = await t.lua<string>(`return require('agent.context').format_attachment(...)`, [
      r.attachments[0],
    ]);
    expect(line).toBe('@src/a.lua (lines 1-2, 20 B)');
  });

  it('@path:a-b and @path:n attach a line range; punctuation after the token is prose', async () => {
    t = await startNvim();
    write(t, 'notes.md', ['one', 'two', 'three', 'four', '```js', 'x', '```'].join('\n'));
    const r = await expand(t, 'Compare @notes.md:2-3, @notes.md:4 and @notes.md:9-12.');
    expect(r.attachments.map((a) => a.label)).toEqual(['@notes.md:2-3', '@notes.md:4']);
    // Line 0 is read as line 1, never as an empty range.
    expect((await expand(t, '@notes.md:0')).attachments[0]?.detail).toBe('line 1, 3 B');
    expect(r.attachments[0]?.detail).toBe('lines 2-3, 9 B');
    expect(context(r)).toContain('File: notes.md (lines 2-3 of 7)\n```markdown\ntwo\nthree\n```');
    expect(context(r)).toContain('File: notes.md (line 4 of 7)\n```markdown\nfour\n```');
    expect(r.errors).toEqual(['@notes.md:9-12: the file has only 7 lines']);
    // A fence inside the attached text gets a longer fence around it.
    const whole = await expand(t, '@notes.md');
    expect(whole.context[1]).toBe('````markdown');
    expect(whole.context.at(-1)).toBe('````');
  });

  it('uses the unsaved text of a modified buffer', async () => {
    t = await startNvim();
    write(t, 'a.c', 'puts("on disk");\n');
    await t.lua(`
      vim.cmd('edit a.c')
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'puts("unsaved");', 'int x = 2;' })`);
    const r = await expand(t, 'fix @a.c');
    expect(context(r)).toContain('```c\nputs("unsaved");\nint x = 2;\n```');
    expect(context(r)).not.toContain('on disk');
    expect(r.context[0]).toBe('File: a.c (2 lines, unsaved changes in the editor)');
    expect(r.attachments[0]?.detail).toMatch(/unsaved$/);
  });

  it('refuses paths outside the project, through .. , absolute paths and links', async () => {
    t = await startNvim();
    fs.writeFileSync(path.join(t.dir, 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(t.dir, 'secret.txt'), path.join(t.project, 'link.txt'));
    write(t, 'inside.txt', 'fine\n');
    const r = await expand(
      t,
      `@../secret.txt @${path.join(t.dir, 'secret.txt')} @link.txt @sub/../inside.txt @${path.join(t.project, 'inside.txt')}`,
    );
    expect(r.errors).toHaveLength(3);
    expect(r.errors[0]).toMatch(
      /^@\.\.\/secret\.txt: outside the project; only files under .+ can be attached$/,
    );
    expect(r.errors[1]).toContain('outside the project');
    expect(r.errors[2]).toBe('@link.txt: links outside the project; not attached');
    expect(context(r)).not.toContain('secret');
    expect(r.attachments.map((a) => a.detail)).toEqual(['line 1, 4 B', 'line 1, 4 B']);
  });

  it('refuses binary files, caps large files with a note, and names unknown files', async () => {
    t = await startNvim();
    write(
      t,
      'logo.png',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    );
    const line = `${'x'.repeat(99)}\n`;
    write(t, 'big.txt', line.repeat(3000)); // 300,000 bytes
    const r = await expand(t, 'look at @logo.png and @big.txt and @nope.ts');
    expect(r.errors).toEqual([
      '@logo.png: is a binary file; not attached',
      '@nope.ts: no such file in the project',
    ]);
    expect(r.attachments).toHaveLength(1);
    const big = r.attachments[0];
    expect(big?.label).toBe('@big.txt');
    expect(big?.detail).toMatch(/^lines 1-2621, 256\.0 KiB, cut at 256\.0 KiB$/);
    expect(r.context[0]).toBe('File: big.txt (lines 1-2621 of a longer file)');
    expect(r.context.at(-1)).toBe('(Cut at 256.0 KiB of 293.0 KiB; read the rest with read_file.)');
    const bytes = r.context.join('\n').length;
    expect(bytes).toBeLessThan(256 * 1024 + 200);
    // A range past the cap is still read, from the whole file.
    const tail = await expand(t, '@big.txt:2999-3000');
    expect(tail.attachments[0]?.detail).toBe('lines 2999-3000, 199 B');
    // The per-attachment cap is an option.
    const small = await expand(t, '@big.txt', { max_bytes: 1000 });
    expect(small.attachments[0]?.detail).toBe('lines 1-10, 999 B, cut at 1000 B');
  });

  it('does not take # or @ in code spans, fences, emails or unknown words as tokens', async () => {
    t = await startNvim();
    write(t, 'a.txt', 'a\n');
    const prompt = [
      'Mail me@example.com about `#buffer` and ``@a.txt``; #include <x> and issue #12.',
      '```',
      '#quickfix @a.txt',
      '```',
      '# A heading',
      '(@a.txt)',
    ].join('\n');
    const tokens = await t.lua<{ raw: string }[]>(`return require('agent.context').tokens(...)`, [prompt]);
    expect(tokens.map((x) => x.raw)).toEqual(['@a.txt']);
    const r = await expand(t, prompt);
    expect(r.errors).toEqual([]);
    expect(r.attachments.map((a) => a.label)).toEqual(['@a.txt']);
  });

  it('#buffer attaches the origin buffer; #buffer:name a listed one, with unsaved text', async () => {
    t = await startNvim();
    write(t, 'src/one.ts', 'export const one = 1;\n');
    write(t, 'src/two.ts', 'export const two = 2;\n');
    write(t, 'test/two.ts', 'test two\n');
    const origin = await t.lua<number>(`
      vim.cmd('edit src/two.ts | edit test/two.ts | edit src/one.ts')
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'export const one = 11;' })
      return vim.api.nvim_get_current_buf()`);
    const r = await expand(t, '#buffer and #buffer:src/two.ts, #buffer:two.ts #buffer:zzz', {
      origin_buf: origin,
    });
    expect(r.attachments).toEqual([
      { label: '#buffer', detail: 'src/one.ts, lines 1-1, 22 B, unsaved' },
      { label: '#buffer:src/two.ts', detail: 'src/two.ts, lines 1-1, 21 B' },
    ]);
    expect(context(r)).toContain(
      'Buffer: src/one.ts (1 line, unsaved changes in the editor)\n```typescript\nexport const one = 11;\n```',
    );
    expect(r.errors).toEqual([
      '#buffer:two.ts: matches several buffers (src/two.ts, test/two.ts); give more of the name',
      '#buffer:zzz: no open buffer matches',
    ]);
    // Without origin_buf: the most recent buffer holding the user's text.
    const fallback = await expand(t, '#buffer');
    expect(fallback.attachments[0]?.detail).toMatch(/^src\/one\.ts/);
  });

  it('#selection attaches the last visual selection, linewise and charwise', async () => {
    t = await startNvim();
    write(t, 'sum.lua', 'local x = 1\nlocal function add(a, b)\n  return a + b\nend\n');
    const origin = await t.lua<number>(`
      vim.cmd('edit sum.lua')
      vim.cmd([[exe "normal! 2GVj\\<Esc>"]])
      return vim.api.nvim_get_current_buf()`);
    const lines = await expand(t, 'explain #selection', { origin_buf: origin });
    expect(lines.errors).toEqual([]);
    expect(context(lines)).toBe(
      'Selected lines 2-3 of sum.lua:\n```lua\nlocal function add(a, b)\n  return a + b\n```',
    );
    expect(lines.attachments[0]).toEqual({ label: '#selection', detail: 'sum.lua lines 2-3, 39 B' });
    await t.lua(`vim.cmd([[exe "normal! 2G0wwve\\<Esc>"]])`);
    const word = await expand(t, '#selection', { origin_buf: origin });
    expect(context(word)).toBe('Selected line 2 of sum.lua:\n```lua\nadd\n```');
    await t.lua(`vim.cmd([[exe "normal! 2G0wwvj\\<Esc>"]])`);
    const chars = await expand(t, '#selection', { origin_buf: origin });
    expect(context(chars)).toBe('Selected lines 2-3 of sum.lua:\n```lua\nadd(a, b)\n  return a + b\n```');
    const none = await t.lua<number>(`vim.cmd('enew'); return vim.api.nvim_get_current_buf()`);
    const missing = await expand(t, '#selection', { origin_buf: none });
    expect(missing.errors[0]).toMatch(/^#selection: no visual selection in /);
  });

  it('#diagnostics attaches the origin buffer diagnostics, #diagnostics:all every buffer', async () => {
    t = await startNvim();
    write(t, 'a.lua', 'print(x)\nlocal y\n');
    write(t, 'b.lua', 'return z\n');
    const origin = await t.lua<number>(`
      local ns = vim.api.nvim_create_namespace('test')
      vim.cmd('edit b.lua')
      vim.diagnostic.set(ns, 0, { { lnum = 0, col = 7, message = 'undefined z', severity = vim.diagnostic.severity.WARN } })
      vim.cmd('edit a.lua')
      vim.diagnostic.set(ns, 0, {
        { lnum = 1, col = 6, message = 'unused y', severity = vim.diagnostic.severity.HINT, source = 'lua_ls' },
        { lnum = 0, col = 6, message = 'undefined x', severity = vim.diagnostic.severity.ERROR, source = 'lua_ls', code = 'undefined-global' },
      })
      return vim.api.nvim_get_current_buf()`);
    const r = await expand(t, 'fix #diagnostics', { origin_buf: origin });
    expect(r.attachments).toEqual([{ label: '#diagnostics', detail: 'a.lua, 1 error, 1 hint' }]);
    expect(r.context).toEqual([
      'Diagnostics for a.lua (1 error, 1 hint):',
      '```text',
      'a.lua:1:7: error: undefined x [lua_ls undefined-global]',
      '  1 | print(x)',
      'a.lua:2:7: hint: unused y [lua_ls]',
      '  2 | local y',
      '```',
    ]);
    const all = await expand(t, '#diagnostics:all', { origin_buf: origin });
    expect(all.attachments[0]?.detail).toBe('all buffers, 1 error, 1 warning, 1 hint');
    expect(context(all)).toContain('b.lua:1:8: warning: undefined z');
    const bad = await expand(t, '#diagnostics:mine', { origin_buf: origin });
    expect(bad.errors).toEqual(['#diagnostics:mine: use #diagnostics (this buffer) or #diagnostics:all']);
  });

  it('#quickfix attaches the entries with their text', async () => {
    t = await startNvim();
    write(t, 'a.c', 'int main() {}\n');
    const empty = await expand(t, '#quickfix');
    expect(empty.errors).toEqual(['#quickfix: the quickfix list is empty']);
    await t.lua(`
      vim.fn.setqflist({
        { filename = 'a.c', lnum = 1, col = 5, type = 'E', text = 'expected ;' },
        { text = 'make: *** [all] Error 1' },
      }, 'r')
      vim.fn.setqflist({}, 'a', { title = 'make' })`);
    const r = await expand(t, 'why does #quickfix fail?');
    expect(r.attachments).toEqual([{ label: '#quickfix', detail: '2 entries' }]);
    expect(r.context).toEqual([
      'Quickfix list "make" (2 entries):',
      '```text',
      'a.c:1:5: E: expected ;',
      'make: *** [all] Error 1',
      '```',
    ]);
  });

  it('omnifunc completes project files after @ (.gitignore respected) and tokens after #', async () => {
    t = await startNvim();
    write(t, '.gitignore', 'build/\n');
    write(t, 'src/main.ts', '');
    write(t, 'src/util.ts', '');
    write(t, 'build/out.js', '');
    write(t, 'README.md', '');
    write(t, 'my notes.md', ''); // a token ends at whitespace: never offered
    await t.lua(`
      vim.cmd('edit src/util.ts')
      local buf = require('agent.ui.chat').input_buf()
      require('agent.context').attach(buf)
      vim.api.nvim_win_set_buf(0, buf)`);
    expect(await t.lua<string>(`return vim.bo[require('agent.ui.chat').input_buf()].omnifunc`)).toBe(
      "v:lua.require'agent.context'.omnifunc",
    );
    await waitFor(
      () => t?.lua<boolean>(`return require('agent.context.files').get() ~= nil`),
      10_000,
      'file list',
    );
    const all = await omni(t, 'see @');
    expect(all.start).toBe(5);
    expect(all.items.map((i) => i.word)).toEqual(['.gitignore', 'README.md', 'src/main.ts', 'src/util.ts']);
    const some = await omni(t, 'see @src/ma');
    expect(some.items.map((i) => i.word)).toEqual(['src/main.ts']);
    expect(some.items[0]?.menu).toBe('[file]');
    const hash = await omni(t, '#');
    expect(hash.start).toBe(1);
    expect(hash.items.map((i) => i.word)).toEqual([
      'buffer',
      'selection',
      'diagnostics',
      'diagnostics:all',
      'quickfix',
      'buffer:src/util.ts',
    ]);
    const diag = await omni(t, 'x #diag');
    expect(diag.items.map((i) => i.word)).toEqual(['diagnostics', 'diagnostics:all']);
    // Not after an email's @ or inside a word.
    expect((await omni(t, 'me@exa')).start).toBe(-3);
    expect((await omni(t, 'plain words')).start).toBe(-3);
  });

  it('produces the file list of a 2,000-file project without blocking the omnifunc', async () => {
    t = await startNvim();
    for (let d = 0; d < 40; d++) {
      const dir = path.join(t.project, `pkg${String(d).padStart(2, '0')}`);
      fs.mkdirSync(dir);
      for (let f = 0; f < 50; f++)
        fs.writeFileSync(path.join(dir, `file${String(f).padStart(2, '0')}.ts`), '');
    }
    await t.lua(`require('agent.context').attach(require('agent.ui.chat').input_buf())`);
    // Asked at once: nothing is ready yet, and the call does not wait for the list.
    const first = await omni(t, '@pkg07/file3');
    expect(first.ms).toBeLessThan(50);
    await waitFor(
      () => t?.lua<boolean>(`return (#(require('agent.context.files').get() or {})) == 2000`),
      10_000,
      'file list',
    );
    const ready = await omni(t, '@pkg07/file3');
    expect(ready.ms, `${ready.ms} ms`).toBeLessThan(50);
    expect(ready.items[0]?.word).toMatch(/^pkg07\/file3\d\.ts$/);
    expect(ready.items.map((i) => i.word)).toContain('pkg07/file39.ts');
    const everything = await omni(t, '@');
    expect(everything.ms, `${everything.ms} ms`).toBeLessThan(50);
    expect(everything.items).toHaveLength(200);
  });

  it('<C-x><C-o> typed before the file list is ready shows the menu once it arrives', async () => {
    t = await startNvim();
    write(t, 'pkg/file1.ts', '');
    write(t, 'pkg/file2.ts', '');
    await t.lua(`
      -- Hold the lister back, as a slow disk would.
      local real = vim.system
      vim.system = function(cmd, opts, on_exit)
        vim.defer_fn(function() real(cmd, opts, on_exit) end, 300)
        return { kill = function() end }
      end
      local buf = require('agent.ui.chat').input_buf()
      vim.api.nvim_win_set_buf(0, buf)
      require('agent.context').attach(buf)
      vim.system = real`);
    await t.nvim.input('isee @pkg/fi<C-x><C-o>');
    expect(await t.lua<boolean>(`return require('agent.context.files').pending()`)).toBe(true);
    const words = await waitFor(
      async () => {
        const info = await t?.lua<{ items: { word: string }[] }>(`return vim.fn.complete_info({ 'items' })`);
        return info && info.items.length > 0 ? info.items.map((i) => i.word) : undefined;
      },
      5000,
      'completion menu',
    );
    expect(words).toEqual(['pkg/file1.ts', 'pkg/file2.ts']);
    await t.nvim.input('<C-y><Esc>');
    expect(await t.lua<string>(`return vim.api.nvim_get_current_line()`)).toBe('see @pkg/file1.ts');
  });

  it('without rg or git, walks the tree in slices', async () => {
    const emptyBin = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-empty-bin-'));
    try {
      t = await startNvim({ bin: absoluteNvim(), env: { PATH: emptyBin } });
      write(t, 'a/b/c.txt', '');
      write(t, 'node_modules/x/index.js', '');
      write(t, 'top.md', '');
      await t.lua(`require('agent.context').attach(require('agent.ui.chat').input_buf())`);
      const files = await waitFor(
        () => t?.lua<string[] | null>(`return require('agent.context.files').get()`),
        10_000,
        'file list',
      );
      expect(files).toEqual(['a/b/c.txt', 'top.md']);
    } finally {
      fs.rmSync(emptyBin, { recursive: true, force: true });
    }
  });

  it('attaches each token once and stops at the total budget', async () => {
    t = await startNvim();
    write(t, 'a.txt', `${'a'.repeat(600)}\n`);
    write(t, 'b.txt', `${'b'.repeat(600)}\n`);
    const r = await expand(t, '@a.txt @a.txt @b.txt', { max_total_bytes: 1000 });
    expect(r.attachments.map((a) => a.label)).toEqual(['@a.txt']);
    expect(r.errors).toEqual(['@b.txt: not attached: the attachments of this message reach 1000 B']);
  });

  it('registers with nvim-cmp and blink.cmp only when they are loaded', async () => {
    t = await startNvim();
    const got = await t.lua<Record<string, unknown>>(`
      local calls = {}
      local buf = require('agent.ui.chat').input_buf()
      require('agent.context').attach(buf)
      calls.none = package.loaded['cmp'] == nil and package.loaded['blink.cmp'] == nil
      package.loaded['cmp'] = {
        register_source = function(name, source) calls.cmp = { name = name, triggers = source:get_trigger_characters() } end,
        get_config = function() return { sources = { { name = 'buffer' } } } end,
        setup = { buffer = function(cfg) calls.cmp_buffer = { buf = vim.api.nvim_get_current_buf(), sources = cfg.sources } end },
      }
      package.loaded['blink.cmp'] = {
        add_source_provider = function(id, cfg) calls.blink = { id = id, module = cfg.module } end,
        add_filetype_source = function(ft, id) calls.blink_ft = { ft = ft, id = id } end,
      }
      local other = vim.api.nvim_create_buf(true, false)
      vim.api.nvim_set_current_buf(other)
      require('agent.context').attach(buf)
      calls.input = buf
      package.loaded['cmp'], package.loaded['blink.cmp'] = nil, nil
      return calls`);
    expect(got.none).toBe(true);
    expect(got.cmp).toEqual({ name: 'agent', triggers: ['@', '#'] });
    expect(got.cmp_buffer).toEqual({ buf: got.input, sources: [{ name: 'agent' }, { name: 'buffer' }] });
    expect(got.blink).toEqual({ id: 'agent', module: 'agent.context.blink' });
    expect(got.blink_ft).toEqual({ ft: 'agent-input', id: 'agent' });
  });

  it('offers the same candidates to nvim-cmp and blink.cmp sources', async () => {
    t = await startNvim();
    write(t, 'lib/a.ts', '');
    const got = await t.lua<Record<string, unknown>>(`
      local ctx = require('agent.context')
      local buf = require('agent.ui.chat').input_buf()
      vim.api.nvim_win_set_buf(0, buf)
      local cmp = ctx.cmp_source()
      local blink = require('agent.context.blink').new({})
      local out = {
        cmp_available = cmp:is_available(),
        cmp_triggers = cmp:get_trigger_characters(),
        blink_enabled = blink:enabled(),
        blink_triggers = blink:get_trigger_characters(),
        cmp_loaded = package.loaded['cmp'] ~= nil or package.loaded['blink.cmp'] ~= nil,
      }
      cmp:complete({ context = { cursor_before_line = 'x #sel' } }, function(r) out.cmp_hash = r end)
      cmp:complete({ context = { cursor_before_line = 'a@b' } }, function(r) out.cmp_none = r end)
      blink:get_completions({ line = 'see @lib', cursor = { 1, 8 } }, function(r) out.blink_file = r end)
      vim.wait(5000, function() return out.blink_file ~= nil end)
      return out`);
    expect(got.cmp_available).toBe(true);
    expect(got.blink_enabled).toBe(true);
    expect(got.cmp_triggers).toEqual(['@', '#']);
    expect(got.blink_triggers).toEqual(['@', '#']);
    expect(got.cmp_loaded).toBe(false);
    expect(got.cmp_hash).toMatchObject({
      items: [{ label: 'selection', insertText: 'selection', kind: 14 }],
    });
    expect(got.cmp_none).toEqual({ items: [], isIncomplete: false });
    expect(got.blink_file).toMatchObject({
      is_incomplete_forward: false,
      items: [
        {
          label: 'lib/a.ts',
          kind: 17,
          textEdit: {
            newText: 'lib/a.ts',
            range: { start: { line: 0, character: 5 }, end: { line: 0, character: 8 } },
          },
        },
      ],
    });
  });
});
