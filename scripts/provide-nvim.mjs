#!/usr/bin/env node
// Provides the Neovim test matrix from Debian packages only.
//
// Each release (bookworm's 0.7.2 for the "too old" test, trixie's 0.10.x as the oldest supported,
// sid's as the newest) is resolved with apt against a private package list, its whole dependency
// closure downloaded with `apt-get download`, unpacked with `dpkg-deb -x` into
// .cache/nvim/<suite>/root, and its nvim binary patched to start through that root's own dynamic
// loader and libraries, so the host's older libc never meets the newer binary.
//
// Usage: node scripts/provide-nvim.mjs [suite...]   prints one JSON line: [{ suite, version, bin }]
// The nvim on PATH is listed too when it is >= 0.10 (suite "path").
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheRoot = process.env.AGENT_NVIM_CACHE || path.join(repo, '.cache', 'nvim');
const MIRROR = 'http://deb.debian.org/debian';
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
const ALL_SUITES = ['bookworm', 'trixie', 'sid'];
// Only needed by maintainer scripts, never by nvim at run time; skipping them keeps the closure small.
const SKIP = new Set(['debconf', 'perl-base', 'dpkg', 'install-info', 'sensible-utils', 'base-files']);

function log(msg) {
  process.stderr.write(`provide-nvim: ${msg}\n`);
}

function aptOptions(suite) {
  const dir = path.join(cacheRoot, 'apt', suite);
  return {
    dir,
    args: [
      '-o',
      `Dir::Etc::sourcelist=${path.join(dir, 'sources.list')}`,
      '-o',
      'Dir::Etc::sourceparts=/nonexistent',
      '-o',
      `Dir::State::Lists=${path.join(dir, 'lists')}`,
      '-o',
      `Dir::Cache=${path.join(dir, 'cache')}`,
      '-o',
      'Dir::State::status=/dev/null',
      '-o',
      'APT::Sandbox::User=root',
      '-o',
      'Debug::NoLocking=1',
      '-q',
    ],
  };
}

