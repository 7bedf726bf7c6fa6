import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src/store/index.js';

const writerScript = path.join(import.meta.dirname, 'session-writer.mjs');
let work: string;
let bundle: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-store-proc-'));
  bundle = path.join(work, 'store.mjs');
  // Plain node cannot load the TypeScript, so the child processes get a bundle of the store.
  await build({
    entryPoints: [path.join(import.meta.dirname, '../../../src/store/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundle,
    logLevel: 'error',
  });
});

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** Starts a writer; `acked` collects every (session, index) it reported as committed. */
function startWriter(dataDir: string, root: string, sessions: number, messages: number) {
  const child = spawn(
    process.execPath,
    [writerScript, bundle, dataDir, root, String(sessions), String(messages)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const acked = new Map<string, number>();
  const ids: string[] = [];
  let stderr = '';
  let buffer = '';
  const listeners: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const [kind, id, n] = line.split(' ');
      if (kind === 'session' && id) ids.push(id);
      if (kind === 'ok' && id) acked.set(id, Math.max(acked.get(id) ?? -1, Number(n)));
    }
    for (const l of listeners) l();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    acked,
    ids,
    exited,
    stderr: () => stderr,
    until: (cond: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => cond() && resolve();
        listeners.push(check);
        check();
      }),
  };
}

function kill(child: ChildProcess): void {
  if (child.pid) process.kill(child.pid, 'SIGKILL');
}

describe('sessions across processes', () => {
  it('a host killed with SIGKILL mid-append loses at most the message in flight', async () => {
    const dataDir = path.join(work, 'kill-data');
    const root = path.join(work, 'kill-proj');
    await fs.mkdir(root, { recursive: true });
    const writer = startWriter(dataDir, root, 1, 0);
    await writer.until(() => (writer.acked.get(writer.ids[0] ?? '') ?? -1) >= 150);
    kill(writer.child);
    await writer.exited;
    const id = writer.ids[0] as string;
    const acked = writer.acked.get(id) as number;

    const store = await SessionStore.open(dataDir);
    const data = await store.load(id);
    const ids = data.messages.map((m) => m.id);
    // Every acknowledged turn is there with its result, in order; at most the one in flight beyond.
    expect(ids.slice(0, acked + 1)).toEqual(Array.from({ length: acked + 1 }, (_, i) => `a${i}`));
    expect(ids.length - (acked + 1)).toBeLessThanOrEqual(1);
    data.messages.slice(0, acked + 1).forEach((m, i) => {
      expect(m.role === 'assistant' && m.toolCalls[0]?.result?.output).toBe(`result ${i}`);
    });

    // The dead writer's lock is stale: this instance resumes and continues the log.
    const { handle, data: resumed } = await store.resume(id);
    expect(resumed.messages).toEqual(data.messages);
    await handle.append({ role: 'user', id: 'after-crash', text: 'resumed', createdAt: 1 });
    await handle.close();
    expect((await store.load(id)).messages.at(-1)?.id).toBe('after-crash');
  });

  it('two hosts writing sessions of one project at once lose nothing', async () => {
    const dataDir = path.join(work, 'two-data');
    const root = path.join(work, 'two-proj');
    await fs.mkdir(root, { recursive: true });
    const writers = [startWriter(dataDir, root, 3, 120), startWriter(dataDir, root, 3, 120)];
    const codes = await Promise.all(writers.map((w) => w.exited));
    expect(codes, writers.map((w) => w.stderr()).join('\n')).toEqual([0, 0]);

    const store = await SessionStore.open(dataDir);
    const expected = writers.flatMap((w) => w.ids).sort();
    const listed = await store.list(root);
    expect(listed.problems).toEqual([]);
    expect(listed.sessions.map((s) => s.id).sort()).toEqual(expected);
    for (const id of expected) {
      const data = await store.load(id);
      expect(data.messages.map((m) => m.id)).toEqual(Array.from({ length: 120 }, (_, i) => `a${i}`));
      expect(data.messages.every((m) => m.role === 'assistant' && m.toolCalls[0]?.state === 'done')).toBe(
        true,
      );
    }

    // The index is only a cache: without it the same sessions are listed, and it is rewritten.
    const indexFile = path.join(dataDir, 'projects', listed.sessions[0]?.projectId ?? '', 'index.json');
    await fs.rm(indexFile);
    expect((await store.list(root)).sessions.map((s) => s.id).sort()).toEqual(expected);
    expect(Object.keys(JSON.parse(await fs.readFile(indexFile, 'utf8')).sessions).sort()).toEqual(expected);
    // No temp files are left behind by the concurrent index writes.
    expect((await fs.readdir(path.dirname(indexFile))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a session open in a live host is not taken by another', async () => {
    const dataDir = path.join(work, 'busy-data');
    const root = path.join(work, 'busy-proj');
    await fs.mkdir(root, { recursive: true });
    const writer = startWriter(dataDir, root, 1, 0);
    await writer.until(() => writer.acked.size > 0);
    const store = await SessionStore.open(dataDir);
    const id = writer.ids[0] as string;
    await expect(store.resume(id)).rejects.toThrow(/open in another Neovim/);
    expect(await store.ownerOf(id)).toMatchObject({ pid: writer.child.pid });
    // Reading it is fine while it is written.
    expect((await store.load(id)).messages.length).toBeGreaterThan(0);
    kill(writer.child);
    await writer.exited;
    expect(await store.ownerOf(id)).toBeUndefined();
  });
});
