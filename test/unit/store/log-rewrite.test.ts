import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AssistantMessage } from '../../../src/history/types.js';
import { SessionStore } from '../../../src/store/index.js';
import { REWRITE_MIN_CHARS } from '../../../src/store/log-size.js';
import { assistant, call, everyKind, summary, tempDir, user } from './fixtures.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The process dies (here: the call fails) when the rewritten log is about to replace the old. */
function failLogRename(message: string) {
  const rename = fs.rename.bind(fs);
  let failed = false;
  vi.spyOn(fs, 'rename').mockImplementation(async (from, to) => {
    if (!failed && String(to).endsWith('.jsonl')) {
      failed = true;
      throw new Error(message);
    }
    return rename(from, to);
  });
}

async function setup(dir: string) {
  const root = path.join(dir, 'proj');
  await fs.mkdir(root, { recursive: true });
  const store = await SessionStore.open(path.join(dir, 'data'));
  const handle = await store.create({ root, mode: 'agent', model: 'm', firstPrompt: 'Rewrite me' });
  const log = async () => {
    const sessions = path.join(dir, 'data', 'projects');
    const [project] = await fs.readdir(sessions);
    return path.join(sessions, project as string, 'sessions', `${handle.id}.jsonl`);
  };
  return { store, handle, log };
}

/** A message rewritten whole many times: the log is mostly superseded lines. */
async function churn(handle: Awaited<ReturnType<typeof setup>>['handle']) {
  for (const m of everyKind()) await handle.append(m);
  const big = 'x'.repeat(8 * 1024);
  for (let i = 0; i < Math.ceil((2 * REWRITE_MIN_CHARS) / big.length); i++)
    await handle.update(assistant('a9', [], { text: `${big} version ${i}` }));
  await handle.setMeta({ title: 'Renamed', mode: 'plan' });
}

describe('rewriting a session log', () => {
  it('drops superseded lines on close and restores exactly the same session', async () => {
    await using tmp = await tempDir();
    const { store, handle, log } = await setup(tmp.path);
    await churn(handle);
    const before = await store.load(handle.id);
    const bigSize = (await fs.stat(await log())).size;
    await handle.close();

    const after = await store.load(handle.id);
    expect(after).toEqual(before);
    const size = (await fs.stat(await log())).size;
    expect(size).toBeLessThan(bigSize / 4);
    expect((await fs.readFile(await log(), 'utf8')).trim().split('\n')).toHaveLength(
      1 + before.messages.length,
    );
    // The session goes on: appends after the rewrite land in the new log.
    const { handle: again } = await store.resume(handle.id);
    await again.append(user('u9'));
    await again.close();
    const grown = await store.load(handle.id);
    expect(grown.messages.map((m) => m.id)).toEqual([...before.messages.map((m) => m.id), 'u9']);
    expect(grown.meta.title).toBe('Renamed');
  });

  it('leaves a small or mostly live log alone', async () => {
    await using tmp = await tempDir();
    const { store, handle, log } = await setup(tmp.path);
    for (let i = 0; i < 40; i++) await handle.append(user(`u${i}`, 'y'.repeat(4096)));
    await handle.update(user('u0', 'changed'));
    const text = await fs.readFile(await log(), 'utf8');
    await handle.close();
    expect(await fs.readFile(await log(), 'utf8')).toBe(text);
    expect((await store.load(handle.id)).messages[0]).toMatchObject({ text: 'changed' });
  });

  it('rewrites on resume after a compaction replaced most of the messages', async () => {
    await using tmp = await tempDir();
    const { store, handle, log } = await setup(tmp.path);
    const long = 'z'.repeat(4096);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const c = call(`c${i}`);
      await handle.append(assistant(`a${i}`, [c]));
      await handle.update(assistant(`a${i}`, [{ ...c, state: 'done', result: { output: long } }]));
      ids.push(`a${i}`);
    }
    await handle.append(user('last'));
    await handle.replace(ids.slice(0, 38), [summary('s1')]);
    // Closed without the rewrite (as by a crash): resuming does it.
    failLogRename('crash');
    await handle.close();
    vi.restoreAllMocks();
    const before = await store.load(handle.id);
    const bigSize = (await fs.stat(await log())).size;

    const { handle: resumed, data } = await store.resume(handle.id);
    expect(data.messages).toEqual(before.messages);
    expect((await fs.stat(await log())).size).toBeLessThan(bigSize / 4);
    await resumed.close();
    const after = await store.load(handle.id);
    expect(after.messages).toEqual(before.messages);
    expect(after.messages.map((m) => m.id)).toEqual(['s1', 'a38', 'a39', 'last']);
    expect((after.messages[1] as AssistantMessage).toolCalls[0]?.result?.output).toBe(long);
  });

  it('a crash in the middle of a rewrite loses nothing', async () => {
    await using tmp = await tempDir();
    const { store, handle, log } = await setup(tmp.path);
    await churn(handle);
    const before = await store.load(handle.id);
    const text = await fs.readFile(await log(), 'utf8');
    // The new log is written and synced under a temporary name; dying before the rename leaves
    // the old log whole (and a stray temporary file at worst).
    failLogRename('killed');
    await handle.close();
    expect(await fs.readFile(await log(), 'utf8')).toBe(text);
    expect(await store.load(handle.id)).toEqual(before);
    const folder = await fs.readdir(path.dirname(await log()));
    expect(folder.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Next time it works, and the session is the same.
    const { handle: again } = await store.resume(handle.id);
    await again.close();
    expect(await store.load(handle.id)).toEqual(before);
    expect((await fs.stat(await log())).size).toBeLessThan(text.length / 4);
  });
});
