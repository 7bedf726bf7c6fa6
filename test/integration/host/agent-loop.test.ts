import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatSession } from '../../../src/agent/chat-session.js';
import type { Completion, RunSink, ToolView } from '../../../src/agent/run-sink.js';
import type { EditorPort } from '../../../src/agent/tool-editor.js';
import type { PermissionDecision, PermissionRequest } from '../../../src/tools/editor.js';
import { createLogger } from '../../../src/util/logger.js';
import { type LlmServer, type ScriptedResponse, startLlmServer } from '../../helpers/llm-server.js';

interface Seen {
  text: string;
  tools: ToolView[];
  notices: string[];
  plans: string[];
  done: { outcome: string; error?: string | undefined; completion?: Completion | undefined }[];
}

function recorder() {
  const seen: Seen = { text: '', tools: [], notices: [], plans: [], done: [] };
  const sink: RunSink = {
    started: () => undefined,
    text: (_id, t) => {
      seen.text += t;
    },
    reasoning: () => undefined,
    notice: (t) => seen.notices.push(t),
    tool: (_id, v) => seen.tools.push(v),
    planReady: (_id, p) => seen.plans.push(p),
    done: (_id, outcome, error, completion) => seen.done.push({ outcome, error, completion }),
  };
  return { seen, sink };
}

class FakeEditor implements EditorPort {
  asked: PermissionRequest[] = [];
  questions: string[] = [];
  changed: string[] = [];
  decide: (r: PermissionRequest) => PermissionDecision = () => 'once';
  answer: (q: string, options: string[]) => string = (_q, o) => o[0] ?? '';
  bufferText = async () => undefined;
  diagnostics = async () => [];
  lsp = async () => undefined;
  fileChanged = (p: string) => {
    this.changed.push(p);
  };
  askPermission = async (r: PermissionRequest) => {
    this.asked.push(r);
    return this.decide(r);
  };
  askUser = async (q: string, options: string[]) => {
    this.questions.push(q);
    return this.answer(q, options);
  };
}

const logger = createLogger(undefined);
let project: string;
let server: LlmServer | undefined;

beforeEach(() => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-loop-'));
  fs.writeFileSync(path.join(project, 'README.md'), 'Hello project\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(project, { recursive: true, force: true });
});

async function session(
  turns: ScriptedResponse[],
  editor = new FakeEditor(),
  config: Record<string, unknown> = {},
) {
  server = await startLlmServer({ turns });
  const chat = new ChatSession({
    env: { AGENT_NVIM_NO_PROBE: '1', AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'scripted' },
    logger,
    cwd: project,
    editor,
  });
  chat.configure({ cwd: project, ...config });
  return { chat, editor, server };
}

const toolResults = (body: unknown) =>
  ((body as { messages: { role: string; tool_call_id?: string; content: string }[] }).messages ?? []).filter(
    (m) => m.role === 'tool',
  );

