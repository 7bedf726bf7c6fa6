#!/usr/bin/env node
// search_code against ripgrep itself on the same generated tree (20k source files, ~40 MB).
// The anchor is `rg` with the flags search_code passes, its output drained through a pipe (rg
// stops early when stdout is /dev/null, which would flatter the anchor). Target <= 1.2x.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTs, median, report } from './lib.mjs';

const FILES = Number(process.env.AGENT_BENCH_SEARCH_FILES ?? 20_000);
const ROUNDS = Number(process.env.AGENT_BENCH_ROUNDS ?? 7);

export function generateSourceTree(dir, files) {
  const line = (i, j) =>
    j % 50 === 0
      ? `export function fn_${i}_handler(input: string): number { return input.length + ${j}; }`
      : `  const value_${j} = compute(${i}, ${j}); // ordinary line of code number ${j} in file ${i}`;
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`);
    fs.mkdirSync(sub, { recursive: true });
    const body = Array.from({ length: 25 }, (_, j) => line(i, j)).join('\n');
    fs.writeFileSync(path.join(sub, `file${i}.ts`), `${body}\n`);
  }
  fs.mkdirSync(path.join(dir, 'node_modules/dep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules/dep/index.js'), 'fn_0_handler\n');
}

function rg(args, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('rg', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => {});
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

export async function main() {
  const which = await rg(['--version'], os.tmpdir()).catch(() => undefined);
  if (which === undefined) {
    process.stdout.write('search_code vs rg: skipped (rg not on PATH)\n');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-search-'));
  try {
    generateSourceTree(dir, FILES);
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
      { name: 'regex, 2k matches', pattern: 'fn_[0-9]+0_handler' },
      { name: 'literal, 1 match', pattern: 'fn_12345_handler(', literal: true },
      { name: 'regex, 20k matches', pattern: 'fn_\\d+_handler' },
      // The fallback for machines without rg: printed for information, it has no target.
      { name: 'native engine, regex 2k matches', pattern: 'fn_[0-9]+0_handler', config: { rg_path: false } },
    ];
    for (const c of cases) {
      const anchorArgs = [
        '--no-config',
        '--no-require-git',
        '--no-heading',
        '--with-filename',
        '--line-number',
        '--null',
        '--max-columns=400',
        '--max-columns-preview',
        ...(c.literal ? ['--fixed-strings'] : []),
        '--regexp',
        c.pattern,
        '--',
        '.',
      ];
      const ours = [];
      const anchor = [];
      for (let i = 0; i < ROUNDS + 1; i++) {
        const a = await rg(anchorArgs, dir);
        const started = performance.now();
        const result = await registry.call(
          'search_code',
          { pattern: c.pattern, literal: c.literal },
          ctx,
          'ask',
        );
        const t = performance.now() - started;
        if (!result.ok) throw new Error(result.content);
        if (i > 0) {
          anchor.push(a);
          ours.push(t);
        }
      }
      report(
        `search_code (${c.name}, ${FILES} files)`,
        median(ours),
        'rg',
        median(anchor),
        c.config ? undefined : 1.2,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
