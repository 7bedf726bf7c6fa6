import { describe, expect, it } from 'vitest';
import {
  appendUser,
  commitAssistant,
  createHistory,
  recordToolResult,
} from '../../../src/history/conversation.js';
import { createProvider } from '../../../src/providers/create-provider.js';
import { costOf } from '../../../src/providers/pricing.js';
import { type ScriptedResponse, startLlmServer } from '../../helpers/llm-server.js';
import { must, request, runStream } from './run-stream.js';

type Json = Record<string, unknown>;

async function serve(
  turns: ScriptedResponse[] | string,
  type: 'openai_compatible' | 'openai' = 'openai_compatible',
) {
  const server = await startLlmServer(turns);
  const provider = createProvider('local', {
    type,
    base_url: server.url,
    api_key: 'sk-test-abcdefghijklmnop',
  });
  return { server, provider };
}

function lastBody(server: { modelRequests(): Array<{ body: unknown }> }): Json {
  return server.modelRequests().at(-1)?.body as Json;
}

describe('chat completions adapter', () => {
  it('streams text, asks for usage and commits on [DONE]', async () => {
    const { server, provider } = await serve([
      { text: 'Hello there, friend.', usage: { input: 1000, output: 200 } },
    ]);
    await using _ = server;
    const out = await runStream(provider, request());
    expect(out.error).toBeUndefined();
    expect(out.text).toBe('Hello there, friend.');
    expect(out.message).toMatchObject({ text: 'Hello there, friend.', finishReason: 'stop', toolCalls: [] });
    expect(out.message?.usage).toEqual({
      input: 1000,
      output: 200,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
    });
    const body = lastBody(server);
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect((body.messages as Json[])[0]).toEqual({ role: 'system', content: 'You are a test.' });
    expect((body.tools as Json[]).map((t) => (t.function as Json).name)).toEqual([
      'read_file',
      'glob',
      'search_code',
      'shell',
    ]);
  });

  it('assembles tool calls streamed over many small TCP chunks', async () => {
    const args = { path: 'src/é/ünïcode-✓.ts', lines: [1, 2, 3], nested: { deep: 'x'.repeat(200) } };
    const { server, provider } = await serve([
      {
        text: 'Let me look — ✓',
        toolCalls: [
          { id: 'call_1', name: 'read_file', arguments: args },
          { id: 'call_2', name: 'glob', arguments: { pattern: '**/*.lua' } },
        ],
        chunkSize: 16,
        splitBytes: 7,
      },
    ]);
    await using _ = server;
    const out = await runStream(provider, request());
    expect(out.error).toBeUndefined();
    expect(out.message?.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_1', 'read_file', args],
      ['call_2', 'glob', { pattern: '**/*.lua' }],
    ]);
    expect(out.message?.finishReason).toBe('tool_calls');
    expect(out.events.filter((e) => e.type === 'tool_call_start')).toHaveLength(2);
  });

  it.each([
    [
      'parallel-index-zero',
      [
        ['call_a', 'read_file', { path: 'a.ts' }],
        ['call_b', 'read_file', { path: 'b.ts' }],
      ],
    ],
    [
      'no-index-no-type',
      [
        ['call_x', 'glob', { pattern: '*.md' }],
        ['call_y', 'search_code', { query: 'TODO' }],
      ],
    ],
    ['repeated-id-name', [['call_r', 'shell', { command: 'ls' }]]],
    ['ollama-whole-call-stop', [['call_o1', 'read_file', { path: 'README.md' }]]],
  ])('survives the %s quirk', async (name, expected) => {
    const { server, provider } = await serve(`fixtures/llm/quirks/${name}.json`);
    await using _ = server;
    const out = await runStream(provider, request());
    expect(out.error).toBeUndefined();
    expect(out.message?.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual(expected);
    expect(out.message?.finishReason).toBe('tool_calls');
  });

  it('reads content parts and keeps reasoning out of the text', async () => {
    const { server, provider } = await serve('fixtures/llm/quirks/content-parts.json');
    await using _ = server;
    const out = await runStream(provider, request());
    expect(out.message?.text).toBe('The answer is 42.');
    expect(out.message?.reasoning).toBe('Hmm. Let me think.');
    expect(out.text).toBe('The answer is 42.');
  });

  it('replays DeepSeek reasoning_content to the same provider only', async () => {
    const { server, provider } = await serve('fixtures/llm/quirks/deepseek-reasoning.json');
    await using _ = server;
    const history = createHistory();
    appendUser(history, 'read x');
    const first = await runStream(provider, request({ messages: history.messages }));
    expect(first.error).toBeUndefined();
    expect(first.message?.text).toBe('Reading.');
    expect(first.message?.reasoning).toBe('Need the file. Call read_file.');
    expect(first.message?.usage).toMatchObject({ input: 40, cacheRead: 60, output: 20 });
    const message = commitAssistant(history, must(first.message));
    recordToolResult(history, message.id, must(message.toolCalls[0]).id, { output: 'file body' });
    const second = await runStream(provider, request({ messages: history.messages }));
    expect(second.message?.text).toBe('Done.');
    const replayed = (lastBody(server).messages as Json[]).filter((m) => m.role !== 'system');
    expect(replayed).toEqual([
      { role: 'user', content: 'read x' },
      {
        role: 'assistant',
        content: 'Reading.',
        reasoning_content: 'Need the file. Call read_file.',
        tool_calls: [
          { id: 'call_ds', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_ds', content: 'file body' },
    ]);
    // Another provider never sees it.
    const other = createProvider('other', { type: 'openai_compatible', base_url: server.url });
    server.push({ text: 'x' });
    await runStream(other, request({ messages: history.messages }));
    const forOther = (lastBody(server).messages as Json[])[2];
    expect(forOther).not.toHaveProperty('reasoning_content');
    // The same provider keeps getting it on later turns (DeepSeek answers 400 otherwise), but
    // not for the turn that called no tool.
    commitAssistant(history, must(second.message));
    appendUser(history, 'next question');
    server.push({ text: 'y' });
    await runStream(provider, request({ messages: history.messages }));
    const later = lastBody(server).messages as Json[];
    expect(later[2]).toHaveProperty('reasoning_content', 'Need the file. Call read_file.');
    expect(later[4]).toEqual({ role: 'assistant', content: 'Done.' });
  });

  it('keeps OpenRouter reasoning once and Gemini thought signatures per call', async () => {
    const or = await serve('fixtures/llm/quirks/openrouter-reasoning.json');
    await using _a = or.server;
    const a = await runStream(or.provider, request());
    expect(a.message?.reasoning).toBe('Thinking.');
    expect(a.message?.replay?.data.reasoning_details).toEqual([
      {
        type: 'reasoning.text',
        text: 'Thinking.',
        index: 0,
        format: 'anthropic-claude-v1',
        signature: 'sig-or',
      },
    ]);

    const gem = await serve('fixtures/llm/quirks/gemini-thought-signature.json');
    await using _b = gem.server;
    const history = createHistory();
    appendUser(history, 'go');
    const b = await runStream(gem.provider, request({ messages: history.messages }));
    const m = commitAssistant(history, must(b.message));
    recordToolResult(history, m.id, must(m.toolCalls[0]).id, { output: 'a.ts' });
    await runStream(gem.provider, request({ messages: history.messages }));
    const assistant = (lastBody(gem.server).messages as Json[])[2] as Json;
    expect((assistant.tool_calls as Json[])[0]?.extra_content).toEqual({
      google: { thought_signature: 'c2lnbmF0dXJl' },
    });
  });

  it('commits a clean end without [DONE] only after a finish reason', async () => {
    const { server, provider } = await serve([
      { text: 'complete', done: false },
      { text: 'incomplete', done: false, finishReason: null },
    ]);
    await using _ = server;
    const ok = await runStream(provider, request());
    expect(ok.message?.text).toBe('complete');
    const bad = await runStream(provider, request());
    expect(bad.message).toBeUndefined();
    expect(bad.error?.kind).toBe('incomplete');
    expect(bad.error?.message).toMatch(/ended before it was complete/);
  });

  it('fails without committing on a cut connection, a truncation or invalid arguments', async () => {
    const { server, provider } = await serve([
      { text: 'abcdefghijklmnopqrstuvwxyz', chunkSize: 2, cutAfter: 5 },
      { text: 'cut off', finishReason: 'length' },
      { toolCalls: [{ name: 'read_file', arguments: '{"path": "a' }] },
    ]);
    await using _ = server;
    const cut = await runStream(provider, request());
    expect(cut.message).toBeUndefined();
    expect(cut.error?.kind).toBe('network');
    expect(server.modelRequests()).toHaveLength(1); // text had streamed: no silent retry
    const truncated = await runStream(provider, request());
    expect(truncated.error?.kind).toBe('incomplete');
    const invalid = await runStream(provider, request());
    expect(invalid.error?.kind).toBe('invalid_response');
    expect(invalid.error?.message).toMatch(/invalid JSON arguments for tool read_file/);
  });

  it('retries a 429 honouring retry-after and shows the retry', async () => {
    const { server, provider } = await serve([
      { status: 429, headers: { 'retry-after': '0.05' } },
      { status: 503 },
      { text: 'finally' },
    ]);
    await using _ = server;
    const started = Date.now();
    const out = await runStream(provider, request());
    expect(out.message?.text).toBe('finally');
    const retries = out.events.filter((e) => e.type === 'retry');
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 50 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(server.modelRequests()).toHaveLength(3);
  });

  it('tolerates garbage lines, CRLF and keep-alives', async () => {
    const { server, provider } = await serve([
      { text: 'still fine ✓', garbage: true, crlf: true, splitBytes: 4 },
    ]);
    await using _ = server;
    const out = await runStream(provider, request());
    expect(out.message?.text).toBe('still fine ✓');
  });

  it('fails on a malformed data line without committing', async () => {
    const { server, provider } = await serve([{ raw: ['data: {"choices": [\n\n', 'data: [DONE]\n\n'] }]);
    await using _ = server;
    const out = await runStream(provider, request());
    expect(out.error?.kind).toBe('invalid_response');
  });

  it('gives reused and missing call ids local ones so results never collide', async () => {
    const { server, provider } = await serve([
      { toolCalls: [{ id: 'call_0', name: 'read_file', arguments: { path: 'a' } }] },
      { toolCalls: [{ id: 'call_0', name: 'read_file', arguments: { path: 'b' } }] },
      { toolCalls: [{ id: null, name: 'glob', arguments: {} }] },
      { text: 'end' },
    ]);
    await using _ = server;
    const history = createHistory();
    appendUser(history, 'go');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const out = await runStream(provider, request({ messages: history.messages }));
      const m = commitAssistant(history, must(out.message));
      const call = must(m.toolCalls[0]);
      ids.push(call.id);
      expect(recordToolResult(history, m.id, call.id, { output: `result ${i}` })).toBe(true);
      expect(recordToolResult(history, m.id, call.id, { output: 'again' })).toBe(false);
    }
    expect(ids[0]).toBe('call_0');
    expect(ids[1]).not.toBe('call_0');
    expect(ids[2]).toMatch(/^call_[A-Za-z0-9]+$/);
    await runStream(provider, request({ messages: history.messages }));
    const toolMessages = (lastBody(server).messages as Json[]).filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => [m.tool_call_id, m.content])).toEqual([
      [ids[0], 'result 0'],
      [ids[1], 'result 1'],
      [ids[2], 'result 2'],
    ]);
  });

  it('cancels at once through the AbortSignal', async () => {
    const { server, provider } = await serve([
      { text: 'slow start', hang: true, done: false, finishReason: null },
    ]);
    await using _ = server;
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const out = await runStream(provider, request(), controller.signal);
    expect(out.error?.kind).toBe('cancelled');
    expect(out.error?.message).toBe('Cancelled.');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('redacts keys from error messages', async () => {
    const key = 'sk-test-abcdefghijklmnop';
    const { server, provider } = await serve([
      {
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' } },
      },
      { status: 400, body: { error: { message: `bad request for key ${key}` } } },
    ]);
    await using _ = server;
    const auth = await runStream(provider, request());
    expect(auth.error?.kind).toBe('auth');
    expect(auth.error?.message).not.toContain(key);
    expect(auth.error?.message).toMatch(/rejected the API key/);
    const bad = await runStream(provider, request());
    expect(bad.error?.message).not.toContain(key);
    expect(bad.error?.message).toContain('[REDACTED]');
  });

  it('computes cost from usage with the pricing table, unknown for unknown models', async () => {
    const { server, provider } = await serve(
      [{ text: 'x', usage: { input: 1_000_000, output: 1_000_000 } }],
      'openai',
    );
    await using _ = server;
    const out = await runStream(provider, request({ model: 'gpt-4o-2024-08-06' }));
    expect(costOf(must(out.message?.usage), await provider.price('gpt-4o-2024-08-06'))).toBeCloseTo(12.5);
    expect(await provider.price('my-finetune')).toBeUndefined();
    expect(lastBody(server)).not.toHaveProperty('max_tokens');
  });
});