describe('agent loop', () => {
  it('runs tool calls in order, stores results by call id, asks before writing, and reports changes', async () => {
    const { chat, editor } = await session([
      {
        text: 'Reading first.',
        toolCalls: [
          { id: 'c1', name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'c2', name: 'write_file', arguments: { path: 'src/new.txt', content: 'made\n' } },
        ],
      },
      { text: 'Wrote src/new.txt.' },
    ]);
    chat.setMode('agent');
    const r = recorder();
    await chat.prompt({ id: '1', text: 'make a file' }, r.sink);
    expect(fs.readFileSync(path.join(project, 'src/new.txt'), 'utf8')).toBe('made\n');
    expect(editor.asked.map((a) => a.tool)).toEqual(['write_file']);
    expect(editor.changed).toEqual([path.join(fs.realpathSync(project), 'src/new.txt')]);
    expect(r.seen.tools.map((t) => `${t.name}:${t.status}`)).toEqual([
      'read_file:running',
      'read_file:done',
      'write_file:running',
      'write_file:done',
    ]);
    const second = server?.modelRequests()[1]?.body;
    const results = toolResults(second);
    expect(results.map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    expect(results[0]?.content).toContain('Hello project');
    expect(r.seen.done[0]).toMatchObject({
      outcome: 'done',
      completion: { outcome: 'done', changed_files: ['src/new.txt'], checks: [], steps: 2 },
    });
  });

  it('a denied write goes back to the model with the reason and the run continues', async () => {
    const editor = new FakeEditor();
    editor.decide = () => ({ deny: 'not in this folder' });
    const { chat } = await session(
      [
        { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] },
        { text: 'OK, I will not.' },
      ],
      editor,
    );
    chat.setMode('agent');
    const r = recorder();
    await chat.prompt({ id: '1', text: 'write x' }, r.sink);
    expect(fs.existsSync(path.join(project, 'x.txt'))).toBe(false);
    expect(toolResults(server?.modelRequests()[1]?.body)[0]?.content).toContain('not in this folder');
    expect(r.seen.tools.at(-1)?.status).toBe('denied');
    expect(r.seen.done[0]?.outcome).toBe('done');
    expect(r.seen.done[0]?.completion?.changed_files).toEqual([]);
  });

  it('a call outside the mode gets "not available in Ask mode" and nothing is written', async () => {
    const { chat, editor } = await session([
      { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] },
      { text: 'I cannot write in Ask mode.' },
    ]);
    const r = recorder();
    await chat.prompt({ id: '1', text: 'write x' }, r.sink);
    expect(editor.asked).toEqual([]);
    expect(fs.existsSync(path.join(project, 'x.txt'))).toBe(false);
    expect(toolResults(server?.modelRequests()[1]?.body)[0]?.content).toContain('not available in Ask mode');
    const tools =
      ((server?.modelRequests()[0]?.body ?? {}) as { tools?: { function: { name: string } }[] }).tools ?? [];
    expect(tools.map((t) => t.function.name)).not.toContain('write_file');
    expect(tools.map((t) => t.function.name)).toContain('read_file');
  });

  it('stops at the step budget and warns the model as it runs low', async () => {
    const call = (i: number) => ({
      toolCalls: [{ id: `r${i}`, name: 'read_file', arguments: { path: 'README.md', offset: i } }],
    });
    const { chat } = await session(Array.from({ length: 12 }, (_, i) => call(i + 1)));
    const r = recorder();
    chat.configure({ cwd: project, max_steps: 11 });
    await chat.prompt({ id: '1', text: 'loop' }, r.sink);
    expect(r.seen.done[0]?.outcome).toBe('budget');
    const systems = (server?.modelRequests() ?? []).map((q) =>
      JSON.stringify((q.body as { messages: { role: string; content: unknown }[] }).messages[0]),
    );
    expect(systems[0]).not.toContain('steps remain');
    expect(systems[1]).toContain('10 steps remain');
    expect(systems[8]).toContain('only 3 steps remain');
  });

  it('asks the user before the fourth identical call in a row', async () => {
    const same = { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] };
    const editor = new FakeEditor();
    editor.answer = () => 'Stop this call';
    const { chat } = await session([same, same, same, same, { text: 'Giving up on that.' }], editor);
    const r = recorder();
    await chat.prompt({ id: '1', text: 'read' }, r.sink);
    expect(editor.questions).toHaveLength(1);
    expect(r.seen.tools.filter((t) => t.status === 'denied')).toHaveLength(1);
    expect(r.seen.done[0]?.outcome).toBe('done');
  });

  it('runs build_command after a file change and hands a failure back to the model', async () => {
    const { chat } = await session(
      [
        { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] },
        { text: 'I see the build failed.' },
      ],
      new FakeEditor(),
      { project: { build_command: 'echo compile error >&2; exit 3' } },
    );
    chat.setMode('agent');
    const r = recorder();
    await chat.prompt({ id: '1', text: 'write a' }, r.sink);
    const result = toolResults(server?.modelRequests()[1]?.body)[0]?.content ?? '';
    expect(result).toContain('compile error');
    expect(result).toContain('"passed":false');
    expect(r.seen.notices.some((n) => n.startsWith('Build failed'))).toBe(true);
    expect(r.seen.done[0]?.completion?.checks).toEqual([
      { command: 'echo compile error >&2; exit 3', exit_code: 3, passed: false },
    ]);
  });

  it('reads AGENTS.md from the root down to the working folder into the system prompt', async () => {
    fs.writeFileSync(path.join(project, 'AGENTS.md'), 'Use tabs.');
    fs.mkdirSync(path.join(project, 'pkg'));
    fs.writeFileSync(path.join(project, 'pkg', 'CLAUDE.md'), 'Package rules.');
    server = await startLlmServer({ turns: [{ text: 'ok' }] });
    const chat = new ChatSession({
      env: { AGENT_NVIM_NO_PROBE: '1', AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' },
      logger,
      cwd: path.join(project, 'pkg'),
    });
    chat.configure({ cwd: project });
    await chat.prompt({ id: '1', text: 'hi' }, recorder().sink);
    const system = JSON.stringify(
      ((server.modelRequests()[0]?.body ?? { messages: [] }) as { messages: unknown[] }).messages[0],
    );
    expect(system).toContain('Use tabs.');
    expect(system).toContain('Package rules.');
    expect(system.indexOf('Use tabs.')).toBeLessThan(system.indexOf('Package rules.'));
  });

  it('plan flow: proposed plan saved, Build switches to Agent with todos from its tasks', async () => {
    const plan = '# Add greeting\n\nWrite hello.txt.\n\n## Tasks\n- [ ] Create hello.txt\n- [ ] Check it\n';
    const editor = new FakeEditor();
    const { chat } = await session(
      [
        { text: `Here is the plan.\n<proposed_plan>\n${plan}</proposed_plan>` },
        {
          toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }],
        },
        { text: 'Done.' },
      ],
      editor,
    );
    chat.setMode('plan');
    const r = recorder();
    await chat.prompt({ id: '1', text: 'plan a greeting' }, r.sink);
    expect(r.seen.plans).toEqual(['.agent/plans/add-greeting.md']);
    expect(fs.readFileSync(path.join(project, '.agent/plans/add-greeting.md'), 'utf8')).toBe(plan);
    expect(chat.status()).toMatchObject({ mode: 'plan', plan: '.agent/plans/add-greeting.md' });
    const b = recorder();
    await chat.build('2', b.sink);
    expect(chat.status()).toMatchObject({ mode: 'agent', todos: 2 });
    expect(fs.readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('hello\n');
    const buildRequest = JSON.stringify(server?.modelRequests()[1]?.body);
    expect(buildRequest).toContain('Implement the plan in .agent/plans/add-greeting.md');
    expect(buildRequest).toContain('Create hello.txt');
    expect(b.seen.done[0]?.completion?.changed_files).toEqual(['hello.txt']);
  });

  it('Build pressed while a run is still going waits for it instead of failing', async () => {
    const plan = '# Greeting\n\n## Tasks\n- [ ] Create hello.txt\n';
    const { chat } = await session(
      [
        { text: `Plan:\n<proposed_plan>\n${plan}</proposed_plan>` },
        { text: 'One more thought, slowly.', chunkSize: 2, delayMs: 20 },
        {
          toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' } }],
        },
        { text: 'Built.' },
      ],
      new FakeEditor(),
    );
    chat.setMode('plan');
    await chat.prompt({ id: '1', text: 'plan a greeting' }, recorder().sink);
    const slow = chat.prompt({ id: '2', text: 'anything else?' }, recorder().sink);
    const b = recorder();
    await chat.build('3', b.sink);
    await slow;
    expect(b.seen.done).toEqual([expect.objectContaining({ outcome: 'done' })]);
    expect(fs.readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('applies permission rules and auto-approve before asking, and remembers "always"', async () => {
    const editor = new FakeEditor();
    editor.decide = (r) => (r.pattern.startsWith('touch') ? 'always' : 'once');
    const shell = (id: string, command: string) => ({
      toolCalls: [{ id, name: 'shell', arguments: { command } }],
    });
    const { chat } = await session(
      [
        shell('a', 'echo allowed-by-rule'),
        shell('b', 'rm -rf build'),
        shell('c', 'touch made.txt'),
        shell('d', 'touch made.txt'),
        { toolCalls: [{ id: 'e', name: 'write_file', arguments: { path: 'w.txt', content: 'w' } }] },
        shell('f', 'echo allowed-by-rule && touch other.txt'),
        { text: 'done' },
      ],
      editor,
      {
        permissions: [
          { tool: 'shell', pattern: 'echo *', action: 'allow' },
          { tool: 'shell', pattern: 'rm *', action: 'deny' },
        ],
        auto_approve: 'edits',
      },
    );
    chat.setMode('agent');
    const r = recorder();
    await chat.prompt({ id: '1', text: 'go' }, r.sink);
    // Asked: the first touch (answered "always") and the compound command; not the echo (rule),
    // not rm (denied by rule), not the second touch (always), not write_file (auto-approved edit).
    expect(editor.asked.map((a) => a.pattern)).toEqual([
      'touch made.txt',
      'echo allowed-by-rule && touch other.txt',
    ]);
    expect(r.seen.tools.filter((t) => t.status !== 'running').map((t) => `${t.call_id}:${t.status}`)).toEqual(
      ['a:done', 'b:denied', 'c:done', 'd:done', 'e:done', 'f:done'],
    );
    expect(fs.existsSync(path.join(project, 'w.txt'))).toBe(true);
  });

  it('tells the user about permission rules it cannot use, and keeps the good ones', async () => {
    const { chat } = await session([{ text: 'hi' }], new FakeEditor(), {
      permissions: [
        { tool: 'shell', action: 'maybe' },
        { tool: 'read_file', action: 'allow' },
      ],
    });
    const r = recorder();
    await chat.prompt({ id: '1', text: 'hi' }, r.sink);
    expect(r.seen.notices.some((n) => n.startsWith('Ignored permission rule: permissions[0]'))).toBe(true);
  });

  it('reading .env asks first; other reads do not', async () => {
    fs.writeFileSync(path.join(project, '.env'), 'SECRET=1\n');
    const editor = new FakeEditor();
    editor.decide = () => 'deny';
    const { chat } = await session(
      [
        {
          toolCalls: [
            { id: 'r1', name: 'read_file', arguments: { path: 'README.md' } },
            { id: 'r2', name: 'read_file', arguments: { path: '.env' } },
          ],
        },
        { text: 'ok' },
      ],
      editor,
    );
    await chat.prompt({ id: '1', text: 'read' }, recorder().sink);
    expect(editor.asked.map((a) => a.pattern)).toEqual(['.env']);
    const results = toolResults(server?.modelRequests()[1]?.body);
    expect(results[0]?.content).toContain('Hello project');
    expect(results[1]?.content).not.toContain('SECRET');
  });

  it('Stop during a shell command kills its process tree and leaves a complete history', async () => {
    const pidFile = path.join(project, 'grandchild.pid');
    const { chat } = await session([
      {
        toolCalls: [
          { id: 's', name: 'shell', arguments: { command: `sh -c 'sleep 60 & echo $! > ${pidFile}; wait'` } },
          { id: 'after', name: 'read_file', arguments: { path: 'README.md' } },
        ],
      },
      { text: 'next run' },
    ]);
    chat.setMode('agent');
    chat.configure({ cwd: project, auto_approve: true });
    chat.setMode('agent');
    const r = recorder();
    const run = chat.prompt({ id: '1', text: 'run it' }, r.sink);
    const deadline = Date.now() + 5000;
    while (!fs.existsSync(pidFile) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    chat.stop();
    await run;
    expect(r.seen.done[0]?.outcome).toBe('cancelled');
    await new Promise((res) => setTimeout(res, 200));
    // Gone, or a zombie waiting for a reaper that this sandbox may not run.
    const state = fs.existsSync(`/proc/${pid}/stat`)
      ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2]
      : 'gone';
    expect(['gone', 'Z', 'X']).toContain(state);
    // Every call has a result: the next request is accepted as a complete sequence.
    const next = recorder();
    await chat.prompt({ id: '2', text: 'again' }, next.sink);
    expect(next.seen.done[0]?.outcome).toBe('done');
    const ids = toolResults(server?.modelRequests()[1]?.body).map((m) => m.tool_call_id);
    expect(ids).toEqual(['s', 'after']);
  });

  it('plan flow: one question, a saved plan, Build, and the todos finished', async () => {
    const plan = '# Greeting\n\n## Tasks\n- [ ] Create hello.txt\n- [ ] Say so\n';
    const editor = new FakeEditor();
    editor.answer = (_q, options) => options[1] ?? '';
    const { chat } = await session(
      [
        {
          toolCalls: [
            {
              id: 'q',
              name: 'ask_user',
              arguments: { question: 'Which greeting?', options: ['hi', 'hello'] },
            },
          ],
        },
        {
          toolCalls: [{ id: 'p', name: 'create_plan_file', arguments: { name: 'greeting', content: plan } }],
        },
        { text: 'The plan is saved.' },
        {
          toolCalls: [
            { id: 'w', name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } },
            {
              id: 't',
              name: 'todo',
              arguments: {
                items: [
                  { content: 'Create hello.txt', status: 'completed' },
                  { content: 'Say so', status: 'completed' },
                ],
              },
            },
          ],
        },
        { text: 'Built: hello.txt says hello.' },
      ],
      editor,
    );
    chat.setMode('plan');
    const r = recorder();
    await chat.prompt({ id: '1', text: 'plan a greeting' }, r.sink);
    expect(editor.questions).toEqual(['Which greeting?']);
    expect(toolResults(server?.modelRequests()[1]?.body)[0]?.content).toContain('hello');
    expect(r.seen.plans).toEqual(['.agent/plans/greeting.md']);
    const b = recorder();
    await chat.build('2', b.sink);
    expect(JSON.stringify(server?.modelRequests()[3]?.body)).toContain(
      'Implement the plan in .agent/plans/greeting.md',
    );
    expect(chat.status()).toMatchObject({ mode: 'agent', todos: 2 });
    expect(fs.readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(b.seen.done[0]?.outcome).toBe('done');
  });
});
