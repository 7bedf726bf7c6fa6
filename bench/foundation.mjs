#!/usr/bin/env node
// Foundation figures, each against its anchor measured side by side in this run:
//   - startup: `nvim --headless +qa` with the plugin vs without (target ratio <= 1.02), and
//     --startuptime of plugin/agent.lua (target < 0.5 ms);
//   - cold start: send() to the first request reaching the scripted server, nothing started, vs
//     bare `node -e 0` (target <= 3x);
//   - warm: the chat opened a second earlier (host started in the background), send() to the
//     first request (target < 50 ms, the cost of a pure-Lua peer shelling out to curl);
//   - idle host memory (RSS, target < 80 MB).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchNvim, embedNvim, ensureBuilt, fmt, importTs, median, report, root, timeSync } from './lib.mjs';

function rssOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

const RUNS = Number(process.env.AGENT_BENCH_RUNS ?? 20);
ensureBuilt();
const nvim = await benchNvim();

// --- startup -------------------------------------------------------------------------------
{
  const base = ['--headless', '--clean', '-n', '-i', 'NONE'];
  const withPlugin = [...base, '--cmd', `set rtp^=${root}`, '+qa'];
  const without = [...base, '+qa'];
  for (let i = 0; i < 3; i++) {
    timeSync(nvim, withPlugin);
    timeSync(nvim, without);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS * 2; i++) {
    // Alternate so drift in machine load hits both sides alike.
    a.push(timeSync(nvim, withPlugin));
    b.push(timeSync(nvim, without));
  }
  report('startup nvim --headless +qa with plugin', median(a), 'without plugin', median(b), 1.02);

  const file = path.join(os.tmpdir(), `agent-startuptime-${process.pid}.log`);
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    fs.rmSync(file, { force: true });
    timeSync(nvim, [...base, '--cmd', `set rtp^=${root}`, '--startuptime', file, '+qa']);
    const line = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.includes('plugin/agent.lua'));
    // "clock  self+sourced  self:  sourcing <file>"
    const m = line && /^\s*[\d.]+\s+([\d.]+)\s+([\d.]+):/.exec(line);
    if (m) times.push(Number(m[2]));
  }
  fs.rmSync(file, { force: true });
  process.stdout.write(
    `startuptime plugin/agent.lua: ${fmt(median(times))} (target < 0.5 ms)${median(times) < 0.5 ? ' (meets target)' : ' (MISSES target)'}\n`,
  );
}

// --- first request, cold and warm ----------------------------------------------------------
{
  const { startLlmServer } = await importTs('test/helpers/llm-server.ts');
  let arrivals = [];
  const server = await startLlmServer(
    { turns: Array.from({ length: RUNS * 2 + 4 }, () => ({ text: 'ok' })) },
    {
      onRequest: (r) =>
        r.path.includes('completions') && arrivals.push(performance.timeOrigin + performance.now()),
    },
  );
  const env = { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'bench' };
  const sendAt = `
    local t = vim.uv.gettimeofday and { vim.uv.gettimeofday() } or { vim.loop.gettimeofday() }
    require('agent').send('ping')
    return t[1] * 1000 + t[2] / 1000`;
  const waitArrival = async () => {
    const deadline = Date.now() + 10_000;
    while (arrivals.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    if (arrivals.length === 0) throw new Error('no request reached the scripted server');
    return arrivals[0];
  };

  const cold = [];
  const node = [];
  const warm = [];
  let rss;
  let rssAfterPrompt;

  // The very first start after a build compiles the bundle; it then leaves a V8 code cache that
  // every later start uses. Measure that first start once, then the steady state.
  for (const f of fs.readdirSync(path.join(root, 'dist'))) {
    if (f.endsWith('.v8cache')) fs.rmSync(path.join(root, 'dist', f));
  }
  {
    const first = await embedNvim(nvim, env);
    arrivals = [];
    const sent = await first.nvim.lua(sendAt);
    const firstCold = (await waitArrival()) - sent;
    await new Promise((r) => setTimeout(r, 3500));
    await first.close();
    process.stdout.write(
      `first start after a build (no code cache yet): send() -> first request ${fmt(firstCold)}\n`,
    );
  }
  for (let i = 0; i < Math.min(RUNS, 10); i++) {
    node.push(timeSync(process.execPath, ['-e', '0']));
    const n = await embedNvim(nvim, env);
    arrivals = [];
    const sent = await n.nvim.lua(sendAt);
    cold.push((await waitArrival()) - sent);
    await n.close();

    const w = await embedNvim(nvim, env);
    await w.nvim.lua(`require('agent').open()`);
    await new Promise((r) => setTimeout(r, 1000));
    arrivals = [];
    const sentWarm = await w.nvim.lua(sendAt);
    warm.push((await waitArrival()) - sentWarm);
    if (i === 0) {
      await new Promise((r) => setTimeout(r, 500));
      const pid = await w.nvim.lua(`return require('agent.rpc').host_info().pid`);
      rssAfterPrompt = rssOf(pid);
      const idle = await embedNvim(nvim, env);
      await idle.nvim.lua(`require('agent').open()`);
      await new Promise((r) => setTimeout(r, 1500));
      rss = rssOf(await idle.nvim.lua(`return require('agent.rpc').host_info().pid`));
      await idle.close();
    }
    await w.close();
  }
  report('cold send() -> first request at the server', median(cold), 'node -e 0', median(node), 3);
  process.stdout.write(
    `warm send() -> first request (chat opened 1 s before): ${fmt(median(warm))} (target < 50 ms)${median(warm) < 50 ? ' (meets target)' : ' (MISSES target)'}\n`,
  );
  process.stdout.write(
    `idle host RSS (chat open, no prompt yet): ${rss.toFixed(1)} MB (target < 80 MB)${rss < 80 ? ' (meets target)' : ' (MISSES target)'}\n`,
  );
  process.stdout.write(`host RSS after one prompt: ${rssAfterPrompt.toFixed(1)} MB\n`);
  await server.close();
}
