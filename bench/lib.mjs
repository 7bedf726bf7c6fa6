// Shared helpers for the benchmarks: timing statistics, the Neovim to measure, an embedded
// Neovim with the plugin, and the scripted LLM server bundled for plain Node.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function fmt(ms) {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`;
}

/** One result line: the figure, its anchor, the ratio and the target. */
export function report(name, value, anchorName, anchor, target) {
  const ratio = value / anchor;
  const verdict = target === undefined ? '' : ratio <= target ? ' (meets target)' : ' (MISSES target)';
  process.stdout.write(
    `${name}: ${fmt(value)} vs ${anchorName} ${fmt(anchor)} -> ratio ${ratio.toFixed(3)}${target === undefined ? '' : `, target <= ${target}`}${verdict}\n`,
  );
}

export function timeSync(cmd, args, opts = {}) {
  const start = process.hrtime.bigint();
  const res = spawnSync(cmd, args, { stdio: 'ignore', ...opts });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The Neovim to measure: AGENT_BENCH_NVIM, else PATH's when >= 0.10, else the newest provided. */
export async function benchNvim() {
  if (process.env.AGENT_BENCH_NVIM) return process.env.AGENT_BENCH_NVIM;
  const { provideMatrix } = await import('../scripts/provide-nvim.mjs');
  const matrix = provideMatrix(['sid']);
  if (matrix.length === 0) throw new Error('no Neovim >= 0.10 available');
  return matrix[0].bin;
}

export function ensureBuilt() {
  if (!fs.existsSync(path.join(root, 'dist/host.cjs'))) {
    const res = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    if (res.status !== 0) throw new Error('build failed');
  }
}

/**
 * Each bundled module keeps its own location: `import.meta.dirname` and `import.meta.url` become
 * those of its source file, not of the temp bundle (test helpers find the repository through them).
 */
const sourceLocation = {
  name: 'source-location',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => ({
      loader: 'ts',
      contents: fs
        .readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
    }));
  },
};

/** Bundles a TypeScript module to a temp .mjs and imports it (Node 20 cannot load TS). */
export async function importTs(relPath) {
  const { build } = await import('esbuild');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-'));
  const outfile = path.join(dir, 'mod.mjs');
  await build({
    entryPoints: [path.join(root, relPath)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
    plugins: [sourceLocation],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  const mod = await import(pathToFileURL(outfile).href);
  fs.rmSync(dir, { recursive: true, force: true });
  return mod;
}

/** An embedded Neovim with the plugin first on 'runtimepath' and temp XDG dirs. */
export async function embedNvim(bin, env = {}) {
  const { attach } = await import('neovim');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bench-nvim-'));
  const fullEnv = {
    ...process.env,
    XDG_CONFIG_HOME: dir,
    XDG_DATA_HOME: dir,
    XDG_STATE_HOME: dir,
    XDG_CACHE_HOME: dir,
    AGENT_NVIM_NO_PROBE: '1',
    ...env,
  };
  for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENROUTER_API_KEY']) delete fullEnv[k];
  const proc = spawn(
    bin,
    ['--embed', '--headless', '--clean', '-n', '-i', 'NONE', '--cmd', `set rtp^=${root}`],
    {
      cwd: dir,
      env: fullEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const silent = { level: 'error', debug() {}, info() {}, warn() {}, error() {} };
  const nvim = attach({ proc, options: { logger: silent } });
  await nvim.channelId;
  return {
    nvim,
    proc,
    async close() {
      nvim.command('qa!').catch(() => undefined);
      await new Promise((r) => (proc.exitCode === null ? proc.once('exit', r) : r()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
