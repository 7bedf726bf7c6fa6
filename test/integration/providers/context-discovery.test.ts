import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/providers/create-provider.js';
import type { ProviderType } from '../../../src/providers/provider.js';
import { startLlmServer } from '../../helpers/llm-server.js';

describe('context-window discovery from recorded server answers', () => {
  it.each<[ProviderType, string, string, number]>([
    ['vllm', 'vllm', 'Qwen/Qwen2.5-7B-Instruct', 32768],
    ['openrouter', 'openrouter', 'qwen/qwen3-coder', 262144],
    ['openrouter', 'openrouter', 'some/unknown-model', 65536],
    ['lmstudio', 'lmstudio', 'qwen/qwen3-4b', 8192],
    ['lmstudio', 'lmstudio', 'google/gemma-3-12b', 131072],
    ['ollama', 'ollama', 'phi4-custom:latest', 16384],
    ['llamacpp', 'llamacpp', 'my-gguf', 16384],
  ])('%s (%s fixture) finds %s', async (type, fixture, model, expected) => {
    await using server = await startLlmServer(`fixtures/llm/discovery/${fixture}.json`);
    // None of these ids is in the built-in table, so the answer must come from the server.
    const provider = createProvider('p', { type, base_url: server.url, api_key: 'sk-or-test-key-0000' });
    expect(await provider.contextWindow(model)).toBe(expected);
  });

  it('reads Ollama num_ctx from the model parameters before the architecture length', async () => {
    await using server = await startLlmServer({
      turns: [],
      routes: {
        'POST /api/show': {
          body: {
            parameters: 'num_ctx                        32768\nstop "<|end|>"',
            model_info: { 'general.architecture': 'x', 'x.context_length': 131072 },
          },
        },
      },
    });
    const provider = createProvider('o', { type: 'ollama', base_url: server.url });
    expect(await provider.contextWindow('custom:tag')).toBe(32768);
    expect(server.requests.find((r) => r.path === '/api/show')?.body).toEqual({ model: 'custom:tag' });
  });

  it('prefers the user override, then the built-in table, and says 0 when nobody knows', async () => {
    await using server = await startLlmServer({ turns: [], models: ['mystery'] });
    const provider = createProvider('p', {
      type: 'openai_compatible',
      base_url: server.url,
      models: { 'custom-ctx': { context_window: 4096 } },
      context_window: { 'gpt-4o': 1234 },
    });
    expect(await provider.contextWindow('custom-ctx')).toBe(4096);
    expect(await provider.contextWindow('gpt-4o')).toBe(1234);
    expect(await provider.contextWindow('gpt-4.1-mini')).toBe(1_047_576);
    expect(await provider.contextWindow('mystery')).toBe(0);
  });

  it('takes OpenRouter prices from its model list', async () => {
    await using server = await startLlmServer('fixtures/llm/discovery/openrouter.json');
    const provider = createProvider('or', {
      type: 'openrouter',
      base_url: server.url,
      api_key: 'sk-or-x-123456',
    });
    await provider.listModels();
    const price = await provider.price('qwen/qwen3-coder');
    expect(price?.input).toBeCloseTo(0.2);
    expect(price?.output).toBeCloseTo(0.8);
    expect(price?.cacheRead).toBeCloseTo(0.02);
    expect(await provider.price('some/unknown-model')).toBeUndefined();
  });

  it('lists server models after the configured ones, and a keyless local server works', async () => {
    await using server = await startLlmServer('fixtures/llm/discovery/vllm.json');
    const provider = createProvider('v', { type: 'vllm', base_url: server.url, models: ['mine'] });
    expect(await provider.listModels()).toEqual([
      { id: 'mine', contextWindow: 0, configured: true },
      { id: 'Qwen/Qwen2.5-7B-Instruct', contextWindow: 32768 },
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer no-key');
  });
});
