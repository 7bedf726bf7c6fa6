#!/usr/bin/env node
// `npm run chat`: builds what is missing and opens Neovim with only this plugin loaded, in a
// clean config, ready to talk to the provider found in the environment. Extra arguments go to nvim.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sh(cmd, args) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) {
    process.stderr.write(`\`${[cmd, ...args].join(' ')}\` failed\n`);
    process.exit(res.status ?? 1);
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

if (!fs.existsSync(path.join(root, 'node_modules/.package-lock.json')))
  sh('npm', ['ci', '--no-audit', '--no-fund']);
const bundle = path.join(root, 'dist/host.cjs');
if (!fs.existsSync(bundle) || fs.statSync(bundle).mtimeMs < newestMtime(path.join(root, 'src')))
  sh('npm', ['run', 'build', '--silent']);

const { provideMatrix, atLeast, nvimVersion } = await import('./provide-nvim.mjs');
// PATH's nvim when it is new enough, else the newest the test matrix provides.
let nvim = 'nvim';
const version = nvimVersion('nvim');
if (!version || !atLeast(version, '0.10.0')) {
  const matrix = provideMatrix(['sid']);
  const newest = matrix.at(-1);
  if (!newest) {
    process.stderr.write(
      'No Neovim >= 0.10 found on PATH and none could be provided from Debian packages.\n',
    );
    process.exit(1);
  }
  nvim = newest.bin;
}
const init = path.join(root, 'fixtures/minimal_init.lua');
const res = spawnSync(nvim, ['--clean', '-u', init, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(res.status ?? 0);
