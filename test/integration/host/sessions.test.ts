import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatSession } from '../../../src/agent/chat-session.js';
import type { RunSink } from '../../../src/agent/run-sink.js';
import type { EditorPort } from '../../../src/agent/tool-editor.js';
import { createLogger } from '../../../src/util/logger.js';
import {
  type LlmServer,
  type LlmServerOptions,
  type ScriptedResponse,
  startLlmServer,
} from '../../helpers/llm-server.js';

const logger = createLogger(undefined);
let dir: string;
let project: string;
let dataDir: string;
let server: LlmServer | undefined;
const chats: ChatSession[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-sessions-'));
  project = path.join(dir, 'project');
  dataDir = path.join(dir, 'data');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'a.txt'), 'original\n');
});
afterEach(async () => {
  for (const c of chats.splice(0)) await c.shutdown();
  await server?.close();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const approve: EditorPort = {
  bufferText: async () => undefined,
  diagnostics: async () => [],
  lsp: async () => undefined,
  fileChanged: () => undefined,
  askPermission: async () => 'once',
  askUser: async (_q, o) => o[0] ?? '',
};

function sink(): RunSink & { notices: string[] } {
  const notices: string[] = [];
  return {
    notices,
    started: () => undefined,
    text: () => undefined,
    reasoning: () => undefined,
    notice: (t) => notices.push(t),
    done: () => undefined,
  };
}

async function newChat(
  turns?: ScriptedResponse[],
  config: Record<string, unknown> = {},
  serverOptions: LlmServerOptions = {},
) {
  if (turns) server = await startLlmServer({ turns }, serverOptions);
  const chat = new ChatSession({
    env: { AGENT_NVIM_NO_PROBE: '1', AGENT_NVIM_BASE_URL: server?.url ?? '', AGENT_NVIM_MODEL: 'm' },
    logger,
    cwd: project,
    editor: approve,
  });
  chat.configure({ cwd: project, data_dir: dataDir, ...config });
  chats.push(chat);
  return chat;
}

describe('sessions', () => {
  it('a restarted host resumes the exact history, mode, todos, and continues the conversation', async () => {
    const first = await newChat(
      [
        {
          text: 'Writing.',
          toolCalls: [
            { id: 't', name: 'todo', arguments: { items: [{ content: 'write b', status: 'in_progress' }] } },
            { id: 'w', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } },
          ],
        },
        { text: 'Wrote b.txt.' },
        { text: 'I remember: b.txt.' },
      ],
      { titles: 'heuristic' },
    );
    first.setMode('agent');
    await first.prompt({ id: '1', text: 'write b' }, sink());
    const before = first.status();
    const sessionId = first.sessionId;
    expect(sessionId).toBeTruthy();
    await first.shutdown();

    const second = await newChat();
    const list = await second.listSessions();
    expect(list.sessions.map((s) => s.id)).toEqual([sessionId]);
    expect(list.sessions[0]?.title).toBe('write b');
    const restored = await second.resume(undefined);
    expect(restored?.mode).toBe('agent');
    expect(restored?.entries.map((e) => e.kind)).toEqual(['user', 'assistant', 'assistant']);
    const tools = restored?.entries[1]?.kind === 'assistant' ? restored.entries[1].tools : [];
    expect(tools.map((t) => `${t.name}:${t.status}`)).toEqual(['todo:done', 'write_file:done']);
    expect(second.status()).toMatchObject({ mode: 'agent', todos: 1, messages: before.messages });
    await second.prompt({ id: '2', text: 'what did you write?' }, sink());
    const body = JSON.stringify(server?.modelRequests()[2]?.body);
    expect(body).toContain('write b');
    expect(body).toContain('Wrote b.txt.');
    expect(body).toContain('"tool_call_id":"w"');
  });

  it('a session open in one host cannot be taken over by another', async () => {
    const first = await newChat([{ text: 'hi' }]);
    await first.prompt({ id: '1', text: 'hello' }, sink());
    const second = await newChat();
    await expect(second.resume(first.sessionId)).rejects.toThrow(/open in another Neovim/);
  });

  it('undo puts files back as they were before the run, redo re-applies, conflicts are refused', async () => {
    const chat = await newChat([
      {
        toolCalls: [
          {
            id: 'e',
            name: 'edit_file',
            arguments: { path: 'a.txt', old_text: 'original', new_text: 'changed' },
          },
          { id: 'w', name: 'write_file', arguments: { path: 'new.txt', content: 'new\n' } },
        ],
      },
      { text: 'Done.' },
    ]);
    chat.setMode('agent');
    await chat.prompt({ id: '1', text: 'change things' }, sink());
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('changed\n');
    const undone = await chat.undo(false);
    expect(undone.conflicts).toEqual([]);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('original\n');
    expect(fs.existsSync(path.join(project, 'new.txt'))).toBe(false);
    await chat.redo(false);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(fs.readFileSync(path.join(project, 'new.txt'), 'utf8')).toBe('new\n');
    fs.writeFileSync(path.join(project, 'a.txt'), 'edited by the user\n');
    const refused = await chat.undo(false);
    expect(refused.conflicts.map((p) => path.basename(p))).toEqual(['a.txt']);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('edited by the user\n');
    await chat.undo(true);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('original\n');
  });

  it('undo puts back what a shell command changed, also files git cannot restore', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: project,
        stdio: 'pipe',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
    git('init', '-q');
    fs.writeFileSync(path.join(project, '.gitignore'), 'local.cfg\n');
    git('add', '.');
    git('commit', '-qm', 'start');
    // Before the run: a tracked file with uncommitted edits, an untracked file, an ignored one.
    fs.writeFileSync(path.join(project, 'a.txt'), 'edited, not committed\n');
    fs.writeFileSync(path.join(project, 'notes.txt'), 'my notes\n');
    fs.writeFileSync(path.join(project, 'local.cfg'), 'old setting\n');
    const command =
      'echo X > a.txt; echo Y > notes.txt; echo Z > created.txt; echo W > local.cfg; rm .gitignore';
    const chat = await newChat([
      { toolCalls: [{ id: 's', name: 'shell', arguments: { command } }] },
      { text: 'Ran it.' },
    ]);
    chat.setMode('agent');
    await chat.prompt({ id: '1', text: 'run the script' }, sink());
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('Y\n');

    const undone = await chat.undo(false);
    expect(undone.conflicts).toEqual([]);
    const read = (rel: string) => fs.readFileSync(path.join(project, rel), 'utf8');
    expect(read('a.txt')).toBe('edited, not committed\n');
    expect(read('notes.txt')).toBe('my notes\n');
    expect(read('.gitignore')).toBe('local.cfg\n');
    expect(fs.existsSync(path.join(project, 'created.txt'))).toBe(false);
    // Ignored: git knew nothing of it before the command, so it is left as the command left it.
    expect(read('local.cfg')).toBe('W\n');
    await chat.redo(false);
    expect(read('notes.txt')).toBe('Y\n');
    expect(read('created.txt')).toBe('Z\n');
    expect(fs.existsSync(path.join(project, '.gitignore'))).toBe(false);
  });

  it('export gives the conversation as Markdown, and clear starts a new session', async () => {
    const chat = await newChat([{ text: 'The answer.' }, { text: 'Another.' }]);
    await chat.prompt({ id: '1', text: 'the question' }, sink());
    const markdown = await chat.exportSession();
    expect(markdown).toContain('the question');
    expect(markdown).toContain('The answer.');
    const firstId = chat.sessionId;
    chat.clear();
    await chat.prompt({ id: '2', text: 'fresh start' }, sink());
    expect(chat.sessionId).not.toBe(firstId);
    expect((await chat.listSessions()).sessions).toHaveLength(2);
  });

  it('a prompt cleared before its first request leaves nothing in the conversation that follows', async () => {
    const chat = await newChat([{ text: 'After the clear.' }]);
    const ended: string[] = [];
    const running = chat.prompt(
      { id: '1', text: 'cleared question' },
      { ...sink(), done: (_id, outcome) => ended.push(outcome) },
    );
    chat.clear(); // while the model and the project's instructions are looked up
    await running;
    expect(ended).toEqual(['cancelled']);
    expect(server?.modelRequests()).toHaveLength(0);
    await chat.prompt({ id: '2', text: 'fresh start' }, sink());
    const body = JSON.stringify(server?.modelRequests()[0]?.body);
    expect(body).toContain('fresh start');
    expect(body).not.toContain('cleared question');
    expect(await chat.exportSession()).not.toContain('cleared question');
  });
});

