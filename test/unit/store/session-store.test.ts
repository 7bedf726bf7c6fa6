import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../../src/history/types.js';
import { SessionBusyError, SessionStore } from '../../../src/store/index.js';
import { registerSecret } from '../../../src/util/redact.js';
import { assistant, call, everyKind, summary, tempDir, user } from './fixtures.js';

async function project(dir: string, name = 'proj'): Promise<string> {
  const root = path.join(dir, name);
  await fs.mkdir(root, { recursive: true });
  return root;
}

describe('SessionStore', () => {
  it('restores every message kind, the metadata and the totals exactly', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({
      root,
      mode: 'agent',
      model: 'anthropic/claude',
      firstPrompt: 'Fix the failing test',
    });
    const messages = everyKind();
    for (const m of messages) await handle.append(m);
    await handle.setMeta({
      todos: [{ content: 'run tests', status: 'in_progress' }],
      planPath: '.agent/plans/fix.md',
      usage: { input: 121, output: 32, cacheRead: 100, cacheWrite: 0, reasoning: 5 },
      cost: 0.0123,
      mode: 'plan',
    });
    await handle.close();

    const data = await store.load(handle.id);
    expect(data.messages).toEqual(messages);
    expect(data.tornTail).toBe(false);
    expect(data.meta).toMatchObject({
      title: 'Fix the failing test',
      root: await fs.realpath(root),
      mode: 'plan',
      model: 'anthropic/claude',
      todos: [{ content: 'run tests', status: 'in_progress' }],
      planPath: '.agent/plans/fix.md',
      usage: { input: 121, output: 32, cacheRead: 100, cacheWrite: 0, reasoning: 5 },
      cost: 0.0123,
    });
  });

  it('persists tool states and results recorded after the assistant message', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'agent', model: 'm', firstPrompt: 'go' });
    await handle.append(user('u1'));
    const a = assistant('a1', [call('c1'), call('c2'), call('c3')]);
    await handle.append(structuredClone(a));
    const [c1, c2, c3] = a.toolCalls;
    if (!c1 || !c2 || !c3) throw new Error('fixture');
    c1.state = 'running';
    await handle.update(structuredClone(a));
    c1.state = 'done';
    c1.result = { output: 'x'.repeat(10_000) };
    await handle.update(structuredClone(a));
    c2.state = 'error';
    c2.result = { output: 'ENOENT', isError: true, meta: { error_kind: 'not_found' } };
    c3.state = 'denied';
    c3.result = { output: 'The user denied this.', isError: true };
    await handle.update(structuredClone(a));
    await handle.update(structuredClone(a)); // unchanged: nothing to log
    await handle.close();

    const log = await fs.readFile(handle.files.log, 'utf8');
    // The 10 KB result is written once, not again with each later result.
    expect(log.split('x'.repeat(10_000)).length - 1).toBe(1);
    expect(log.trim().split('\n')).toHaveLength(6);
    const data = await store.load(handle.id);
    expect(data.messages).toEqual([user('u1'), a]);
  });

  it('after a resume, results recorded in place on loaded messages are persisted', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const dataDir = path.join(tmp.path, 'data');
    const store = await SessionStore.open(dataDir);
    const handle = await store.create({ root, mode: 'agent', model: 'm' });
    await handle.append(user('u1'));
    await handle.append(assistant('a1', [call('c1')]));
    await store.close();

    const restarted = await SessionStore.open(dataDir);
    const { handle: resumed, data } = await restarted.resume(handle.id);
    // The agent keeps working on the restored objects and mutates them in place.
    const a1 = data.messages[1] as AssistantMessage;
    const c1 = a1.toolCalls[0];
    if (!c1) throw new Error('fixture');
    c1.state = 'cancelled';
    c1.result = { output: 'Cancelled: the editor was closed.', isError: true };
    await resumed.update(a1);
    await resumed.append(user('u2'));
    await resumed.update(user('u3')); // unknown id: recorded as a new message
    await restarted.close();
    const back = await store.load(handle.id);
    expect(back.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'u3']);
    expect((back.messages[1] as AssistantMessage).toolCalls[0]).toEqual(c1);
  });

  it('rewrites a message whose text changed and applies a compaction splice', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm' });
    for (const m of [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3')])
      await handle.append(m);
    const edited = assistant('a2', [], { text: 'Edited.' });
    await handle.update(edited);
    await handle.replace(['u1', 'a1', 'u2'], [summary('s1')]);
    await handle.close();
    const data = await store.load(handle.id);
    expect(data.messages.map((m) => m.id)).toEqual(['s1', 'a2', 'u3']);
    expect((data.messages[1] as AssistantMessage).text).toBe('Edited.');
  });

  it('lists by project, most recent first, and finds the latest', async () => {
    await using tmp = await tempDir();
    const a = await project(tmp.path, 'a');
    const b = await project(tmp.path, 'b');
    let clock = 1_000;
    const store = await SessionStore.open(path.join(tmp.path, 'data'), { now: () => clock });
    const first = await store.create({ root: a, mode: 'ask', model: 'm', firstPrompt: 'first' });
    clock = 2_000;
    const other = await store.create({ root: b, mode: 'ask', model: 'm', firstPrompt: 'other' });
    clock = 3_000;
    const second = await store.create({ root: a, mode: 'ask', model: 'm', firstPrompt: 'second' });
    await store.close();
    // Log mtimes are "now"; pin them so the order comes from the recorded times.
    for (const h of [first, other, second]) await fs.utimes(h.files.log, 1, 1);

    const listed = await store.list(a);
    expect(listed.sessions.map((s) => s.title)).toEqual(['second', 'first']);
    expect(listed.problems).toEqual([]);
    expect((await store.list()).sessions).toHaveLength(3);
    expect((await store.latest(a))?.id).toBe(second.id);
    // A second listing is served from the index and says the same.
    expect(await store.list(a)).toEqual(listed);
  });

  it('lists each session with its message count and the size of its log', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm', firstPrompt: 'Count me' });
    for (const m of everyKind()) await handle.append(m);
    await handle.setMeta({ mode: 'agent' });
    const [listed] = (await store.list(root)).sessions;
    expect(listed?.messages).toBe(everyKind().length);
    await handle.replace(['u1', 'a1'], [summary('s9')]);
    await handle.close();
    const [after] = (await store.list(root)).sessions;
    expect(after?.messages).toBe(everyKind().length - 1);
    const log = path.join(
      tmp.path,
      'data',
      'projects',
      after?.projectId ?? '',
      'sessions',
      `${handle.id}.jsonl`,
    );
    expect(after?.bytes).toBe((await fs.stat(log)).size);
    // Without the snapshot, the count comes from the log.
    await fs.rm(log.replace(/\.jsonl$/, '.meta.json'));
    expect((await store.list(root)).sessions[0]?.messages).toBe(everyKind().length - 1);
  });

  it('renames, removes and exports', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'agent', model: 'm', firstPrompt: 'Write the parser' });
    for (const m of everyKind()) await handle.append(m);
    await handle.close();

    await store.rename(handle.id, '  Parser   work ');
    expect((await store.list(root)).sessions[0]?.title).toBe('Parser work');

    const md = await store.exportMarkdown(handle.id);
    expect(md).toContain('# Parser work');
    expect(md).toContain('## User\n\nFix the failing test');
    expect(md).toContain('**Tool `shell`** (pending)');
    expect(md).toContain('Reasoning');
    expect(md).not.toContain('EuYBCkQYAiJA');

    await store.remove(handle.id);
    expect((await store.list(root)).sessions).toEqual([]);
    await expect(store.load(handle.id)).rejects.toThrow(/no session/);
  });

  it("a later title replaces only the one it expected, never the user's", async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm', firstPrompt: 'Write the parser' });
    const renaming = store.rename(handle.id, 'Mine');
    expect(await handle.retitle('Model title', 'Write the parser')).toBe(false);
    await renaming;
    expect(await handle.retitle('Model title', 'Mine')).toBe(true);
    await handle.close();
    expect((await store.load(handle.id)).meta.title).toBe('Model title');
  });

  it('stores no API keys or auth headers, but keeps replay state byte-exact', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    registerSecret('my-registered-secret-value');
    const handle = await store.create({ root, mode: 'agent', model: 'm' });
    const a = assistant('a1', [
      call('c1', 'fetch_url', {
        url: 'https://x',
        headers: { Authorization: 'Bearer abcdefghijklmnop' },
        apiKey: 'k-123456',
      }),
    ]);
    a.text = 'key is my-registered-secret-value';
    a.replay = { provider: 'anthropic', data: { signature: '/sk-AAAAAAAAAAAAAAAAAAAA' } };
    await handle.append(a);
    await handle.close();
    const log = await fs.readFile(handle.files.log, 'utf8');
    expect(log).not.toContain('abcdefghijklmnop');
    expect(log).not.toContain('k-123456');
    expect(log).not.toContain('my-registered-secret-value');
    const back = (await store.load(handle.id)).messages[0] as AssistantMessage;
    expect(back.replay).toEqual(a.replay);
    expect(a.toolCalls[0]?.arguments.apiKey).toBe('k-123456'); // the caller's object is untouched
  });

  it('reports a corrupt session and still lists the others', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const good = await store.create({ root, mode: 'ask', model: 'm', firstPrompt: 'good' });
    const bad = await store.create({ root, mode: 'ask', model: 'm', firstPrompt: 'bad' });
    await store.close();
    await fs.writeFile(bad.files.log, '{not json\n');
    await fs.rm(bad.files.meta);
    const listed = await store.list(root);
    expect(listed.sessions.map((s) => s.id)).toEqual([good.id]);
    expect(listed.problems).toHaveLength(1);
    expect(listed.problems[0]).toMatchObject({ sessionId: bad.id });
    await expect(store.load(bad.id)).rejects.toThrow(/unreadable/);

    // A corrupt index is only a cache: it is rebuilt.
    const indexFile = path.join(path.dirname(path.dirname(good.files.log)), 'index.json');
    await fs.writeFile(indexFile, '{"version":1,"sess');
    expect((await store.list(root)).sessions.map((s) => s.id)).toEqual([good.id]);
    expect(JSON.parse(await fs.readFile(indexFile, 'utf8')).sessions[good.id]).toBeDefined();
  });

  it('rebuilds listing and metadata from the log when the snapshot is lost', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm', firstPrompt: 'x' });
    await handle.setMeta({ title: 'Renamed', model: 'other' });
    await handle.close();
    await fs.rm(handle.files.meta);
    await fs.rm(path.join(path.dirname(path.dirname(handle.files.log)), 'index.json'), { force: true });
    const [s] = (await store.list(root)).sessions;
    expect(s).toMatchObject({ id: handle.id, title: 'Renamed', model: 'other' });
  });

  it('drops a torn last line and appends after it on resume', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm' });
    await handle.append(user('u1'));
    await handle.close();
    await fs.appendFile(handle.files.log, '{"type":"message","at":1,"message":{"role":"us');
    const { handle: again, data } = await store.resume(handle.id);
    expect(data.tornTail).toBe(true);
    expect(data.messages).toEqual([user('u1')]);
    await again.append(user('u2'));
    await again.close();
    const reread = await store.load(handle.id);
    expect(reread.messages).toEqual([user('u1'), user('u2')]);
    expect(reread.tornTail).toBe(false);
  });

  it('holds one writer per session', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const dataDir = path.join(tmp.path, 'data');
    const store = await SessionStore.open(dataDir);
    const handle = await store.create({ root, mode: 'ask', model: 'm' });
    const other = await SessionStore.open(dataDir);
    await expect(other.resume(handle.id)).rejects.toBeInstanceOf(SessionBusyError);
    await expect(other.remove(handle.id)).rejects.toBeInstanceOf(SessionBusyError);
    await expect(store.resume(handle.id)).rejects.toBeInstanceOf(SessionBusyError);
    await handle.close();
    const { handle: taken } = await other.resume(handle.id);
    await taken.close();
  });

  it('takes over a lock left by a dead process', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm' });
    await handle.close();
    // pid 2^22+1 is above Linux's pid_max default, so no live process has it.
    await fs.writeFile(
      handle.files.lock,
      JSON.stringify({ pid: 4_194_305, host: (await import('node:os')).hostname(), token: 't' }),
    );
    const { handle: resumed } = await store.resume(handle.id);
    await resumed.close();
    await expect(fs.access(handle.files.lock)).rejects.toThrow();
  });

  it('migrates a version 1 session document', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const dataDir = path.join(tmp.path, 'data');
    const store = await SessionStore.open(dataDir);
    // Find the project folder the way a v1 build would have named it (same id scheme).
    const probe = await store.create({ root, mode: 'ask', model: 'm' });
    await store.remove(probe.id);
    const dir = path.dirname(probe.files.log);
    const messages = everyKind();
    const v1 = {
      version: 1,
      id: 'legacy-1',
      title: 'Old chat',
      root,
      createdAt: 5,
      updatedAt: 6,
      mode: 'agent',
      model: 'old/model',
      messages,
    };
    await fs.writeFile(path.join(dir, 'legacy-1.json'), JSON.stringify(v1));
    await fs.writeFile(path.join(dir, 'broken-1.json'), JSON.stringify({ version: 7 }));

    const listed = await store.list(root);
    expect(listed.sessions.map((s) => s.id)).toEqual(['legacy-1']);
    expect(listed.sessions[0]?.updatedAt).toBe(6);
    expect(listed.problems.map((p) => p.sessionId)).toEqual(['broken-1']);
    const data = await store.load('legacy-1');
    expect(data.messages).toEqual(messages);
    expect(data.meta).toMatchObject({
      title: 'Old chat',
      mode: 'agent',
      model: 'old/model',
      todos: [],
      createdAt: 5,
    });
    await expect(fs.access(path.join(dir, 'legacy-1.v1.json.bak'))).resolves.toBeUndefined();
    // Migrated sessions are ordinary ones: they can be resumed and appended to.
    const { handle } = await store.resume('legacy-1');
    await handle.append(user('u9'));
    await handle.close();
    expect((await store.load('legacy-1')).messages).toHaveLength(messages.length + 1);
  });

  it('refuses a log from a newer schema without touching it', async () => {
    await using tmp = await tempDir();
    const root = await project(tmp.path);
    const store = await SessionStore.open(path.join(tmp.path, 'data'));
    const handle = await store.create({ root, mode: 'ask', model: 'm' });
    await handle.close();
    const text = (await fs.readFile(handle.files.log, 'utf8')).replace('"version":2', '"version":99');
    await fs.writeFile(handle.files.log, text);
    await expect(store.resume(handle.id)).rejects.toThrow(/newer agent.nvim/);
    expect(await fs.readFile(handle.files.log, 'utf8')).toBe(text);
  });
});
