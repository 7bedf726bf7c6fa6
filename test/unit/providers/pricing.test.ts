import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../../src/history/types.js';
import { builtinContextWindow, builtinPrice, normalizeModelId } from '../../../src/providers/model-table.js';
import { costOf, costOfMessages, priceFromOpenRouter } from '../../../src/providers/pricing.js';

const usage = { input: 1_000_000, output: 100_000, cacheRead: 2_000_000, cacheWrite: 0 };

function reply(provider: string, model: string): AssistantMessage {
  return {
    role: 'assistant',
    id: 'm',
    text: '',
    toolCalls: [],
    finishReason: 'stop',
    provider,
    model,
    usage,
    createdAt: 0,
  };
}

describe('model table and pricing', () => {
  it('matches the longest prefix, ignoring vendor prefixes, tags and dots', () => {
    expect(normalizeModelId('anthropic/claude-sonnet-4.5')).toBe('claude-sonnet-4-5');
    expect(builtinContextWindow('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(builtinContextWindow('gpt-4.1-nano')).toBe(1_047_576);
    expect(builtinContextWindow('llama3.1:70b')).toBe(131_072);
    expect(builtinContextWindow('totally-new-model')).toBeUndefined();
    expect(builtinPrice('anthropic', 'claude-opus-4-5-20251101')?.input).toBe(5);
    expect(builtinPrice('anthropic', 'claude-opus-4-1')?.input).toBe(15);
    expect(builtinPrice('openai', 'gpt-4o-mini')?.input).toBe(0.15);
    expect(builtinPrice('ollama', 'anything')).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(builtinPrice('openai_compatible', 'gpt-4o')).toBeUndefined();
  });

  it('prices usage, reading OpenRouter per-token strings, and stays unknown when unknown', () => {
    expect(costOf(usage, { input: 3, output: 15, cacheRead: 0.3 })).toBeCloseTo(3 + 1.5 + 0.6);
    expect(costOf(usage, undefined)).toBeUndefined();
    expect(priceFromOpenRouter({ prompt: '0.000003', completion: '0.000015' })).toEqual({
      input: 3,
      output: 15,
    });
    expect(priceFromOpenRouter({ prompt: '-1' })).toBeUndefined();
  });

  it('sums a session by each message provider and model', async () => {
    const priceOf = async (provider: string) => (provider === 'known' ? { input: 1, output: 1 } : undefined);
    expect(await costOfMessages([reply('known', 'a'), reply('known', 'b')], priceOf)).toBeCloseTo(
      2 * (1 + 0.1 + 2),
    );
    expect(await costOfMessages([reply('known', 'a'), reply('mystery', 'b')], priceOf)).toBeUndefined();
  });
});
