#!/usr/bin/env node
// Streaming into the chat, side by side in one run, headless (embedded, no UI) and with a real
// UI (the TUI in a tmux pane, driven over --listen):
//   - a 20,000-word answer paced at about 2,000 words/s by the scripted server: the time until
//     the chat shows all of it vs the time the bytes took to arrive (first to last event the
//     server wrote), target ratio <= 1.02;
//   - the lateness of a 10 ms repeating timer on Neovim's main loop (actual interval - 10 ms)
//     during the stream and during the 2 s after it: p99 under 3 ms, max under 20 ms. Anchor: the
//     same timer in a bare, idle Neovim at the same time (what the machine's scheduler costs);
//     then where the main loop's time went (host -> Lua calls by method, redraws) and what
//     overlapped each tick more than 3 ms late.
// Neovim and Node share one clock (libuv's hrtime, CLOCK_MONOTONIC), so the server's write times
// and Neovim's tick times are compared directly. AGENT_BENCH_UI=0 skips the tmux run;
// AGENT_BENCH_DEBUG=1 lists every late tick with the calls, redraws and parse steps it overlapped.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { benchNvim, embedNvim, ensureBuilt, fmt, importTs } from './lib.mjs';

const WORDS = 20_000;
const WORDS_PER_SECOND = 2_000;
const DELAY_MS = 10;
const AFTER_MS = 2_000;
const TIMER_MS = 10;
const MARKER = 'ZZENDOFANSWERZZ';

const hr = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// --- the answer --------------------------------------------------------------------------------

/** Deterministic Markdown: paragraphs, headings, lists, inline code and bold; the last word is MARKER. */
function makeAnswer() {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const vocab = (
    'the a of to and in is it that for on with as buffer window line text stream model token ' +
    'neovim editor plugin chat answer function return value table string number request reply ' +
    'render highlight fold cursor scroll timer loop event batch flush append insert delete ' +
    'quickly slowly because however therefore although whenever configuration implementation'
  ).split(' ');
  const word = () => vocab[Math.floor(rand() * vocab.length)];
  const out = [];
  let count = 0;
  let paragraph = 0;
  while (count < WORDS - 1) {
    paragraph++;
    if (paragraph % 12 === 1) out.push(`### Section ${paragraph}\n\n`);
    const list = paragraph % 7 === 3;
    const len = Math.min(WORDS - 1 - count, 40 + Math.floor(rand() * 50));
    const parts = [];
    for (let i = 0; i < len; i++) {
      let w = word();
      const r = rand();
      if (r < 0.03) w = `\`${w}()\``;
      else if (r < 0.05) w = `**${w}**`;
      if (list && i > 0 && i % 12 === 0) parts.push(`\n- ${w}`);
      else parts.push(i === 0 && list ? `- ${w}` : w);
    }
    count += len;
    out.push(`${parts.join(' ')}.\n\n`);
  }
  out.push(`${MARKER}`);
  return out.join('');
}

// --- measurement in Neovim -----------------------------------------------------------------------

