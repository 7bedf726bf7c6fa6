#!/usr/bin/env node
// Session store: append latency (synced) at 100, 1,000 and 10,000 messages, the 10,000th against
// the 100th (target <= 2x: appends must not rewrite the session); listing 500 sessions and
// restoring a 10,000-message session against a 300 ms budget (target <= 1), and rewriting its log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, importTs, median, report } from './lib.mjs';

const MESSAGES = Number(process.env.AGENT_BENCH_SESSION_MESSAGES ?? 10_000);
const SESSIONS = Number(process.env.AGENT_BENCH_SESSIONS ?? 500);
const ROUNDS = Number(process.env.AGENT_BENCH_ROUNDS ?? 61); // appends per size; the median hides a slow fsync
const BUDGET_MS = 300;

/** A realistic mix: prompts, assistant turns with tool calls, results added afterwards. */
function messageAt(i) {
  if (i % 3 === 0)
    return {
      role: 'user',
      id: `u${i}`,
      text: `Please look at src/file${i}.ts and fix it. `.repeat(4),
      createdAt: i,
    };
  const calls =
    i % 3 === 1
      ? [
          {
            id: `c${i}`,
            name: 'read_file',
            arguments: { path: `src/file${i}.ts` },
            rawArguments: `{"path":"src/file${i}.ts"}`,
            state: 'done',
            result: { output: 'export const x = 1;\n'.repeat(20) },
          },
        ]
      : [];
  return {
    role: 'assistant',
    id: `a${i}`,
    text: calls.length ? '' : 'I changed the function and the tests pass now. '.repeat(3),
    toolCalls: calls,
    finishReason: calls.length ? 'tool_calls' : 'stop',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: { input: 1200, output: 80, cacheRead: 1000, cacheWrite: 0 },
    createdAt: i,
  };
}

async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Sessions of 100, 1,000 and MESSAGES messages, filled without syncing (only the fill is fast). */
async function prefill(SessionStore, dataDir, root, sizes) {
  const store = await SessionStore.open(dataDir, { sync: false });
  const ids = [];
  for (const size of sizes) {
    const handle = await store.create({ root, mode: 'agent', model: 'm', firstPrompt: `${size} messages` });
    for (let i = 1; i <= size; i++) await handle.append(messageAt(i));
    await handle.close();
    ids.push(handle.id);
  }
  return ids;
}

/**
 * Appends to the sessions in turn, one at a time, so that every size sees the same disk and the
 * same machine load; the median of ROUNDS appends per size.
 */
async function appendLatency(SessionStore, dataDir, ids, sync, firstId) {
  const store = await SessionStore.open(dataDir, { sync });
  const handles = [];
  for (const id of ids) handles.push((await store.resume(id)).handle);
  const samples = handles.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < handles.length; k++) {
      const i = (r + k) % handles.length;
      samples[i].push(await timed(() => handles[i].append(messageAt(firstId + r * 3 + 1))));
    }
  }
  await store.close();
  return samples.map(median);
}

export async function main() {
  const { SessionStore } = await importTs('src/store/index.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-store-'));
  try {
    const dataDir = path.join(dir, 'data');
    const root = path.join(dir, 'proj');
    fs.mkdirSync(root);
    const sizes = [100, 1_000, MESSAGES];
    const ids = await prefill(SessionStore, dataDir, root, sizes);

    for (const sync of [true, false]) {
      const label = sync ? 'synced' : 'not synced';
      // New ids each pass: an id the session already has would be a (no-op) update.
      const lat = await appendLatency(SessionStore, dataDir, ids, sync, sync ? 1_000_000 : 2_000_000);
      sizes.forEach((size, i) => {
        process.stdout.write(`append at ${size} messages (${label}, median of ${ROUNDS}): ${fmt(lat[i])}\n`);
      });
      report(`append at ${MESSAGES} (${label})`, lat[2], 'append at 100', lat[0], 2);
      report(`append at 1000 (${label})`, lat[1], 'append at 100', lat[0], 2);
    }

    const store = await SessionStore.open(dataDir);
    const big = ids[2];
    const restores = [];
    for (let r = 0; r < 7; r++) restores.push(await timed(() => store.load(big)));
    const loaded = await store.load(big);
    if (loaded.messages.length < MESSAGES) throw new Error(`restored ${loaded.messages.length} messages`);
    const logFile = path.join(dataDir, 'projects', loaded.meta.projectId, 'sessions', `${big}.jsonl`);
    const bytes = fs.readFileSync(logFile);
    // The anchor: decoding and parsing the same bytes, no store logic: what the machine allows.
    const parses = [];
    for (let r = 0; r < 7; r++) {
      parses.push(
        await timed(async () => {
          for (const line of bytes.toString('utf8').split('\n')) if (line) JSON.parse(line);
        }),
      );
    }
    const restore = median(restores);
    const label = `restore ${MESSAGES}-message session (${(bytes.length / 1e6).toFixed(1)} MB)`;
    report(label, restore, 'budget', BUDGET_MS, 1);
    report(label, restore, 'plain JSON.parse of its lines', median(parses));
    // Rewriting a log to its restored state (on close or resume, once superseded lines are most
    // of it): read, replay, write and sync a temporary file, rename.
    const { readSessionLog, rewriteLog } = await importTs('src/store/session-log.ts');
    const copy = path.join(dir, 'rewrite.jsonl');
    const rewrites = [];
    for (let r = 0; r < 5; r++) {
      fs.copyFileSync(logFile, copy);
      rewrites.push(
        await timed(async () => {
          const { meta, messages } = await readSessionLog(copy);
          await rewriteLog(copy, { meta, messages });
        }),
      );
    }
    report(`rewrite ${MESSAGES}-message log`, median(rewrites), 'budget', BUDGET_MS, 1);

    const other = path.join(dir, 'many');
    fs.mkdirSync(other);
    for (let s = 0; s < SESSIONS; s++) {
      const h = await store.create({ root: other, mode: 'ask', model: 'm', firstPrompt: `session ${s}` });
      await h.append(messageAt(3 * s));
      await h.close();
    }
    const cold = [];
    const warm = [];
    for (let r = 0; r < 5; r++) {
      const { sessions } = await store.list(other);
      if (sessions.length !== SESSIONS) throw new Error(`listed ${sessions.length} sessions`);
      fs.rmSync(path.join(dataDir, 'projects', sessions[0].projectId, 'index.json'), { force: true });
      cold.push(await timed(() => store.list(other)));
      warm.push(await timed(() => store.list(other)));
    }
    report(`list ${SESSIONS} sessions (index warm)`, median(warm), 'budget', BUDGET_MS, 1);
    report(`list ${SESSIONS} sessions (index rebuilt)`, median(cold), 'budget', BUDGET_MS, 1);
    process.stdout.write(`machine load average: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
