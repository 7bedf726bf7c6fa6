#!/usr/bin/env node
// `npm test`: installs, builds, typechecks, lints and runs every suite (unit, integration, and the
// Neovim suite once per provided Neovim), then prints one line totalling them all:
// `N passed, N failed, N skipped`. Only Node built-ins are imported here: node_modules may not
// exist yet.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

function run(cmd, args, opts = {}) {
  process.stderr.write(`\n$ ${[cmd, ...args].join(' ')}\n`);
  return spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
}

/** A step that is not a test runner counts as one check, passed or failed. */
function check(name, cmd, args, opts) {
  const res = run(cmd, args, opts);
  if (res.status === 0) totals.passed += 1;
  else {
    totals.failed += 1;
    failures.push(name);
  }
  return res.status === 0;
}

function installIfNeeded() {
  const marker = path.join(root, 'node_modules/.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const stale = !fs.existsSync(marker) || fs.statSync(lock).mtimeMs > fs.statSync(marker).mtimeMs;
  if (stale && run('npm', ['ci', '--no-audit', '--no-fund']).status !== 0) {
    process.stderr.write('npm ci failed\n');
    process.exit(1);
  }
}

/** luacheck, ripgrep and tmux (the screen test) come from Debian; installed when we can (root with apt). */
function systemTools() {
  const missing = [
    ['luacheck', 'lua-check'],
    ['rg', 'ripgrep'],
    ['tmux', 'tmux'],
  ].filter(([bin]) => !spawnSync('sh', ['-c', `command -v ${bin}`]).stdout?.length);
  if (missing.length === 0 || process.getuid?.() !== 0) return;
  if (!spawnSync('sh', ['-c', 'command -v apt-get']).stdout?.length) return;
  run('sh', [
    '-c',
    `(apt-get install -y -q ${missing.map((m) => m[1]).join(' ')} || (apt-get update -q && apt-get install -y -q ${missing.map((m) => m[1]).join(' ')})) >/dev/null`,
  ]);
}

function vitest(project, env = {}, label = project) {
  const out = path.join(os.tmpdir(), `agent-vitest-${process.pid}-${label.replace(/\W/g, '_')}.json`);
  fs.rmSync(out, { force: true });
  const res = run(
    'npx',
    [
      'vitest',
      'run',
      '--project',
      project,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
      '--passWithNoTests',
    ],
    { env: { ...process.env, ...env } },
  );
  if (!fs.existsSync(out)) {
    totals.failed += 1;
    failures.push(`${label} (no report; vitest exited ${res.status})`);
    return;
  }
  const report = JSON.parse(fs.readFileSync(out, 'utf8'));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  if (report.numFailedTests > 0 || report.numFailedTestSuites > 0) failures.push(label);
  if (report.numFailedTestSuites > 0 && report.numFailedTests === 0)
    totals.failed += report.numFailedTestSuites;
  fs.rmSync(out, { force: true });
}

installIfNeeded();
systemTools();
if (!check('build', 'npm', ['run', 'build', '--silent'])) {
  process.stdout.write(`${totals.passed} passed, ${totals.failed} failed\n`);
  process.exit(1);
}
check('typecheck', 'npx', ['tsc', '--noEmit']);
check('lint', 'npm', ['run', 'lint', '--silent']);
vitest('unit');
vitest('integration');

const { provideMatrix, provideSuite } = await import('./provide-nvim.mjs');
const matrix = provideMatrix(['trixie', 'sid']);
let old;
try {
  old = provideSuite('bookworm');
} catch (err) {
  process.stderr.write(`could not provide Debian 12's Neovim for the "too old" test: ${err.message}\n`);
}
if (matrix.length === 0) {
  totals.failed += 1;
  failures.push('no Neovim >= 0.10 could be provided');
}
const ran = [];
for (const entry of matrix) {
  vitest(
    'nvim',
    { AGENT_TEST_NVIM: entry.bin, ...(old ? { AGENT_TEST_NVIM_OLD: old.bin } : {}) },
    `nvim ${entry.version}`,
  );
  ran.push(`${entry.version} (${entry.suite})`);
}
process.stderr.write(
  `\nNeovim versions tested: ${ran.join(', ') || 'none'}${old ? `; too-old check on ${old.version}` : ''}\n`,
);
if (failures.length > 0) process.stderr.write(`failed: ${failures.join(', ')}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(totals.failed > 0 ? 1 : 0);
