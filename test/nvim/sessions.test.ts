import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, startNvim, type TestNvim, transcript, waitFor } from '../helpers/nvim.js';

/**
 * Replaces `vim.ui.select` with a stub: each call records its prompt and labels (`format_item`
 * when given) in `_G.menus`, and picks the first item whose label contains the next of `picks`
 * (cancels when none is left or none matches). Session items' ids go to `_G.chosen`.
 */
function stubSelect(t: TestNvim, picks: string[]): Promise<unknown> {
  return t.lua(
    `
    local picks = ...
    _G.menus, _G.chosen = {}, {}
    vim.ui.select = function(items, opts, cb)
      local labels = vim.tbl_map(function(item)
        return opts.format_item and opts.format_item(item) or tostring(item)
      end, items)
      table.insert(_G.menus, { prompt = opts.prompt, labels = labels })
      local want = table.remove(picks, 1)
      for i, label in ipairs(labels) do
        if want and label:find(want, 1, true) then
          if type(items[i]) == 'table' then table.insert(_G.chosen, items[i].id) end
          return cb(items[i], i)
        end
      end
      cb(nil)
    end`,
    [picks],
  );
}

interface Menu {
  prompt: string;
  labels: string[];
}

/** The menus shown so far, once there are `count` of them. */
function menus(t: TestNvim, count: number, what: string): Promise<Menu[]> {
  return waitFor(
    async () => {
      const shown = await t.lua<Menu[]>('return _G.menus');
      return shown.length >= count ? shown : undefined;
    },
    5000,
    what,
  );
}

/** The labels of a fresh `:Agent sessions` listing (picking nothing). */
async function listing(t: TestNvim): Promise<string[]> {
  await stubSelect(t, []);
  await t.nvim.command('Agent sessions');
  return (await menus(t, 1, 'session list'))[0]?.labels ?? [];
}

/** Files under `dir` (relative paths, recursively). */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