/** Installed after open(), before send(): the timer, the marker watch, the done notification. */
const INSTRUMENT = `
local chan, marker, period, debug = ...
local S = { ticks = {}, parts = {} }
_G.__agent_bench = S
local ms = function() return vim.uv.hrtime() / 1e6 end
local chat = require('agent.ui.chat')
local buf = chat.transcript_buf()
vim.api.nvim_buf_attach(buf, false, {
  on_lines = function(_, b, _, first, _, last_new)
    if S.shown then return true end
    for _, l in ipairs(vim.api.nvim_buf_get_lines(b, first, last_new, false)) do
      if l:find(marker, 1, true) then S.shown = ms() return true end
    end
  end,
})
-- Where the main loop's time goes: every host -> Lua call and every redraw, as spans.
S.spans = {}
local rpc = require('agent.rpc')
local dispatch = rpc.dispatch
S.dispatch = dispatch
rpc.dispatch = function(method, payload)
  local t0 = ms()
  local r = dispatch(method, payload)
  local t1 = ms()
  S.spans[#S.spans + 1] = { method, t0, t1 }
  return r
end
-- With AGENT_BENCH_DEBUG, the parts of a parse and of the chat's chunking that took over 1 ms.
-- Wall time: on Neovim 0.11+ a parse may pause (yield) inside these and resume later.
if debug then
  local function time(owner, name, label)
    local f = owner[name]
    if type(f) ~= 'function' then return end
    owner[name] = function(...)
      local t0 = ms()
      local r = { f(...) }
      local t1 = ms()
      if t1 - t0 > 1 then S.parts[#S.parts + 1] = { label, t0, t1 } end
      return unpack(r, 1, table.maxn(r))
    end
  end
  local tree = require('vim.treesitter.languagetree')
  for _, name in ipairs({ '_parse_regions', '_get_injections', '_add_injections' }) do time(tree, name, 'ts' .. name) end
  local markdown = require('agent.ui.chat-markdown')
  for _, name in ipairs({ 'sync', 'hold', 'release' }) do time(markdown, name, 'markdown.' .. name) end
  local chat = require('agent.ui.chat')
  for _, name in ipairs({ 'end_run', 'completion' }) do time(chat, name, 'chat.' .. name) end
  time(require('agent.ui.status'), 'render', 'status.render')
end
-- The first redraw that ends after the marker is in the buffer.
local ns = vim.api.nvim_create_namespace('agent.bench.streaming')
local redraw_start
vim.api.nvim_set_decoration_provider(ns, {
  on_start = function() redraw_start = ms() end,
  on_end = function()
    local t = ms()
    if redraw_start then S.spans[#S.spans + 1] = { 'redraw', redraw_start, t } end
    if S.shown and not S.drawn then S.drawn = t end
  end,
})
vim.api.nvim_create_autocmd('User', {
  pattern = 'AgentRunDone',
  once = true,
  callback = function(ev)
    S.done = ms()
    S.outcome = ev.data and ev.data.outcome
    vim.rpcnotify(chan, 'agent_bench_done')
  end,
})
S.timer = vim.uv.new_timer()
S.timer:start(period, period, function() S.ticks[#S.ticks + 1] = ms() end)
return ms()`;

const COLLECT = `
local S = _G.__agent_bench
S.timer:stop()
S.timer:close()
require('agent.rpc').dispatch = S.dispatch
local lines = require('agent.ui.chat').lines()
local start = 1
for i, l in ipairs(lines) do if l:match('^## Agent') then start = i + 1 end end
return {
  ticks = S.ticks, spans = S.spans, parts = S.parts, shown = S.shown or vim.NIL, drawn = S.drawn or vim.NIL, done = S.done or vim.NIL,
  outcome = S.outcome or vim.NIL,
  text = table.concat(vim.list_slice(lines, start), '\\n'),
}`;

function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Whether the interval ending at tick i belongs to the window [from, to): it starts inside it, so
 * windows never share an interval and one straddling the end of the stream counts for the stream.
 */
const inWindow = (ticks, i, from, to) => ticks[i - 1] >= from && ticks[i - 1] < to;

/** Lateness of each tick interval in the window. */
function lateness(ticks, from, to) {
  const out = [];
  for (let i = 1; i < ticks.length; i++) {
    if (inWindow(ticks, i, from, to)) out.push(ticks[i] - ticks[i - 1] - TIMER_MS);
  }
  return out;
}

/**
 * Where the main loop's time went in [from, to]: host -> Lua calls by method and redraws (count,
 * total, max), and for each tick more than 3 ms late, which of them overlapped its interval most.
 */
