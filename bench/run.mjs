#!/usr/bin/env node
// `npm run bench`: runs every benchmark in bench/ in turn; each prints its own ratios.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const res = spawnSync(process.execPath, [path.join(dir, file)], { stdio: 'inherit' });
  if (res.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
