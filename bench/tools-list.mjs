#!/usr/bin/env node
// list_files (native walk: it must list symlinks, which ripgrep never does) and glob (rg --files
// plus a JS glob filter) against `rg --files` on the same generated 50k-file tree. Target <= 2x.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTs, median, report } from './lib.mjs';

const FILES = Number(process.env.AGENT_BENCH_LIST_FILES ?? 50_000);
const ROUNDS = Number(process.env.AGENT_BENCH_ROUNDS ?? 7);

function generateTree(dir, files) {
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `pkg${i % 50}`, `mod${Math.floor(i / 50) % 100}`);
    if (i < 5000) fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `file${i}.${i % 3 === 0 ? 'ts' : 'md'}`), 'x\n');
  }
  fs.writeFileSync(path.join(dir, '.gitignore'), 'pkg7/mod3/\n');
}

function rgFiles(cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('rg', ['--files', '--no-require-git', '.'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    child.stdout.on('data', () => {});
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

export async function main() {
  if ((await rgFiles(os.tmpdir()).catch(() => undefined)) === undefined) {
    process.stdout.write('list_files/glob vs rg --files: skipped (rg not on PATH)\n');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-list-'));
  try {
    generateTree(dir, FILES);
    const { createToolRegistry, createTodoStore, ReadLedger } = await importTs('src/tools/index.ts');
    const registry = createToolRegistry();
    const ctx = {
      root: dir,
      editor: {},
      signal: new AbortController().signal,
      config: {},
      todos: createTodoStore(),
      reads: new ReadLedger(),
    };
    const cases = [
      { name: 'list_files', tool: 'list_files', args: {} },
      { name: 'glob **/*.ts', tool: 'glob', args: { pattern: '**/*.ts' } },
      { name: 'glob (native walk)', tool: 'glob', args: { pattern: '**/*.ts' }, config: { rg_path: false } },
    ];
    for (const c of cases) {
      const ours = [];
      const anchor = [];
      for (let i = 0; i < ROUNDS + 1; i++) {
        const a = await rgFiles(dir);
        const started = performance.now();
        const result = await registry.call(c.tool, c.args, { ...ctx, config: c.config ?? {} }, 'ask');
        const t = performance.now() - started;
        if (!result.ok) throw new Error(result.content);
        if (i > 0) {
          anchor.push(a);
          ours.push(t);
        }
      }
      report(`${c.name} (${FILES} files)`, median(ours), 'rg --files', median(anchor), 2);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
