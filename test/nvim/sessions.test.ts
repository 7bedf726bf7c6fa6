import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, startNvim, type TestNvim, transcript, waitFor } from '../helpers/nvim.js';

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
});