describe(`sessions on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  let server: LlmServer | undefined;
  let shared: string | undefined;
  afterEach(async () => {
    await t?.close();
    await server?.close();
    if (shared) fs.rmSync(shared, { recursive: true, force: true });
    t = server = shared = undefined;
  });

  it('after a restart, :Agent resume brings back the transcript and the conversation; undo works too', async () => {
    shared = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-resume-'));
    const project = path.join(shared, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'a.txt'), 'before\n');
    server = await startLlmServer(
      {
        turns: [
          {
            text: 'Changing a.txt.',
            toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'after\n' } }],
          },
          { text: 'Changed it.' },
          { text: 'You asked me to change a.txt.' },
        ],
      },
      { sessionTitle: 'Change a text file' },
    );
    const env = {
      AGENT_NVIM_BASE_URL: server.url,
      AGENT_NVIM_MODEL: 'm',
      XDG_DATA_HOME: path.join(shared, 'data'),
    };
    t = await startNvim({ env, cwd: project });
    await t.lua(
      `require('agent').setup({ auto_approve = 'edits' }); require('agent').send('change a.txt', { mode = 'agent' })`,
    );
    await waitFor(async () => (await transcript(t as TestNvim)).includes('Changed it.'), 10_000, 'first run');
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('after\n');
    // The model's title arrives in the background after the first turn.
    const metas = () =>
      fs
        .readdirSync(path.join(shared as string, 'data'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.meta.json'))
        .map((f) => fs.readFileSync(path.join(shared as string, 'data', f), 'utf8'));
    await waitFor(() => metas().some((m) => m.includes('Change a text file')), 5000, 'model title');
    await t.close();

    t = await startNvim({ env, cwd: project });
    await t.nvim.command('Agent resume');
    const restored = await waitFor(
      async () => {
        const s = await transcript(t as TestNvim);
        return s.includes('Changed it.') ? s : undefined;
      },
      10_000,
      'restored transcript',
    );
    expect(restored).toContain('change a.txt');
    expect(restored).toMatch(/✓ write_file a\.txt/);
    expect(await t.lua<string>(`return require('agent').status().mode`)).toBe('agent');
    await t.lua(`require('agent').send('what did I ask?')`);
    await waitFor(
      async () => (await transcript(t as TestNvim)).includes('You asked me'),
      10_000,
      'answer after resume',
    );
    expect(JSON.stringify(server.modelRequests()[2]?.body)).toContain('change a.txt');
    // The listing's sizes are saved when the run ends, after its last text is drawn.
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 5000, 'run end');

    await t.lua(`
      _G.picked = nil
      vim.ui.select = function(items, opts, cb) _G.picked = vim.tbl_map(opts.format_item, items); cb(nil) end
      vim.cmd('Agent sessions')`);
    const listed = await waitFor(
      () => t?.lua<string[] | null>('return _G.picked or vim.NIL'),
      5000,
      'session list',
    );
    expect(listed).toHaveLength(1);
    // The model titled the session after its first turn.
    // Date, title, mode, model and size (messages and bytes of the log).
    expect(listed[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d {2}Change a text file {2}agent · env\/m · 5 messages, \d+ KB \(open\)$/,
    );
    // Rename through the picker's actions; the list then shows the new title.
    await t.lua(`
      local step = 0
      vim.ui.select = function(items, _, cb)
        step = step + 1
        if step == 1 then cb(items[1]) elseif step == 2 then cb('Rename') end
      end
      _G.renamed = false
      vim.ui.input = function(_, cb) cb('renamed chat'); _G.renamed = true end
      vim.cmd('Agent sessions')`);
    // The picker answers asynchronously: wait until the rename was typed before listing again.
    await waitFor(() => t?.lua<boolean>('return _G.renamed'), 5000, 'rename typed');
    await waitFor(
      async () => {
        await t?.lua(`
          _G.picked = nil
          vim.ui.select = function(items, opts, cb) _G.picked = vim.tbl_map(opts.format_item, items); cb(nil) end
          vim.cmd('Agent sessions')`);
        const list = await waitFor(
          () => t?.lua<string[] | null>('return _G.picked or vim.NIL'),
          5000,
          'list again',
        );
        return list[0]?.includes('renamed chat');
      },
      5000,
      'renamed',
    );

    // Undo reaches back to the run before the restart.
    await t.nvim.command('Agent undo');
    await waitFor(() => fs.readFileSync(path.join(project, 'a.txt'), 'utf8') === 'before\n', 5000, 'undo');
  });

  it('kill -9 of the host mid-run, then resume: everything committed is back and the chat goes on', async () => {
    server = await startLlmServer({
      turns: [
        { text: 'First answer.' },
        { text: 'this never finishes', hang: true, done: false, finishReason: null, usageChunk: 'never' },
        { text: 'Back again.' },
      ],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`require('agent').send('first question')`);
    await waitFor(
      async () => (await transcript(t as TestNvim)).includes('First answer.'),
      10_000,
      'first answer',
    );
    await waitFor(
      () => t?.lua<boolean>(`return not require('agent').status().running`),
      5000,
      'first run end',
    );
    await t.lua(`require('agent').send('second question')`);
    await waitFor(async () => (await transcript(t as TestNvim)).includes('this never'), 10_000, 'streaming');
    const pid = await t.lua<number>(`return require('agent.rpc').host_info().pid`);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 5000, 'run failed');
    await t.lua(`require('agent').clear()`);
    await t.nvim.command('Agent resume');
    const restored = await waitFor(
      async () => {
        const s = await transcript(t as TestNvim);
        return s.includes('First answer.') ? s : undefined;
      },
      10_000,
      'restored',
    );
    // The answer in flight was never committed; both questions were.
    expect(restored).toContain('first question');
    expect(restored).toContain('second question');
    expect(restored).not.toContain('this never finishes');
    await t.lua(`require('agent').send('still there?')`);
    await waitFor(
      async () => (await transcript(t as TestNvim)).includes('Back again.'),
      10_000,
      'answer after resume',
    );
    const last = JSON.stringify(server.modelRequests().at(-1)?.body);
    expect(last).toContain('first question');
    expect(last).toContain('First answer.');
  });
  /**
   * Two saved chats of one project in one Neovim: "alpha question" (older, answered "Alpha
   * answer.") and "beta question" (open, answered "Beta answer."), titled from their prompts.
   * `more` are the scripted turns after those two.
   */
  async function twoSessions(more: { text: string }[] = []): Promise<TestNvim> {
    server = await startLlmServer({ turns: [{ text: 'Alpha answer.' }, { text: 'Beta answer.' }, ...more] });
    const nvim = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    t = nvim;
    await nvim.lua(`require('agent').setup({ titles = 'heuristic' })`);
    for (const [prompt, answer] of [
      ['alpha question', 'Alpha answer.'],
      ['beta question', 'Beta answer.'],
    ] as const) {
      await nvim.lua(`require('agent').clear(); require('agent').send(...)`, [prompt]);
      await waitFor(async () => (await transcript(nvim)).includes(answer), 10_000, answer);
      await waitFor(
        () => nvim.lua<boolean>(`return not require('agent').status().running`),
        5000,
        `${prompt} run end`,
      );
    }
    const labels = await listing(nvim);
    expect(labels).toHaveLength(2);
    // Latest first; the open one is marked.
    expect(labels[0]).toMatch(/ {2}beta question {2}.*\(open\)$/);
    expect(labels[1]).toMatch(/ {2}alpha question {2}.*2 messages, \d+ KB$/);
    return nvim;
  }

  it('picking an older session and "Resume" shows its transcript and the next prompt continues it', async () => {
    const nvim = await twoSessions([{ text: 'Gamma answer.' }]);
    await stubSelect(nvim, ['alpha question', 'Resume']);
    await nvim.nvim.command('Agent sessions');
    const shown = await menus(nvim, 2, 'action menu');
    expect(shown[1]).toEqual({
      prompt: 'alpha question',
      labels: ['Resume', 'Rename', 'Export to Markdown', 'Delete'],
    });
    const restored = await waitFor(
      async () => {
        const s = await transcript(nvim);
        return s.includes('Alpha answer.') ? s : undefined;
      },
      5000,
      'restored transcript',
    );
    expect(restored).toContain('alpha question');
    expect(restored).not.toContain('beta');

    await nvim.lua(`require('agent').send('what came before?')`);
    await waitFor(
      async () => (await transcript(nvim)).includes('Gamma answer.'),
      10_000,
      'answer after resume',
    );
    const body = JSON.stringify(server?.modelRequests().at(-1)?.body);
    expect(body).toContain('alpha question');
    expect(body).toContain('Alpha answer.');
    expect(body).toContain('what came before?');
    expect(body).not.toContain('beta');
    await waitFor(
      () => nvim.lua<boolean>(`return not require('agent').status().running`),
      5000,
      'run end after resume',
    );
    // The turn went into the resumed session, not a new one: it is now the latest and open.
    const after = await listing(nvim);
    expect(after).toHaveLength(2);
    expect(after[0]).toMatch(/ {2}alpha question {2}.*4 messages, \d+ KB \(open\)$/);
    expect(after[1]).toMatch(/ {2}beta question {2}/);
  });

  it('"Delete" in the picker asks first, then removes the session from the list and its files from disk', async () => {
    const nvim = await twoSessions();
    const data = path.join(nvim.dir, 'data');
    // "Keep it" leaves the session alone.
    await stubSelect(nvim, ['alpha question', 'Delete', 'Keep it']);
    await nvim.nvim.command('Agent sessions');
    const asked = await menus(nvim, 3, 'confirmation');
    expect(asked[2]).toEqual({ prompt: 'Delete "alpha question"?', labels: ['Delete it', 'Keep it'] });
    const id = (await nvim.lua<string[]>('return _G.chosen'))[0] as string;
    expect(id).toMatch(/^[a-z0-9]+-[0-9a-f]+$/);
    const ofId = () => filesUnder(data).filter((f) => f.includes(id));
    expect(ofId().some((f) => f.endsWith(`${id}.jsonl`))).toBe(true);
    expect(ofId().some((f) => f.endsWith(`${id}.meta.json`))).toBe(true);
    expect(await listing(nvim)).toHaveLength(2);

    await stubSelect(nvim, ['alpha question', 'Delete', 'Delete it']);
    await nvim.nvim.command('Agent sessions');
    await menus(nvim, 3, 'confirmation');
    expect(await nvim.lua<string[]>('return _G.chosen')).toEqual([id]);
    await waitFor(() => ofId().length === 0, 5000, `files of ${id} removed`);
    const left = await listing(nvim);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/ {2}beta question {2}.*\(open\)$/);
    // The listing's cache forgot it too.
    const caches = filesUnder(data).filter((f) => f.endsWith('index.json'));
    for (const f of caches) expect(fs.readFileSync(path.join(data, f), 'utf8')).not.toContain(id);
  });

  it('deleting the open session starts the chat over: nothing of it is shown or sent again', async () => {
    const nvim = await twoSessions([{ text: 'Fresh answer.' }]);
    await stubSelect(nvim, ['beta question', 'Delete', 'Delete it']);
    await nvim.nvim.command('Agent sessions');
    await waitFor(
      async () => (await transcript(nvim)).includes('The open chat was deleted'),
      5000,
      'the chat starting over',
    );
    expect(await transcript(nvim)).not.toContain('beta');
    await nvim.lua(`require('agent').send('more')`);
    await waitFor(async () => (await transcript(nvim)).includes('Fresh answer.'), 10_000, 'next answer');
    const body = JSON.stringify(server?.modelRequests().at(-1)?.body);
    expect(body).toContain('more');
    expect(body).not.toContain('beta question');
    await waitFor(() => nvim.lua<boolean>(`return not require('agent').status().running`), 5000, 'run end');
    const left = await listing(nvim);
    expect(left).toHaveLength(2);
    expect(left[0]).toMatch(/ {2}more {2}.*2 messages, \d+ KB \(open\)$/);
    expect(left[1]).toMatch(/ {2}alpha question {2}/);
  });

  it('"Export to Markdown" in the picker shows the chosen session as Markdown; :Agent export {file} writes it', async () => {
    const nvim = await twoSessions();
    await stubSelect(nvim, ['alpha question', 'Export to Markdown']);
    await nvim.nvim.command('Agent sessions');
    await menus(nvim, 2, 'action menu');
    // The picker asks for no file: the Markdown opens in a new tab.
    await waitFor(() => nvim.lua<boolean>(`return vim.fn.tabpagenr('$') == 2`), 5000, 'export tab');
    const tab = await nvim.lua<{ ft: string; text: string }>(
      `return { ft = vim.bo.filetype, text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n') }`,
    );
    expect(tab.ft).toBe('markdown');
    expect(tab.text).toMatch(/^# alpha question\n/);
    expect(tab.text).toContain('## User\n\nalpha question');
    expect(tab.text).toMatch(/\n## Assistant \([^)]+\)\n\nAlpha answer\.\n/);
    // The chosen session, not the open one.
    expect(tab.text).not.toContain('beta');

    // With a file, the open session is written there and the path reported.
    const file = path.join(nvim.project, 'chat.md');
    await nvim.lua(
      `
      _G.notes = {}
      vim.notify = function(msg) table.insert(_G.notes, msg) end
      require('agent').export(...)`,
      [file],
    );
    const written = await waitFor(
      () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined),
      5000,
      'exported file',
    );
    expect(written).toMatch(/^# beta question\n/);
    expect(written).toContain('## User\n\nbeta question');
    expect(written).toMatch(/\n## Assistant \([^)]+\)\n\nBeta answer\.\n/);
    expect(written).not.toContain('alpha');
    expect(await nvim.lua<string[]>('return _G.notes')).toContain(`agent: session exported to ${file}`);

    // Exporting over an existing file asks first; "Keep it" leaves it.
    fs.writeFileSync(file, 'my notes\n');
    await stubSelect(nvim, ['Keep it']);
    await nvim.lua(`require('agent').export(...)`, [file]);
    const asked = await menus(nvim, 1, 'overwrite question');
    expect(asked[0]?.labels).toEqual(['Overwrite it', 'Keep it']);
    expect(fs.readFileSync(file, 'utf8')).toBe('my notes\n');
    await stubSelect(nvim, ['Overwrite it']);
    await nvim.lua(`require('agent').export(...)`, [file]);
    await waitFor(() => fs.readFileSync(file, 'utf8').startsWith('# beta question'), 5000, 'overwritten');
  });
});
