import { describe, expect, it } from 'vitest';
import {
  appendUser,
  commitAssistant,
  createHistory,
  recordToolResult,
} from '../../../src/history/conversation.js';
import { createProvider } from '../../../src/providers/create-provider.js';
import { startLlmServer } from '../../helpers/llm-server.js';
import { must, request, runStream } from './run-stream.js';

type Json = Record<string, unknown>;

describe('OpenAI Responses API', () => {
  it('is used for reasoning models, with store: false and encrypted reasoning replayed', async () => {
    await using server = await startLlmServer([
      {
        reasoning: 'Look at the file first.',
        reasoningSignature: 'gAAAAB-encrypted',
        text: 'Checking.',
        toolCalls: [{ id: 'call_r1', name: 'read_file', arguments: { path: 'a.ts' } }],
        usage: { input: 100, cacheRead: 50, output: 30, reasoning: 12 },
        splitBytes: 97,
      },
      { text: 'All good.' },
    ]);
    const provider = createProvider('openai', {
      type: 'openai',
      base_url: server.url,
      api_key: 'sk-test-responses-123456',
    });
    const history = createHistory();
    appendUser(history, 'check a.ts');
    const first = await runStream(provider, request({ model: 'gpt-5-mini', messages: history.messages }));
    expect(first.error).toBeUndefined();
    expect(first.reasoning).toBe('Look at the file first.');
    expect(first.text).toBe('Checking.');
    const message = must(first.message);
    expect(message.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_r1', 'read_file', { path: 'a.ts' }],
    ]);
    expect(message.usage).toEqual({ input: 100, cacheRead: 50, output: 30, cacheWrite: 0, reasoning: 12 });
    const firstRequest = must(server.modelRequests()[0]);
    expect(firstRequest.path).toBe('/v1/responses');
    expect(firstRequest.body).toMatchObject({
      store: false,
      include: ['reasoning.encrypted_content'],
      instructions: 'You are a test.',
      input: [{ role: 'user', content: 'check a.ts' }],
    });

    commitAssistant(history, message);
    recordToolResult(history, message.id, 'call_r1', { output: 'export {}' });
    const second = await runStream(provider, request({ model: 'gpt-5-mini', messages: history.messages }));
    expect(second.message?.text).toBe('All good.');
    const input = (must(server.modelRequests()[1]).body as Json).input as Json[];
    expect(input).toEqual([
      { role: 'user', content: 'check a.ts' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Look at the file first.' }],
        encrypted_content: 'gAAAAB-encrypted',
      },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Checking.', annotations: [] }],
      },
      { type: 'function_call', call_id: 'call_r1', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { type: 'function_call_output', call_id: 'call_r1', output: 'export {}' },
    ]);
  });

  it('keeps chat completions for other models and when the entry asks for it', async () => {
    await using server = await startLlmServer([{ text: 'a' }, { text: 'b' }]);
    const openai = createProvider('openai', { type: 'openai', base_url: server.url, api_key: 'k-123456' });
    await runStream(openai, request({ model: 'gpt-4.1' }));
    const chat = createProvider('o2', {
      type: 'openai',
      base_url: server.url,
      api_key: 'k-123456',
      api: 'chat',
    });
    await runStream(chat, request({ model: 'o3' }));
    expect(server.modelRequests().map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
    expect(must(server.modelRequests()[1]).body).toMatchObject({ model: 'o3' });
  });

  it('passes the configured reasoning effort on both routes', async () => {
    await using server = await startLlmServer([{ text: 'a' }, { text: 'b' }]);
    const provider = createProvider('openai', {
      type: 'openai',
      base_url: server.url,
      api_key: 'k-123456',
      models: { 'gpt-5': { reasoning_effort: 'high' }, 'gpt-4.1': {} },
      pricing: {},
    });
    await runStream(provider, request({ model: 'gpt-5' }));
    const deepseek = createProvider('ds', {
      type: 'openai_compatible',
      base_url: server.url,
      models: { 'deepseek-reasoner': { reasoning_effort: 'low' } },
    });
    await runStream(deepseek, request({ model: 'deepseek-reasoner' }));
    const [responses, chat] = server.modelRequests().map((r) => r.body as Json);
    expect(responses?.reasoning).toEqual({ summary: 'auto', effort: 'high' });
    expect(chat?.reasoning_effort).toBe('low');
  });

  it('fails on an incomplete response and without response.completed', async () => {
    await using server = await startLlmServer([
      { text: 'long', finishReason: 'max_output_tokens' },
      { text: 'cut', cutAfter: 3 },
    ]);
    const provider = createProvider('openai', { type: 'openai', base_url: server.url, api_key: 'k-123456' });
    const long = await runStream(provider, request({ model: 'o4-mini' }));
    expect(long.error?.kind).toBe('incomplete');
    expect(long.error?.message).toMatch(/max_output_tokens/);
    const cut = await runStream(provider, request({ model: 'o4-mini' }));
    expect(cut.message).toBeUndefined();
    expect(cut.error).toBeDefined();
  });
});