describe('session titles', () => {
  const titleOf = async (chat: ChatSession) =>
    (await chat.listSessions()).sessions.find((x) => x.id === chat.sessionId)?.title;

  async function settledTitle(chat: ChatSession, from: string) {
    for (let i = 0; i < 100; i++) {
      const title = await titleOf(chat);
      if (title !== from) return title;
      await new Promise((r) => setTimeout(r, 20));
    }
    return titleOf(chat);
  }

  it('the model titles a session after its first turn, with tools off and a tiny limit', async () => {
    const chat = await newChat(
      [{ text: 'Sure.' }, { text: 'Again.' }],
      {},
      { sessionTitle: '"Fixing the parser bug."' },
    );
    const run = sink();
    await chat.prompt({ id: '1', text: 'please fix the parser bug in src/parse.ts' }, run);
    expect(await settledTitle(chat, 'please fix the parser bug in src/parse.ts')).toBe(
      'Fixing the parser bug',
    );
    const asked = server?.requests.filter((r) => r.title) ?? [];
    expect(asked).toHaveLength(1);
    const body = asked[0]?.body as { tools?: unknown[]; max_tokens?: number; max_completion_tokens?: number };
    expect(body.tools ?? []).toEqual([]);
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(32);
    expect(JSON.stringify(body)).toContain('parser bug');
    // Only after the first turn.
    await chat.prompt({ id: '2', text: 'and the lexer' }, sink());
    await new Promise((r) => setTimeout(r, 100));
    expect(server?.requests.filter((r) => r.title)).toHaveLength(1);
    expect(run.notices).toEqual([]);
  });

  it('a failed title request keeps the heuristic title and does not touch the run', async () => {
    const chat = await newChat([{ text: 'Sure.' }], {}, { sessionTitle: { status: 400, body: 'nope' } });
    const run = sink();
    await chat.prompt({ id: '1', text: 'explain the build' }, run);
    await new Promise((r) => setTimeout(r, 200));
    expect(server?.requests.filter((r) => r.title)).toHaveLength(1);
    expect(await titleOf(chat)).toBe('explain the build');
    expect(run.notices).toEqual([]);
  });

  it('a rename while the title is on its way wins', async () => {
    const chat = await newChat(
      [{ text: 'Sure.' }],
      {},
      { sessionTitle: { text: 'Model title', delayMs: 300 } },
    );
    await chat.prompt({ id: '1', text: 'explain the build' }, sink());
    await chat.renameSession('My own name');
    await new Promise((r) => setTimeout(r, 600));
    expect(server?.requests.filter((r) => r.title)).toHaveLength(1);
    expect(await titleOf(chat)).toBe('My own name');
  });

  it("titles = 'heuristic' sends no title request", async () => {
    const chat = await newChat([{ text: 'Sure.' }], { titles: 'heuristic' });
    await chat.prompt({ id: '1', text: 'explain the build' }, sink());
    await new Promise((r) => setTimeout(r, 100));
    expect(server?.requests.filter((r) => r.title)).toHaveLength(0);
    expect(await titleOf(chat)).toBe('explain the build');
  });
});