function breakdown(ticks, spans, from, to) {
  const kinds = new Map();
  for (const [kind, t0, t1] of spans) {
    if (t0 < from || t0 >= to) continue; // by start, like the tick intervals
    const k = kinds.get(kind) ?? { count: 0, total: 0, max: 0 };
    k.count++;
    k.total += t1 - t0;
    k.max = Math.max(k.max, t1 - t0);
    kinds.set(kind, k);
  }
  const blame = new Map();
  for (let i = 1; i < ticks.length; i++) {
    if (!inWindow(ticks, i, from, to) || ticks[i] - ticks[i - 1] - TIMER_MS <= 3) continue;
    let best = 'nothing measured';
    let most = 1;
    for (const [kind, t0, t1] of spans) {
      const overlap = Math.min(t1, ticks[i]) - Math.max(t0, ticks[i - 1]);
      if (overlap > most) {
        most = overlap;
        best = kind;
      }
    }
    blame.set(best, (blame.get(best) ?? 0) + 1);
  }
  return { kinds, blame };
}

const verdict = (ok) => (ok ? '(meets target)' : '(MISSES target)');

// --- one run -------------------------------------------------------------------------------------

/** Writes of every model answer: first and last, on the monotonic clock. */
const writes = new Map();
const origWrite = http.ServerResponse.prototype.write;
http.ServerResponse.prototype.write = function (...args) {
  if (/completions|messages|responses/.test(this.req?.url ?? '')) {
    const now = hr();
    const w = writes.get(this) ?? { first: now, last: now, count: 0 };
    w.last = now;
    w.count++;
    writes.set(this, w);
  }
  return origWrite.apply(this, args);
};

const ANCHOR_START = `
_G.__agent_bench_anchor = { ticks = {}, timer = vim.uv.new_timer() }
local A = _G.__agent_bench_anchor
A.timer:start(${TIMER_MS}, ${TIMER_MS}, function() A.ticks[#A.ticks + 1] = vim.uv.hrtime() / 1e6 end)`;
const ANCHOR_STOP = `
local A = _G.__agent_bench_anchor
A.timer:stop()
A.timer:close()
return A.ticks`;

/**
 * One streamed answer into \`nvim\` (with \`uis\` UIs attached), while \`anchor\`, a bare Neovim with
 * nothing to do, runs the same timer: its lateness is what this machine's scheduler costs anyway.
 */
