import { describe, expect, it } from 'vitest';
import { ChatSession } from '../../../src/agent/chat-session.js';
import type { RunSink } from '../../../src/agent/run-sink.js';
import { createLogger } from '../../../src/util/logger.js';
import { startLlmServer } from '../../helpers/llm-server.js';

interface Recorded {
  started: string[];
  text: string;
  reasoning: string;
  notices: string[];
  done: { outcome: string; error?: string | undefined }[];
}

function recorder(): { sink: RunSink; seen: Recorded } {
  const seen: Recorded = { started: [], text: '', reasoning: '', notices: [], done: [] };
  return {
    seen,
    sink: {
      started: (_id, model) => seen.started.push(model),
      text: (_id, t) => {
        seen.text += t;
      },
      reasoning: (_id, t) => {
        seen.reasoning += t;
      },
      notice: (t) => seen.notices.push(t),
      done: (_id, outcome, error) => seen.done.push({ outcome, error }),
    },
  };
}

const logger = createLogger(undefined);
const quietEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  AGENT_NVIM_NO_PROBE: '1',
  ...extra,
});

describe('ChatSession', () => {
  it('streams a configured provider model and keeps the conversation for the next prompt', async () => {
    await using server = await startLlmServer({
      turns: [{ text: 'First answer.' }, { text: 'Second answer.' }],
    });
    const chat = new ChatSession({ env: quietEnv(), logger, cwd: '/project' });
    chat.configure({
      providers: { local: { type: 'openai_compatible', base_url: server.url } },
      model: 'local/my-model',
    });
    const a = recorder();
    await chat.prompt({ id: '1', text: 'one' }, a.sink);
    expect(a.seen).toMatchObject({
      started: ['local/my-model'],
      text: 'First answer.',
      done: [{ outcome: 'done' }],
    });
    const b = recorder();
    await chat.prompt({ id: '2', text: 'two' }, b.sink);
    expect(b.seen.text).toBe('Second answer.');
    const body = server.modelRequests()[1]?.body as {
      model: string;
      messages: { role: string; content: unknown }[];
    };
    expect(body.model).toBe('my-model');
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(body.messages[0])).toContain('Mode: ask.');
    expect(JSON.stringify(body.messages[0])).toContain('Project root: /project.');
    expect(chat.status()).toMatchObject({
      model: 'local/my-model',
      running: false,
      messages: 4,
      mode: 'ask',
    });
  });

  it('tells the user what to configure when no provider exists anywhere', async () => {
    const chat = new ChatSession({ env: quietEnv(), logger, cwd: '/p' });
    chat.configure({});
    const r = recorder();
    await chat.prompt({ id: '1', text: 'hi' }, r.sink);
    expect(r.seen.started).toEqual([]);
    expect(r.seen.notices[0]).toContain("require('agent').setup({");
    expect(r.seen.done).toEqual([{ outcome: 'failed', error: 'No model provider is configured.' }]);
  });

  it('names a model whose provider is not configured', async () => {
    const chat = new ChatSession({ env: quietEnv(), logger, cwd: '/p' });
    chat.configure({ model: 'nowhere/model' });
    const r = recorder();
    await chat.prompt({ id: '1', text: 'hi' }, r.sink);
    expect(r.seen.done[0]?.outcome).toBe('failed');
    expect(r.seen.done[0]?.error).toContain('"nowhere/model" names no configured provider');
  });

  it('stop() cancels a stream in flight and the next prompt works', async () => {
    await using server = await startLlmServer({
      turns: [
        { text: 'this never ends', hang: true, done: false, finishReason: null, usageChunk: 'never' },
        { text: 'fresh' },
      ],
    });
    const chat = new ChatSession({
      env: quietEnv({ AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' }),
      logger,
      cwd: '/p',
    });
    chat.configure({});
    const r = recorder();
    const run = chat.prompt({ id: '1', text: 'go' }, r.sink);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.seen, JSON.stringify(r.seen)).toMatchObject({ done: [] });
    expect(chat.status().running).toBe(true);
    chat.stop();
    await run;
    expect(r.seen.done).toEqual([{ outcome: 'cancelled', error: undefined }]);
    const next = recorder();
    await chat.prompt({ id: '2', text: 'again' }, next.sink);
    expect(next.seen.text).toBe('fresh');
  });

  it('reports retries to the user and fails with one sentence after a broken stream', async () => {
    await using server = await startLlmServer({
      turns: [
        { status: 429, headers: { 'retry-after': '0' } },
        { text: 'partial answer', cutAfter: 2 },
      ],
    });
    const chat = new ChatSession({
      env: quietEnv({ AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' }),
      logger,
      cwd: '/p',
    });
    chat.configure({});
    const r = recorder();
    await chat.prompt({ id: '1', text: 'go' }, r.sink);
    expect(r.seen.notices.some((n) => /retrying in \d+ s \(attempt 1 of \d+\)/.test(n))).toBe(true);
    expect(r.seen.done[0]?.outcome).toBe('failed');
    expect(r.seen.done[0]?.error).toBeTruthy();
    expect(chat.status().messages).toBe(1);
  });
});
