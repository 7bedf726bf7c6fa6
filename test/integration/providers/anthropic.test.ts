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

async function serve(turns: ScriptedResponse[], models?: string[]) {
  const server = await startLlmServer({ turns, ...(models ? { models } : {}) });
  const provider = createProvider('claude', {
    type: 'anthropic',
    base_url: server.anthropicUrl,
    api_key: 'sk-ant-test-0123456789abcdef',
    models: { 'claude-sonnet-4-5': { thinking_budget: 2048 } },
  });
  return { server, provider };
}

function lastBody(server: { modelRequests(): Array<{ body: unknown }> }): Json {
  return server.modelRequests().at(-1)?.body as Json;
}

describe('Anthropic adapter', () => {
  it('streams thinking, text and tool_use and replays signed thinking to itself', async () => {
    const { server, provider } = await serve([
      {
        reasoning: 'I should list the files.',
        reasoningSignature: 'EqQBCkYIARgCIkD',
        text: 'Listing.',
        toolCalls: [{ id: 'toolu_01', name: 'glob', arguments: { pattern: 'src/**/*.ts' } }],
        usage: { input: 300, output: 40, cacheRead: 1000, cacheWrite: 200 },
        chunkSize: 3,
        splitBytes: 64,
      },
      { text: 'Found them.' },
    ]);
    await using _ = server;
    const history = createHistory();
    appendUser(history, 'list');
    const first = await runStream(
      provider,
      request({ model: 'claude-sonnet-4-5', messages: history.messages }),
    );
    expect(first.error).toBeUndefined();
    expect(first.reasoning).toBe('I should list the files.');
    expect(first.text).toBe('Listing.');
    const message = must(first.message);
    expect(message).toMatchObject({
      text: 'Listing.',
      reasoning: 'I should list the files.',
      finishReason: 'tool_calls',
    });
    expect(message.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['toolu_01', 'glob', { pattern: 'src/**/*.ts' }],
    ]);
    expect(message.usage).toEqual({ input: 300, output: 40, cacheRead: 1000, cacheWrite: 200 });
    expect(costOf(must(message.usage), await provider.price('claude-sonnet-4-5'))).toBeCloseTo(
      (300 * 3 + 40 * 15 + 1000 * 0.3 + 200 * 3.75) / 1e6,
    );

    const body = lastBody(server);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } },
    ]);
    const tools = body.tools as Json[];
    expect(tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(tools[0]?.cache_control).toBeUndefined();

    const committed = commitAssistant(history, message);
    recordToolResult(history, committed.id, 'toolu_01', { output: 'a.ts\nb.ts' });
    appendUser(history, 'thanks');
    const second = await runStream(
      provider,
      request({ model: 'claude-sonnet-4-5', messages: history.messages }),
    );
    expect(second.message?.text).toBe('Found them.');
    const messages = lastBody(server).messages as Array<{ role: string; content: Json[] }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'I should list the files.', signature: 'EqQBCkYIARgCIkD' },
      { type: 'text', text: 'Listing.' },
      { type: 'tool_use', id: 'toolu_01', name: 'glob', input: { pattern: 'src/**/*.ts' } },
    ]);
    expect(messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01', content: 'a.ts\nb.ts', is_error: false },
      { type: 'text', text: 'thanks', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('retries overloaded (529) and a rate limit with retry-after', async () => {
    const { server, provider } = await serve([
      { status: 529, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { text: 'ok' },
    ]);
    await using _ = server;
    const out = await runStream(provider, request({ model: 'claude-haiku-4-5' }));
    expect(out.message?.text).toBe('ok');
    const retries = out.events.filter((e) => e.type === 'retry');
    expect(retries.map((r) => r.type === 'retry' && r.reason)).toEqual([
      expect.stringMatching(/overloaded/),
      expect.stringMatching(/rate limiting/),
    ]);
    expect(lastBody(server).max_tokens).toBe(16384);
  });

  it('fails without message_stop, on a mid-stream error and on max_tokens', async () => {
    const { server, provider } = await serve([
      {
        events: [
          {
            type: 'message_start',
            message: {
              id: 'm',
              type: 'message',
              role: 'assistant',
              content: [],
              model: 'c',
              usage: { input_tokens: 1, output_tokens: 1 },
            },
          },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'partial' } },
        ],
      },
      {
        raw: [
          'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
          'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        ],
        // Separate reads: the text reaches the user before the error, so it is not retried.
        delayMs: 20,
      },
      { text: 'long', finishReason: 'max_tokens' },
    ]);
    await using _ = server;
    const noStop = await runStream(provider, request());
    expect(noStop.message).toBeUndefined();
    expect(noStop.error?.kind).toBe('incomplete');
    const midError = await runStream(provider, request());
    expect(midError.message).toBeUndefined();
    expect(midError.error?.kind).toBe('overloaded');
    expect(midError.text).toBe('Hel');
    expect(server.modelRequests()).toHaveLength(2);
    const long = await runStream(provider, request());
    expect(long.error?.message).toMatch(/max_tokens/);
  });

  it('lists models from the server and merges the user list', async () => {
    const { server, provider } = await serve([], ['claude-opus-4-1', 'claude-3-5-haiku-20241022']);
    await using _ = server;
    const models = await provider.listModels();
    expect(models.map((m) => [m.id, m.contextWindow])).toEqual([
      ['claude-sonnet-4-5', 200_000],
      ['claude-opus-4-1', 200_000],
      ['claude-3-5-haiku-20241022', 200_000],
    ]);
    expect(provider.defaultModel).toBe('claude-sonnet-4-5');
  });

  it('reads the context window of a model the built-in table does not know from the list', async () => {
    await using server = await startLlmServer({
      turns: [],
      models: [{ id: 'claude-future-9', max_input_tokens: 500_000, max_tokens: 64_000 }],
    });
    const provider = createProvider('claude', {
      type: 'anthropic',
      base_url: server.anthropicUrl,
      api_key: 'sk-ant-x-0123456789',
    });
    expect(await provider.contextWindow('claude-future-9')).toBe(500_000);
    expect(await provider.contextWindow('claude-unlisted')).toBe(0);
  });

  it('keeps redacted thinking for replay and never shows it', async () => {
    const start = {
      id: 'm',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'c',
      usage: { input_tokens: 5, output_tokens: 1 },
    };
    const { server, provider } = await serve([
      {
        events: [
          { type: 'message_start', message: start },
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' },
          },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_9', name: 'shell', input: {} },
          },
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
          { type: 'content_block_stop', index: 1 },
          {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use', stop_sequence: null },
            usage: { output_tokens: 9 },
          },
          { type: 'message_stop' },
        ],
      },
      { text: 'done' },
    ]);
    await using _ = server;
    const history = createHistory();
    appendUser(history, 'run');
    const first = await runStream(
      provider,
      request({ model: 'claude-sonnet-4-5', messages: history.messages }),
    );
    const message = must(first.message);
    expect(first.reasoning).toBe('');
    expect(message.toolCalls.map((c) => [c.id, c.arguments])).toEqual([['toolu_9', {}]]);
    commitAssistant(history, message);
    recordToolResult(history, message.id, 'toolu_9', { output: '' });
    await runStream(provider, request({ model: 'claude-sonnet-4-5', messages: history.messages }));
    const messages = lastBody(server).messages as Array<{ role: string; content: Json[] }>;
    expect(messages[1]?.content[0]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' });
    expect(messages[2]?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_9',
      content: '(no output)',
    });
  });
});
