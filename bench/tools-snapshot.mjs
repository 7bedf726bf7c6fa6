#!/usr/bin/env node
// The changed-files snapshot that shell and build take around every command, measured around a
// no-op on a generated 50k-file git repository, against `git status --porcelain` on the same
// tree (both answer "what changed?"). Also prints a whole `shell` call of `true` for context.
// Target <= 1.5x.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, importTs, median, report } from './lib.mjs';

const FILES = Number(process.env.AGENT_BENCH_SNAPSHOT_FILES ?? 50_000);
const ROUNDS = Number(process.env.AGENT_BENCH_ROUNDS ?? 7);

function generateRepo(dir, files) {
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `pkg${Math.floor(i / 100)}`, `mod${Math.floor(i / 10) % 10}`);
    if (i % 10 === 0) fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `file${i % 10}.ts`), `export const v${i} = ${i};\n`);
  }
  const git = (...args) =>
    // gc.auto=0: a commit of 50k loose objects would otherwise start a background gc that
    // competes with the measurement and writes into .git while the tree is being removed.
    execFileSync(
      'git',
      ['-c', 'gc.auto=0', '-c', 'user.email=b@example.com', '-c', 'user.name=bench', ...args],
      {
        cwd: dir,
        stdio: 'ignore',
      },
    );
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'tree');
}

function gitStatus(dir) {
  const started = performance.now();
  const res = spawnSync('git', ['status', '--porcelain'], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
  if (res.status !== 0) throw new Error('git status failed');
  return performance.now() - started;
}

export async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-snapshot-'));
  try {
    generateRepo(dir, FILES);
    const { snapshotBefore, changedSince } = await importTs('src/tools/changed-files.ts');
    const { createToolRegistry, createTodoStore, ReadLedger } = await importTs('src/tools/index.ts');
    const registry = createToolRegistry();
    const editor = { askPermission: async () => 'once', fileChanged() {} };
    const ctx = {
      root: dir,
      editor,
      signal: new AbortController().signal,
      config: {},
      todos: createTodoStore(),
      reads: new ReadLedger(),
    };
    const ours = [];
    const anchor = [];
    const shellCalls = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      const g = gitStatus(dir);
      const started = performance.now();
      const before = await snapshotBefore(dir);
      // The no-op command itself is not part of the figure: only the two snapshots and the diff.
      const changed = await changedSince(before);
      const t = performance.now() - started;
      if (changed.length !== 0) throw new Error(`no-op reported changes: ${changed.slice(0, 5).join(', ')}`);
      const shellStarted = performance.now();
      const result = await registry.call('shell', { command: 'true' }, ctx, 'agent');
      if (!result.ok) throw new Error(result.content);
      const s = performance.now() - shellStarted;
      if (i > 0) {
        anchor.push(g);
        ours.push(t);
        shellCalls.push(s);
      }
    }
    report(
      `changed-files snapshot around a no-op (${FILES} files)`,
      median(ours),
      'git status --porcelain',
      median(anchor),
      1.5,
    );
    process.stdout.write(`whole shell call of \`true\` with tracking: ${fmt(median(shellCalls))}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
