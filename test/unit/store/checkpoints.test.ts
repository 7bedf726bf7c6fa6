import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointLog, SessionStore } from '../../../src/store/index.js';
import { tempDir } from './fixtures.js';

async function write(file: string, content: string | Uint8Array, mode?: number): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  if (mode !== undefined) await fs.chmod(file, mode);
}

const read = (file: string) => fs.readFile(file, 'utf8');
const gone = async (file: string) =>
  fs.access(file).then(
    () => false,
    () => true,
  );

describe('CheckpointLog', () => {
  it('undoes and redoes two runs, byte-exact, with modes, creations and deletions', async () => {
    await using tmp = await tempDir();
    const proj = path.join(tmp.path, 'proj');
    const a = path.join(proj, 'a.txt');
    const bin = path.join(proj, 'bin.dat');
    const created = path.join(proj, 'new/dir/created.ts');
    const script = path.join(proj, 'run.sh');
    const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
    await write(a, 'original a\n');
    await write(bin, binary);
    await write(script, '#!/bin/sh\necho hi\n', 0o755);
    const log = await CheckpointLog.open(path.join(tmp.path, 'cp'));

    await log.beginRun('run1');
    await log.beforeChange(a);
    await write(a, 'run1 a\n');
    await log.beforeChange(a); // idempotent: the first state is kept
    await write(a, 'run1 a, again\n');
    await log.beforeChange(bin);
    await write(bin, Uint8Array.from([0, 255, 0]));
    await log.beforeChange(created);
    await write(created, 'export {};\n');
    expect(await log.endRun()).toMatchObject({ runId: 'run1', files: [a, bin, created], dropped: [] });

    await log.beginRun('run2');
    await log.beforeChange(a);
    await write(a, 'run2 a\n');
    await log.beforeChange(script);
    await fs.rm(script);
    await log.endRun();

    expect(await log.undo()).toEqual({ runId: 'run2', restored: [script, a], conflicts: [] });
    expect(await read(a)).toBe('run1 a, again\n');
    expect(await read(script)).toBe('#!/bin/sh\necho hi\n');
    expect((await fs.stat(script)).mode & 0o777).toBe(0o755);

    expect(await log.undo()).toMatchObject({ runId: 'run1', conflicts: [] });
    expect(await read(a)).toBe('original a\n');
    expect(Buffer.compare(await fs.readFile(bin), Buffer.from(binary))).toBe(0);
    expect(await gone(created)).toBe(true);
    expect(await gone(path.join(proj, 'new'))).toBe(true); // the folders the run made went too
    expect(await log.undo()).toEqual({ restored: [], conflicts: [] });

    expect(await log.redo()).toMatchObject({ runId: 'run1' });
    expect(await read(a)).toBe('run1 a, again\n');
    expect(await read(created)).toBe('export {};\n');
    expect(await log.redo()).toMatchObject({ runId: 'run2' });
    expect(await read(a)).toBe('run2 a\n');
    expect(await gone(script)).toBe(true);
    expect(await log.redo()).toEqual({ restored: [], conflicts: [] });
  });

  it('refuses to undo over a change made since the run, unless forced', async () => {
    await using tmp = await tempDir();
    const a = path.join(tmp.path, 'a.txt');
    const b = path.join(tmp.path, 'b.txt');
    await write(a, 'v0');
    await write(b, 'b0');
    const log = await CheckpointLog.open(path.join(tmp.path, 'cp'));
    await log.beginRun('r');
    await log.beforeChange(a);
    await log.beforeChange(b);
    await write(a, 'v1');
    await write(b, 'b1');
    await log.endRun();
    await write(a, 'edited by the user');

    expect(await log.undo()).toEqual({ runId: 'r', restored: [], conflicts: [a] });
    expect(await read(a)).toBe('edited by the user');
    expect(await read(b)).toBe('b1');
    expect(await log.undo({ force: true })).toMatchObject({ restored: [b, a], conflicts: [a] });
    expect(await read(a)).toBe('v0');
    expect(await read(b)).toBe('b0');

    await write(b, 'changed before redo');
    expect(await log.redo()).toEqual({ runId: 'r', restored: [], conflicts: [b] });
  });

  it('a new run clears the redo stack', async () => {
    await using tmp = await tempDir();
    const a = path.join(tmp.path, 'a.txt');
    await write(a, '0');
    const log = await CheckpointLog.open(path.join(tmp.path, 'cp'));
    for (const v of ['1', '2']) {
      await log.beginRun(`r${v}`);
      await log.beforeChange(a);
      await write(a, v);
      await log.endRun();
    }
    await log.undo();
    await log.beginRun('r3');
    await log.beforeChange(a);
    await write(a, '3');
    await log.endRun();
    expect(log.runs().map((r) => r.id)).toEqual(['r1', 'r3']);
    expect(await log.redo()).toEqual({ restored: [], conflicts: [] });
  });

  it('drops the oldest runs past the size bound and says which', async () => {
    await using tmp = await tempDir();
    const log = await CheckpointLog.open(path.join(tmp.path, 'cp'), { maxBytes: 2500 });
    const dropped: string[] = [];
    for (let i = 0; i < 4; i++) {
      const file = path.join(tmp.path, `f${i}.txt`);
      await write(file, String(i).repeat(500));
      await log.beginRun(`r${i}`);
      await log.beforeChange(file);
      await write(file, String(i).repeat(499));
      dropped.push(...((await log.endRun())?.dropped ?? []));
    }
    expect(dropped).toEqual(['r0', 'r1']);
    expect(log.runs().map((r) => r.id)).toEqual(['r2', 'r3']);
    expect(log.totalBytes()).toBeLessThanOrEqual(2500);
    expect(await fs.readdir(path.join(tmp.path, 'cp/blobs'))).toHaveLength(4);
  });

  it('undoes after a restart, with the checkpoints kept beside the session', async () => {
    await using tmp = await tempDir();
    const root = path.join(tmp.path, 'proj');
    const a = path.join(root, 'a.txt');
    await write(a, 'before');
    const dataDir = path.join(tmp.path, 'data');
    const store = await SessionStore.open(dataDir);
    const handle = await store.create({ root, mode: 'agent', model: 'm' });
    await handle.checkpoints.beginRun('r1');
    await handle.checkpoints.beforeChange(a);
    await write(a, 'after');
    await handle.checkpoints.endRun();
    await store.close();

    const restarted = await SessionStore.open(dataDir);
    const { handle: resumed } = await restarted.resume(handle.id);
    expect(resumed.checkpoints.runs().map((r) => r.id)).toEqual(['r1']);
    expect(await resumed.checkpoints.undo()).toMatchObject({ restored: [a], conflicts: [] });
    expect(await read(a)).toBe('before');
    await resumed.close();
  });

  it('closes a run left open by a crash so it can be undone', async () => {
    await using tmp = await tempDir();
    const a = path.join(tmp.path, 'a.txt');
    await write(a, 'before');
    const dir = path.join(tmp.path, 'cp');
    const log = await CheckpointLog.open(dir);
    await log.beginRun('r1');
    await log.beforeChange(a);
    await write(a, 'half-way');
    // No endRun: the process died here.
    const reopened = await CheckpointLog.open(dir);
    expect(await reopened.undo()).toMatchObject({ runId: 'r1', restored: [a], conflicts: [] });
    expect(await read(a)).toBe('before');
  });

  it('records a previous state learnt elsewhere (shell changes)', async () => {
    await using tmp = await tempDir();
    const a = path.join(tmp.path, 'a.txt');
    const made = path.join(tmp.path, 'made.txt');
    const log = await CheckpointLog.open(path.join(tmp.path, 'cp'));
    expect(await log.beforeChange(a)).toBe(false); // no run open
    await log.beginRun('r1');
    await write(a, 'after shell');
    await write(made, 'built');
    await log.recordBefore(a, { bytes: Buffer.from('from git'), mode: 0o644 });
    await log.recordBefore(made, null);
    await log.endRun();
    await log.undo();
    expect(await read(a)).toBe('from git');
    expect(await gone(made)).toBe(true);
  });
});
