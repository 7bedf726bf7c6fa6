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

// dist/host.cjs is a small starter: it compiles the bundle (dist/host-main.cjs) with a V8 code
// cache kept beside it, so a cold start skips parsing and compiling ~2 MB of JavaScript. A
// missing, stale or rejected cache only costs the ordinary compile, and is rewritten.
const STARTER = `'use strict';
// Starts dist/host-main.cjs with a V8 code cache (written by the first run of each Node version).
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const bundle = path.join(__dirname, 'host-main.cjs');
const cacheFile = path.join(__dirname, \`host-main.\${process.version}.\${process.arch}.v8cache\`);
const source = fs.readFileSync(bundle, 'utf8');
let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {}
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
const hadCache = cachedData !== undefined && !script.cachedDataRejected;
cachedData = undefined;
const mod = new Module(bundle, module);
mod.filename = bundle;
mod.paths = Module._nodeModulePaths(__dirname);
script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, __dirname);
if (!hadCache) {
  // Later, so the functions compiled while starting and answering the first prompt are in it.
  setTimeout(() => {
    try {
      const tmp = \`\${cacheFile}.\${process.pid}.tmp\`;
      fs.writeFileSync(tmp, script.createCachedData());
      fs.renameSync(tmp, cacheFile);
    } catch {}
  }, 3000).unref();
}
`;

// The Anthropic SDK is most of the code and only Anthropic providers need it: it goes in a file
// of its own (dist/anthropic-sdk.cjs), loaded on first use, so every start reads less.
const splitAnthropic = {
  name: 'split-anthropic',
  setup(b) {
    b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, (args) =>
      args.importer.includes(`${path.sep}src${path.sep}`)
        ? { path: './anthropic-sdk.cjs', external: true }
        : undefined,
    );
  },
};

const version = `${pkg.version}+${revision()}`;
for (const stale of fs.existsSync(path.join(root, 'dist')) ? fs.readdirSync(path.join(root, 'dist')) : []) {
  if (stale.endsWith('.v8cache')) fs.rmSync(path.join(root, 'dist', stale), { force: true });
}
// Both bundles: one CommonJS file each for Node 20, every dependency inside.
const bundleOptions = {
  absWorkingDir: root,
  outdir: path.join(root, 'dist'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};
// The tools' JSON Schemas, derived once here by the same code the host would run (see
// src/tools/build-time-schemas.ts) and baked into the bundle.
const schemaScript = path.join(root, 'dist', `tool-schemas.${process.pid}.cjs`);
await build({
  ...bundleOptions,
  outdir: undefined,
  outExtension: undefined,
  outfile: schemaScript,
  stdin: {
    contents:
      "const { ALL_TOOLS } = require('./src/tools/all-tools.ts');" +
      'process.stdout.write(JSON.stringify(Object.fromEntries(ALL_TOOLS.map((t) => [t.name, t.parameters()]))));',
    resolveDir: root,
    loader: 'js',
  },
});
let toolSchemas;
try {
  toolSchemas = execFileSync(process.execPath, [schemaScript], { encoding: 'utf8' });
} finally {
  fs.rmSync(schemaScript, { force: true });
}
await build({
  ...bundleOptions,
  entryPoints: {
    'host-main': path.join(root, 'src/host/main.ts'),
    rplugin: path.join(root, 'src/host/rplugin.ts'),
  },
  define: { __AGENT_VERSION__: JSON.stringify(version), __AGENT_TOOL_SCHEMAS__: JSON.stringify(toolSchemas) },
  plugins: [dropWinston, splitAnthropic],
  // import() of the split-out SDK becomes a lazy require: the starter compiles the bundle with
  // vm.Script, which has no loader for dynamic imports on Node 20.
  supported: { 'dynamic-import': false },
});
await build({ ...bundleOptions, entryPoints: { 'anthropic-sdk': '@anthropic-ai/sdk' } });
fs.writeFileSync(path.join(root, 'dist/host.cjs'), STARTER);
fs.writeFileSync(
  path.join(root, 'dist/build-info.json'),
  `${JSON.stringify({ version, built_at: new Date().toISOString() })}\n`,
);
const size = fs.statSync(path.join(root, 'dist/host-main.cjs')).size;
process.stderr.write(`built dist/host.cjs (bundle ${(size / 1024).toFixed(0)} KiB), version ${version}\n`);