function aptUpdate(suite) {
  const { dir, args } = aptOptions(suite);
  for (const sub of ['lists/partial', 'cache/archives/partial', 'debs']) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  }
  fs.writeFileSync(path.join(dir, 'sources.list'), `deb [signed-by=${KEYRING}] ${MIRROR} ${suite} main\n`);
  execFileSync('apt-get', [...args, 'update'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function aptCache(suite, ...rest) {
  return execFileSync('apt-cache', [...aptOptions(suite).args, ...rest], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
}

/** The runtime dependency closure of neovim in one suite (virtual packages resolved by apt). */
function closure(suite) {
  const out = aptCache(
    suite,
    'depends',
    '--recurse',
    '--no-recommends',
    '--no-suggests',
    '--no-conflicts',
    '--no-breaks',
    '--no-replaces',
    '--no-enhances',
    'neovim',
  );
  const names = new Set();
  for (const line of out.split('\n')) {
    // Top-level lines are package names; "<virtual>" entries are provided by a real package listed too.
    if (/^[a-z0-9][a-z0-9+.-]*$/.test(line.trim()) && !line.startsWith(' ')) names.add(line.trim());
  }
  for (const skip of SKIP) names.delete(skip);
  return [...names].sort();
}

function download(suite, packages) {
  const { dir, args } = aptOptions(suite);
  const debs = path.join(dir, 'debs');
  const have = new Set(fs.readdirSync(debs).map((f) => f.split('_')[0]));
  const missing = packages.filter((p) => !have.has(p));
  if (missing.length > 0) {
    execFileSync('apt-get', [...args, 'download', ...missing], {
      cwd: debs,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return fs.readdirSync(debs).filter((f) => f.endsWith('.deb') && packages.includes(f.split('_')[0]));
}

function unpack(suite, debFiles) {
  const root = path.join(cacheRoot, suite, 'root');
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const debs = path.join(aptOptions(suite).dir, 'debs');
  for (const deb of debFiles) execFileSync('dpkg-deb', ['-x', path.join(debs, deb), root]);
  return root;
}

function findLoader(root) {
  for (const rel of [
    'usr/lib64/ld-linux-x86-64.so.2',
    'lib64/ld-linux-x86-64.so.2',
    'usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
    'lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
  ]) {
    const p = path.join(root, rel);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`no dynamic loader unpacked under ${root}`);
}

/** patchelf from PATH, else Debian bookworm's unpacked into the cache (no root needed). */
function patchelf() {
  const onPath = spawnSync('sh', ['-c', 'command -v patchelf'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const bin = path.join(cacheRoot, 'tools', 'usr/bin/patchelf');
  if (fs.existsSync(bin)) return bin;
  log('fetching patchelf from Debian bookworm');
  const { dir, args } = aptOptions('bookworm');
  if (!fs.existsSync(path.join(dir, 'sources.list'))) aptUpdate('bookworm');
  const debs = path.join(dir, 'debs');
  fs.mkdirSync(debs, { recursive: true });
  execFileSync('apt-get', [...args, 'download', 'patchelf'], {
    cwd: debs,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deb = fs.readdirSync(debs).find((f) => f.startsWith('patchelf_'));
  execFileSync('dpkg-deb', ['-x', path.join(debs, deb), path.join(cacheRoot, 'tools')]);
  return bin;
}

/**
 * Points the unpacked nvim at its own loader and libraries. Running it through `ld.so nvim ...`
 * works headless, but the TUI re-executes v:progpath (then the loader) with --embed, which the
 * loader rejects; a patched interpreter and DT_RPATH (which, unlike RUNPATH, also covers
 * indirect dependencies) make the binary self-contained, and it finds its runtime and bundled
 * parsers next to itself.
 */
function patchBinary(root) {
  const loader = findLoader(root);
  const libDirs = ['usr/lib/x86_64-linux-gnu', 'lib/x86_64-linux-gnu', 'usr/lib', 'lib']
    .map((d) => path.join(root, d))
    .filter((d) => fs.existsSync(d));
  const binary = fs.realpathSync(path.join(root, 'usr/bin/nvim'));
  execFileSync(patchelf(), [
    '--set-interpreter',
    loader,
    '--force-rpath',
    '--set-rpath',
    libDirs.join(':'),
    binary,
  ]);
  return binary;
}

export function nvimVersion(bin) {
  const res = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  const m = /NVIM v(\d+\.\d+\.\d+)/.exec(res.stdout ?? '');
  return m ? m[1] : undefined;
}

export function atLeast(version, floor) {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

function provide(suite) {
  const bin = path.join(cacheRoot, suite, 'root/usr/bin/nvim');
  if (fs.existsSync(bin)) {
    const version = nvimVersion(bin);
    if (version) return { suite, version, bin };
  }
  log(`fetching Neovim from Debian ${suite}`);
  aptUpdate(suite);
  const packages = closure(suite);
  const debs = download(suite, packages);
  const root = unpack(suite, debs);
  const binary = patchBinary(root);
  const version = nvimVersion(binary);
  if (!version) throw new Error(`Neovim from ${suite} did not start; run ${binary} --version to see why`);
  return { suite, version, bin: binary };
}

function pathNvim() {
  const res = spawnSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' });
  const bin = res.stdout.trim();
  if (!bin) return undefined;
  const version = nvimVersion(bin);
  return version ? { suite: 'path', version, bin } : undefined;
}

/** Every Neovim the test suite should run on: PATH's when >= 0.10, plus trixie's and sid's. */
export function provideMatrix(suites = ['trixie', 'sid']) {
  const result = [];
  const onPath = pathNvim();
  if (onPath && atLeast(onPath.version, '0.10.0')) result.push(onPath);
  for (const suite of suites) {
    try {
      result.push(provide(suite));
    } catch (err) {
      log(`could not provide Neovim from ${suite}: ${err.message}`);
    }
  }
  return result;
}

export function provideSuite(suite) {
  return provide(suite);
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((s) => !ALL_SUITES.includes(s));
  if (unknown.length > 0) {
    log(`unknown suite ${unknown.join(', ')}; choose from ${ALL_SUITES.join(', ')}`);
    process.exit(2);
  }
  const list = asked.length > 0 ? asked.map(provide) : provideMatrix();
  process.stdout.write(`${JSON.stringify(list)}\n`);
}
