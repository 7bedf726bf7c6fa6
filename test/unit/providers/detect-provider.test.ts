import { describe, expect, it } from 'vitest';
import { detectProvider, type Probe } from '../../../src/providers/detect-provider.js';

const answering =
  (answers: Record<string, unknown>): Probe =>
  async (url) =>
    answers[url];

describe('detectProvider', () => {
  it('honours AGENT_NVIM_BASE_URL first, asking the server for a model when none is named', async () => {
    const probe = answering({ 'http://127.0.0.1:9/v1/models': { data: [{ id: 'scripted' }] } });
    expect(
      await detectProvider({ AGENT_NVIM_BASE_URL: 'http://127.0.0.1:9/v1/', ANTHROPIC_API_KEY: 'k' }, probe),
    ).toEqual({
      id: 'env',
      config: { type: 'openai_compatible', base_url: 'http://127.0.0.1:9/v1' },
      model: 'scripted',
    });
    const named = await detectProvider(
      { AGENT_NVIM_BASE_URL: 'http://x/v1', AGENT_NVIM_MODEL: 'm' },
      answering({}),
    );
    expect(named?.model).toBe('m');
  });

  it('prefers Anthropic, then OpenAI, then OpenRouter keys', async () => {
    const none = answering({});
    expect((await detectProvider({ OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b' }, none))?.id).toBe(
      'anthropic',
    );
    expect((await detectProvider({ OPENAI_API_KEY: 'a', OPENROUTER_API_KEY: 'c' }, none))?.id).toBe('openai');
    expect((await detectProvider({ OPENROUTER_API_KEY: 'c' }, none))?.config.type).toBe('openrouter');
  });

  it('probes local servers in parallel and takes Ollama before llama.cpp and LM Studio', async () => {
    const calls: string[] = [];
    const probe: Probe = async (url, timeout) => {
      calls.push(url);
      expect(timeout).toBeLessThanOrEqual(500);
      if (url.includes('1234')) return { data: [{ id: 'lm-model' }] };
      if (url.includes('11434')) return { models: [] }; // running, but nothing pulled
      return undefined;
    };
    expect(await detectProvider({}, probe)).toEqual({
      id: 'lmstudio',
      config: { type: 'lmstudio', base_url: 'http://127.0.0.1:1234/v1' },
      model: 'lm-model',
    });
    expect(calls).toHaveLength(3);
    const ollama = await detectProvider(
      {},
      answering({ 'http://127.0.0.1:11434/api/tags': { models: [{ name: 'qwen3:8b' }] } }),
    );
    expect(ollama?.model).toBe('qwen3:8b');
    expect(await detectProvider({}, answering({}))).toBeUndefined();
  });
});
