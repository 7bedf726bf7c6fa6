import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellTool } from '../../../src/tools/shell.js';
import { makeContext, makeProject, removeProject } from '../../unit/tools/project.js';

let root: string;
beforeEach(async () => {
  root = await makeProject({ 'keep.txt': 'same\n', 'edit.txt': 'before\n', 'gone.txt': 'x\n' });
  // Files written just before a command count as changed by it (timestamps are coarse).
  await sleep(100);
});
afterEach(() => removeProject(root));

function run(args: Record<string, unknown>, ctx = makeContext(root)) {
  return shellTool.run(args, { ...ctx, mode: 'agent', tool: 'shell' });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('shell', () => {
  it('returns exit code, both streams and duration; asks permission with the command', async () => {
    const ctx = makeContext(root);
    const result = await run({ command: 'echo out; echo err >&2; exit 3' }, ctx);
    expect(result.output).toMatchObject({
      exit_code: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      changed_paths: [],
    });
    expect(typeof result.output.duration_ms).toBe('number');
    expect(ctx.editor.permissions[0]).toMatchObject({
      tool: 'shell',
      pattern: 'echo out; echo err >&2; exit 3',
    });
  });

  it('runs in the project, or in a confined cwd', async () => {
    await fs.mkdir(path.join(root, 'sub'));
    expect((await run({ command: 'pwd' })).output.stdout).toBe(`${await fs.realpath(root)}\n`);
    expect((await run({ command: 'pwd', cwd: 'sub' })).output.stdout).toBe(
      `${await fs.realpath(root)}/sub\n`,
    );
    expect((await run({ command: 'pwd', cwd: '..' })).output.error_kind).toBe('outside_project');
  });

  it('reports created, modified and deleted files, hidden ones included, generated ones not', async () => {
    await fs.mkdir(path.join(root, 'node_modules'));
    await sleep(100);
    const ctx = makeContext(root);
    const result = await run(
      {
        command:
          'echo after > edit.txt; rm gone.txt; mkdir -p new && echo n > new/file.txt; echo h > .env; echo d > node_modules/x.js; touch -d 2001-01-01 edit.txt',
      },
      ctx,
    );
    expect(result.changed_paths).toEqual(['.env', 'edit.txt', 'gone.txt', 'new/file.txt']);
    expect(result.output.changed_paths).toEqual(result.changed_paths);
    expect(ctx.editor.changed).toContain(path.join(await fs.realpath(root), 'edit.txt'));
  });

  it('caps each stream at 1 MiB while still draining a 10 MiB writer', async () => {
    const result = await run({ command: 'head -c 10485760 /dev/zero | tr "\\0" a; echo; echo END' });
    expect(result.output.exit_code).toBe(0);
    const stdout = result.output.stdout as string;
    expect(stdout.length).toBeLessThan(1024 * 1024 + 200);
    expect(stdout.endsWith('END\n')).toBe(true);
    expect(result.output.stdout_omitted_bytes).toBeGreaterThan(9 * 1024 * 1024);
    expect(result.content.length).toBeLessThan(2.2 * 1024 * 1024);
  });

  it('replaces invalid UTF-8 so the result stays valid JSON', async () => {
    const result = await run({ command: "printf 'ok \\377\\376 done'" });
    expect(result.output.stdout).toBe('ok \ufffd\ufffd done');
    expect(() => JSON.parse(result.content)).not.toThrow();
  });

  it('times out and kills the command', async () => {
    const result = await run({ command: 'echo start; sleep 30', timeout: 0.5 });
    expect(result.output).toMatchObject({ error_kind: 'timeout', timed_out: true, stdout: 'start\n' });
  });

  it('kills grandchildren on cancel', async () => {
    const controller = new AbortController();
    const ctx = makeContext(root, { signal: controller.signal });
    const pending = run({ command: "sh -c 'sleep 60 & echo $! > grandchild.pid; wait'" }, ctx);
    const pidFile = path.join(root, 'grandchild.pid');
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i++) {
      await sleep(50);
      pid = Number((await fs.readFile(pidFile, 'utf8').catch(() => '')).trim());
    }
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.output).toMatchObject({ error_kind: 'cancelled', cancelled: true });
    for (let i = 0; i < 40 && alive(pid); i++) await sleep(50);
    expect(alive(pid)).toBe(false);
  });

  it('does not wait for a background job that keeps the pipes open', async () => {
    const started = Date.now();
    const result = await run({ command: 'sleep 5 & echo started' });
    expect(result.output).toMatchObject({ exit_code: 0, stdout: 'started\n' });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('validates the timeout', async () => {
    expect((await run({ command: 'true', timeout: 601 })).output.error_kind).toBe('invalid_args');
    expect((await run({ command: 5 })).output.error_kind).toBe('invalid_args');
  });
});
