import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../src/tools/all-tools.js';
import { makeContext, makeProject, removeProject } from '../../unit/tools/project.js';

const registry = createToolRegistry();
let root: string;

beforeEach(async () => {
  root = await makeProject({ 'a.txt': 'one\n' });
});
afterEach(() => removeProject(root));

function gitInit(dir: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '-A');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
}

describe('git', () => {
  it('runs read-only subcommands in every mode', async () => {
    gitInit(root);
    await fs.writeFile(path.join(root, 'a.txt'), 'two\n');
    const status = await registry.call(
      'git',
      { subcommand: 'status', args: ['--porcelain'] },
      makeContext(root),
      'ask',
    );
    expect(status.output).toMatchObject({ exit_code: 0, stdout: ' M a.txt\n' });
    const diff = await registry.call('git', { subcommand: 'diff' }, makeContext(root), 'plan');
    expect(diff.output.stdout).toContain('+two');
    const branches = await registry.call('git', { subcommand: 'branch' }, makeContext(root), 'ask');
    expect(branches.output.exit_code).toBe(0);
  });

  it('allows changing subcommands only in Agent mode, with permission, and reports changed files', async () => {
    gitInit(root);
    await fs.writeFile(path.join(root, 'a.txt'), 'two\n');
    const inAsk = await registry.call(
      'git',
      { subcommand: 'checkout', args: ['--', 'a.txt'] },
      makeContext(root),
      'ask',
    );
    expect(inAsk.output.error_kind).toBe('not_available');
    const newBranch = await registry.call(
      'git',
      { subcommand: 'branch', args: ['feature'] },
      makeContext(root),
      'plan',
    );
    expect(newBranch.output.error_kind).toBe('not_available');
    await sleep(50);
    const ctx = makeContext(root);
    const result = await registry.call(
      'git',
      { subcommand: 'checkout', args: ['--', 'a.txt'] },
      ctx,
      'agent',
    );
    expect(result.output).toMatchObject({ exit_code: 0, changed_paths: ['a.txt'] });
    expect(ctx.editor.permissions[0]?.pattern).toBe('git checkout -- a.txt');
    expect(await fs.readFile(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('refuses options that write files or run programs, and unknown subcommands', async () => {
    const ctx = makeContext(root);
    expect(
      (await registry.call('git', { subcommand: 'diff', args: ['--output=/tmp/x'] }, ctx, 'ask')).output
        .error_kind,
    ).toBe('unsupported');
    expect((await registry.call('git', { subcommand: 'init' }, ctx, 'agent')).output.error_kind).toBe(
      'unsupported',
    );
  });

  it('treats a folder that is not a repository as an ordinary error', async () => {
    const result = await registry.call('git', { subcommand: 'status' }, makeContext(root), 'ask');
    expect(result.output.error_kind).toBe('not_a_repo');
    await expect(fs.access(path.join(root, '.git'))).rejects.toThrow();
  });
});

describe('build', () => {
  it('uses the configured command, else the detected one', async () => {
    // Files written within a few ms before a command count as changed by it (coarse timestamps).
    await sleep(50);
    const ctx = makeContext(root, { config: { build_command: 'echo building > out.txt' } });
    const result = await registry.call('build', {}, ctx, 'agent');
    expect(result.output).toMatchObject({
      command: 'echo building > out.txt',
      exit_code: 0,
      changed_paths: ['out.txt'],
    });
    await fs.writeFile(path.join(root, 'Makefile'), 'all:\n\t@echo made\ntest:\n\t@echo tested\n');
    const detected = await registry.call('build', { target: 'test' }, makeContext(root), 'agent');
    expect(detected.output).toMatchObject({ command: 'make test', stdout: 'tested\n' });
  });

  it('says what to do when nothing can be detected', async () => {
    const result = await registry.call('build', {}, makeContext(root), 'agent');
    expect(result.output.error_kind).toBe('not_configured');
  });
});

describe('fetch_url', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/page') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(
          '<html><head><title>T</title></head><body><nav>skip</nav><main><h2>Hello</h2><p>World</p></main></body></html>',
        );
      } else if (req.url === '/big') {
        res.setHeader('content-type', 'text/plain');
        res.end('y'.repeat(6 * 1024 * 1024));
      } else if (req.url === '/image') {
        res.setHeader('content-type', 'image/png');
        res.end(Buffer.from([0x89, 0x50]));
      } else {
        res.statusCode = 404;
        res.end('nope');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('returns the main text of a page, asking permission for the host', async () => {
    const ctx = makeContext(root);
    const result = await registry.call('fetch_url', { url: `${base}/page` }, ctx, 'agent');
    expect(result.output).toMatchObject({ status: 200, title: 'T', text: '## Hello\n\nWorld' });
    expect(ctx.editor.permissions[0]?.pattern).toBe(new URL(base).host);
  });

  it('caps the size and reports non-text, HTTP errors and other schemes', async () => {
    const ctx = makeContext(root);
    const big = await registry.call('fetch_url', { url: `${base}/big` }, ctx, 'agent');
    expect(big.output.truncated).toBe(true);
    expect((big.output.text as string).length).toBe(100_000);
    expect((await registry.call('fetch_url', { url: `${base}/image` }, ctx, 'agent')).output.error_kind).toBe(
      'unsupported',
    );
    expect((await registry.call('fetch_url', { url: `${base}/missing` }, ctx, 'agent')).output).toMatchObject(
      {
        error_kind: 'http',
        status: 404,
      },
    );
    expect(
      (await registry.call('fetch_url', { url: 'file:///etc/passwd' }, ctx, 'agent')).output.error_kind,
    ).toBe('invalid_args');
    expect((await registry.call('fetch_url', { url: `${base}/page` }, ctx, 'ask')).output.error_kind).toBe(
      'not_available',
    );
  });
});
