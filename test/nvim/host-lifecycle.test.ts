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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const hostPid = async (t: TestNvim) =>
  waitFor(
    () => t.lua<number | null>(`local i = require('agent.rpc').host_info(); return i and i.pid or vim.NIL`),
    10_000,
    'host ready',
  );

describe(`host lifecycle on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  let server: LlmServer | undefined;
  afterEach(async () => {
    await t?.close();
    await server?.close();
    t = server = undefined;
  });

  it('a crash shows one message with the log path; the next command starts a fresh host', async () => {
    server = await startLlmServer({ turns: [{ text: 'after the crash' }] });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url } });
    await t.lua(`require('agent').open()`);
    const pid = await hostPid(t);
    process.kill(pid, 'SIGKILL');
    await waitFor(
      async () => (await messages(t as TestNvim)).includes('the host exited'),
      5000,
      'crash message',
    );
    const log = await t.lua<string>(`return require('agent.rpc').log_path()`);
    const shown = await messages(t);
    expect(shown.split('\n').filter((l) => l.includes('agent:'))).toEqual([
      `agent: the host exited (code 137); the next command starts a new one. Log: ${log}`,
    ]);
    await t.nvim.command('AgentChat hello again');
    const next = await hostPid(t);
    expect(next).not.toBe(pid);
    await waitFor(
      async () =>
        (await t?.lua<string>(`return table.concat(require('agent.ui.chat').lines(), '\\n')`))?.includes(
          'after the crash',
        ),
      10_000,
      'reply from the new host',
    );
  });

  it('exits cleanly when Neovim quits', async () => {
    t = await startNvim();
    await t.lua(`require('agent').open()`);
    const pid = await hostPid(t);
    expect(alive(pid)).toBe(true);
    const log = await t.lua<string>(`return require('agent.rpc').log_path()`);
    const proc = t.proc;
    t.nvim.command('qa!').catch(() => undefined);
    await new Promise((r) => proc.once('exit', r));
    await waitFor(() => !alive(pid), 5000, 'host exit');
    expect(fs.readFileSync(log, 'utf8')).toMatch(/host exiting: (stdin closed|rpc disconnected)/);
    await t.close();
    t = undefined;
  });

  it('a shell command still running when Neovim quits goes with the host', async () => {
    // A command that ignores SIGTERM: only the group kill at the host's exit stops it.
    const seconds = `${300 + (process.pid % 1000)}.${Date.now() % 100_000}`;
    const command = `trap '' TERM; sleep ${seconds}; true`;
    server = await startLlmServer({
      turns: [{ toolCalls: [{ id: 's', name: 'shell', arguments: { command } }] }],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' } });
    await t.lua(`
      vim.api.nvim_create_autocmd('User', { pattern = 'AgentPermissionAsked', callback = function(ev)
        vim.schedule(function() require('agent').reply_permission(ev.data.id, 'once') end)
      end })
      require('agent').send('run it', { mode = 'agent' })`);
    const running = () =>
      fs.readdirSync('/proc').some((entry) => {
        try {
          return (
            /^\d+$/.test(entry) && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${seconds}\0`
          );
        } catch {
          return false;
        }
      });
    await waitFor(running, 10_000, 'the command running');
    const proc = t.proc;
    t.nvim.command('qa!').catch(() => undefined);
    await new Promise((r) => proc.once('exit', r));
    await waitFor(() => !running(), 5000, 'the command gone');
    await t.close();
    t = undefined;
  });

  it('uses g:agent_node for the host binary and reports a missing one clearly', async () => {
    t = await startNvim();
    const marker = path.join(t.dir, 'node-used');
    const wrapper = path.join(t.dir, 'my-node');
    fs.writeFileSync(wrapper, `#!/bin/sh\ntouch '${marker}'\nexec '${process.execPath}' "$@"\n`, {
      mode: 0o755,
    });
    await t.lua(`vim.g.agent_node = ...; require('agent').open()`, [wrapper]);
    await hostPid(t);
    expect(fs.existsSync(marker)).toBe(true);
    await t.lua(`require('agent.rpc').stop()`);
    await waitFor(
      () => t?.lua<boolean>(`return not require('agent.rpc').is_running()`),
      5000,
      'host stopped',
    );
    await t.lua(`require('agent').setup({ node = '/nonexistent/node' }); require('agent').send('hi')`);
    await waitFor(async () => (await messages(t as TestNvim)).includes('Node.js not found'), 5000, 'message');
    expect(await messages(t)).toContain(
      'agent: Node.js not found ("/nonexistent/node"); install Node 20.3+ or set g:agent_node',
    );
    // The prompt that could not start has ended: once Node is found, the next one runs.
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 5000, 'run ended');
    expect(await transcript(t)).toContain('Node.js not found');
    await t.lua(`require('agent').setup({ node = ... }); require('agent').send('again')`, [process.execPath]);
    await hostPid(t);
    expect(await transcript(t)).not.toContain('Queued');
  });

  it('a Node.js older than 20.3 gets one message saying so, and the run ends', async () => {
    t = await startNvim();
    const preload = path.join(t.dir, 'old-node.cjs');
    fs.writeFileSync(
      preload,
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.19.0' } });\n" +
        "Object.defineProperty(process, 'version', { value: 'v18.19.0' });\n",
    );
    const wrapper = path.join(t.dir, 'old-node');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' -r '${preload}' "$@"\n`, {
      mode: 0o755,
    });
    await t.lua(`require('agent').setup({ node = ... }); require('agent').send('hi')`, [wrapper]);
    await waitFor(async () => (await messages(t as TestNvim)).includes('20.3 or newer'), 10_000, 'message');
    expect(await messages(t)).toContain('agent: Node.js 20.3 or newer is needed');
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 5000, 'run ended');
    expect(await transcript(t)).toContain('Node.js 20.3 or newer is needed');
  });

  it('a host that never gets ready is stopped with a message, and the run ends', async () => {
    t = await startNvim();
    const wrapper = path.join(t.dir, 'mute-node');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho 'starting up' >&2\nexec sleep 60\n`, { mode: 0o755 });
    await t.lua(
      `require('agent.rpc').ready_timeout_ms = 500
       require('agent').setup({ node = ... })
       require('agent').send('hi')`,
      [wrapper],
    );
    await waitFor(async () => (await messages(t as TestNvim)).includes('did not start'), 5000, 'message');
    expect(await messages(t)).toContain('agent: the host did not start within 0.5 s: starting up.');
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 5000, 'run ended');
    expect(await t.lua<boolean>(`return require('agent.rpc').is_running()`)).toBe(false);
  });

  it('refuses a host from another build with a message to rebuild', async () => {
    t = await startNvim();
    await t.lua(
      `require('agent.rpc').dispatch('ready', { protocol = 999, pid = 1, log = '', version = 'x' })`,
    );
    await waitFor(async () => (await messages(t as TestNvim)).includes('another version'), 5000, 'message');
    expect(await messages(t)).toMatch(
      /agent: the host was built from another version \(protocol 999, plugin \d+\)\. Run `npm run build` in /,
    );
  });

  it('keeps API keys out of the log, even when the server echoes them in an error', async () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    server = await startLlmServer({
      turns: [
        {
          status: 401,
          body: { error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error' } },
        },
      ],
    });
    t = await startNvim({ env: { AGENT_NVIM_BASE_URL: server.url, OPENAI_API_KEY: key } });
    await t.lua(
      `require('agent').setup({ log_level = 'debug' }); require('agent').open(); require('agent').send('hi')`,
    );
    await waitFor(() => t?.lua<boolean>(`return not require('agent').status().running`), 10_000, 'run end');
    const text = await t.lua<string>(`return table.concat(require('agent.ui.chat').lines(), '\\n')`);
    expect(text).toContain('[!ERROR]');
    expect(text).not.toContain(key);
    const log = fs.readFileSync(await t.lua<string>(`return require('agent.rpc').log_path()`), 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(key);
  });
});