async function runOnce(label, nvim, uis, anchor, server, answer, chunkSize) {
  const monoMinusWall = hr() - (performance.timeOrigin + performance.now());
  writes.clear();
  server.load({ turns: [{ text: answer, chunkSize, delayMs: DELAY_MS }] });

  // Same clock on both sides? Neovim's reading must fall between two of ours.
  const before = hr();
  const theirs = await nvim.lua('return vim.uv.hrtime() / 1e6');
  const after = hr();
  if (!(theirs >= before && theirs <= after)) {
    throw new Error(`Neovim's hrtime (${theirs}) is not Node's clock (${before}..${after})`);
  }

  await nvim.lua(`require('agent').open()`);
  // Let the host start before the stream so its startup is not part of the measured window.
  await sleep(1500);
  const channel = await nvim.channelId;
  let resolveDone;
  const doneP = new Promise((r) => {
    resolveDone = r;
  });
  const onNotify = (method) => method === 'agent_bench_done' && resolveDone();
  nvim.on('notification', onNotify);
  await anchor.lua(ANCHOR_START);
  await nvim.lua(INSTRUMENT, [channel, MARKER, TIMER_MS, Boolean(process.env.AGENT_BENCH_DEBUG)]);
  await nvim.lua(`require('agent').send('Write the long answer.')`);
  const timeout = setTimeout(() => resolveDone('timeout'), 90_000);
  const res = await doneP;
  clearTimeout(timeout);
  nvim.removeListener('notification', onNotify);
  if (res === 'timeout') {
    const messages = await nvim
      .lua(`return vim.api.nvim_exec2('messages', { output = true }).output`)
      .catch(() => '');
    throw new Error(`${label}: no AgentRunDone within 90 s${messages ? `; messages:\n${messages}` : ''}`);
  }
  await sleep(AFTER_MS + 300);
  const got = await nvim.lua(COLLECT);
  const anchorTicks = await anchor.lua(ANCHOR_STOP);

  const req = server.modelRequests().at(-1);
  // The answer is the longest stream: the host makes short requests of its own too (a title).
  const w = [...writes.values()].reduce((a, b) => (b.count > (a?.count ?? 0) ? b : a), undefined);
  if (!req?.lastByteAt || !w) throw new Error(`${label}: the scripted server recorded no stream`);
  const firstEvent = w.first;
  const lastByte = req.lastByteAt + monoMinusWall;
  const shown = got.shown ?? Number.NaN;
  // With a UI, "shows" is the end of the first redraw after the last word reached the buffer.
  const drawn = uis > 0 && typeof got.drawn === 'number' ? got.drawn : undefined;
  const end = drawn ?? shown;
  const normalize = (s) => s.replace(/\s+/g, ' ').trim();
  const upToMarker = got.text.slice(0, got.text.indexOf(MARKER) + MARKER.length);
  const complete = got.text.includes(MARKER) && normalize(upToMarker) === normalize(answer);
  if (process.env.AGENT_BENCH_DEBUG) {
    const t = got.ticks;
    const over = (list, i, min) =>
      list
        .filter(([, t0, t1]) => t1 > t[i - 1] && t0 < t[i] && t1 - t0 > min)
        .map(([kind, t0, t1]) => `${kind} ${(t1 - t0).toFixed(1)}`)
        .join(', ');
    process.stdout.write('  ticks later than 3 ms (ms from the first event: lateness; what overlapped)\n');
    for (let i = 1; i < t.length; i++) {
      const l = t[i] - t[i - 1] - TIMER_MS;
      if (l <= 3) continue;
      const at = `${(t[i] - firstEvent).toFixed(0)}: ${l.toFixed(1)}`;
      process.stdout.write(
        `    ${at}; ${over(got.spans, i, 1) || '-'}; ${over(got.parts ?? [], i, 0) || '-'}\n`,
      );
    }
  }
  return {
    label,
    outcome: got.outcome,
    complete,
    words: normalize(upToMarker).split(' ').length,
    events: w.count,
    arrive: lastByte - firstEvent,
    inBuffer: shown - firstEvent,
    drawnAfter: drawn === undefined ? undefined : drawn - firstEvent,
    show: end - firstEvent,
    runDone: got.done - firstEvent,
    during: lateness(got.ticks, firstEvent, end),
    after: lateness(got.ticks, end, end + AFTER_MS),
    anchorDuring: lateness(anchorTicks, firstEvent, end),
    anchorAfter: lateness(anchorTicks, end, end + AFTER_MS),
    causes: [
      ['during the stream', breakdown(got.ticks, got.spans, firstEvent, end)],
      ['after it', breakdown(got.ticks, got.spans, end, end + AFTER_MS)],
    ],
  };
}

function print(r) {
  const out = (s) => process.stdout.write(`${s}\n`);
  out(`-- ${r.label}`);
  out(
    `stream: ${r.events} events, ${(WORDS / (r.arrive / 1000)).toFixed(0)} words/s; run outcome ${r.outcome}; ` +
      `transcript ${r.complete ? 'holds the whole answer' : `DIFFERS from the answer (${r.words} words)`}`,
  );
  const ratio = r.show / r.arrive;
  const what = r.drawnAfter === undefined ? 'in the buffer' : 'drawn on screen';
  out(
    `chat shows all of it (${what}): ${fmt(r.show)} vs bytes arriving ${fmt(r.arrive)} -> ratio ${ratio.toFixed(3)}, target <= 1.02 ${verdict(ratio <= 1.02)}`,
  );
  const extra = [
    r.drawnAfter === undefined ? undefined : `last word in the buffer at ${fmt(r.inBuffer)}`,
    `AgentRunDone at ${fmt(r.runDone)} (from the first event)`,
  ].filter(Boolean);
  out(`  ${extra.join('; ')}`);
  for (const [name, values, anchor] of [
    ['during the stream', r.during, r.anchorDuring],
    [`${AFTER_MS / 1000} s after it`, r.after, r.anchorAfter],
  ]) {
    const p99 = percentile(values, 99);
    const max = Math.max(...values);
    out(
      `10 ms timer lateness ${name} (${values.length} ticks): p99 ${fmt(p99)} (target < 3 ms) ${verdict(p99 < 3)}, ` +
        `max ${fmt(max)} (target < 20 ms) ${verdict(max < 20)}, median ${fmt(percentile(values, 50))}`,
    );
    out(
      `  anchor, a bare idle Neovim's timer at the same time: p99 ${fmt(percentile(anchor, 99))}, max ${fmt(Math.max(...anchor))}`,
    );
  }
  for (const [name, { kinds, blame }] of r.causes) {
    const parts = [...kinds].map(([k, v]) => `${k} ${v.count}x total ${fmt(v.total)} max ${fmt(v.max)}`);
    const late = [...blame].map(([k, n]) => `${k} ${n}`);
    out(`  main loop ${name}: ${parts.join('; ') || 'nothing'}`);
    out(`  ticks > 3 ms late ${name}, by what overlapped them most: ${late.join(', ') || 'none'}`);
  }
}

