#!/usr/bin/env node
// Bundles the host into dist/host.cjs (the job host) and dist/rplugin.cjs (the classic remote
// plugin): one CommonJS file each with every dependency inside, so only `node` is needed at run time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function revision() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

// The neovim client requires winston at load time for a default logger we never use (the host
// passes its own); leaving it out saves a large share of the bundle and of every cold start.
const dropWinston = {
  name: 'drop-winston',
  setup(b) {
    b.onResolve({ filter: /^winston$/ }, () => ({ path: 'winston', namespace: 'empty' }));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({
      contents:
        'module.exports = { createLogger() { throw new Error("winston is not bundled"); }, format: {}, transports: {} };',
      loader: 'js',
    }));
  },
};

const version = `${pkg.version}+${revision()}`;
await build({
  entryPoints: { host: path.join(root, 'src/host/main.ts'), rplugin: path.join(root, 'src/host/rplugin.ts') },
  outdir: path.join(root, 'dist'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  define: { __AGENT_VERSION__: JSON.stringify(version) },
  plugins: [dropWinston],
  logLevel: 'warning',
});
fs.writeFileSync(
  path.join(root, 'dist/build-info.json'),
  `${JSON.stringify({ version, built_at: new Date().toISOString() })}\n`,
);
const size = fs.statSync(path.join(root, 'dist/host.cjs')).size;
process.stderr.write(`built dist/host.cjs (${(size / 1024).toFixed(0)} KiB), version ${version}\n`);