// --- main ------------------------------------------------------------------------------------

ensureBuilt();
const bin = await benchNvim();
const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
const { startLlmServer } = await importTs('test/helpers/llm-server.ts');
const { startTui } = await importTs('test/helpers/tui.ts');
const server = await startLlmServer({ turns: [] });
const env = { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'bench' };

// Node's 10 ms timer fires a little late; size the events so the real pace is 2,000 words/s.
const answer = makeAnswer();
const samples = [];
for (let i = 0; i < 30; i++) {
  const t = hr();
  await sleep(DELAY_MS);
  samples.push(hr() - t);
}
const interval = percentile(samples, 50);
const charsPerWord = Array.from(answer).length / WORDS;
const chunkSize = Math.max(1, Math.round((WORDS_PER_SECOND * interval * charsPerWord) / 1000));
process.stdout.write(
  `${version}; answer ${WORDS} words, ${answer.length} chars; events of ${chunkSize} chars every ${DELAY_MS} ms ` +
    `(measured ${interval.toFixed(2)} ms) ~ ${((chunkSize / charsPerWord) * (1000 / interval)).toFixed(0)} words/s\n`,
);

let failed = false;
const anchor = await embedNvim(bin, {});
{
  const n = await embedNvim(bin, env);
  try {
    const label = `headless (embedded, no UI), ${version}`;
    print(await runOnce(label, n.nvim, 0, anchor.nvim, server, answer, chunkSize));
  } catch (err) {
    failed = true;
    process.stdout.write(`headless run failed: ${err.message}\n`);
  } finally {
    await n.close();
  }
}

const tmuxOk = process.env.AGENT_BENCH_UI !== '0' && spawnSync('tmux', ['-V']).status === 0;
if (!tmuxOk) {
  process.stdout.write('-- with a UI: skipped (tmux not available or AGENT_BENCH_UI=0)\n');
} else {
  let t;
  try {
    // Neovim's own terminal UI in a tmux pane, as the tests start it.
    t = await startTui(env, { columns: 160, lines: 45 }, bin);
    const uis = await t.nvim.lua('return #vim.api.nvim_list_uis()');
    const label = `TUI in tmux 160x45 (${uis} UI attached), ${version}`;
    print(await runOnce(label, t.nvim, uis, anchor.nvim, server, answer, chunkSize));
    const screen = t.screen().join('\n');
    process.stdout.write(
      `  screen after the run ${screen.includes(MARKER) ? 'shows the last word' : 'does NOT show the last word'}\n`,
    );
  } catch (err) {
    // The TUI run depends on tmux and a terminal; when it cannot run, say so and keep the rest.
    process.stdout.write(`-- with a UI: could not measure (${err.message})\n`);
  } finally {
    await t?.close();
  }
}
await anchor.close();
await server.close();
// Benchmarks report; a missed target is not a failure, a run that could not measure is.
process.exit(failed ? 1 : 0);
