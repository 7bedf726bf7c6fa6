/**
 * Built-in facts about common hosted models: context windows and list prices (USD per million
 * tokens). Looked up by longest prefix of the model id, without any `vendor/` prefix and with
 * dots read as dashes, so `anthropic/claude-sonnet-4.5` finds `claude-sonnet-4-5`.
 * Unknown stays unknown: callers get undefined, never a guess.
 */
import type { ProviderType } from './provider.js';

export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

const CONTEXT: Record<string, number> = {
  'gpt-3-5-turbo': 16_385,
  'gpt-4': 8_192,
  'gpt-4-turbo': 128_000,
  'gpt-4o': 128_000,
  'gpt-4-1': 1_047_576,
  'gpt-5': 400_000,
  'gpt-5-chat': 128_000,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o4-mini': 200_000,
  'claude-3': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-opus-4': 200_000,
  'claude-haiku-4': 200_000,
  'deepseek-chat': 128_000,
  'deepseek-reasoner': 128_000,
  'gemini-1-5-pro': 2_097_152,
  'gemini-1-5-flash': 1_048_576,
  'gemini-2': 1_048_576,
  'mistral-large': 131_072,
  codestral: 256_000,
  'llama3-1': 131_072,
  'llama3-2': 131_072,
  'llama3-3': 131_072,
  'qwen2-5-coder': 32_768,
  'qwen3-coder': 262_144,
};

const PRICES: Partial<Record<ProviderType, Record<string, Price>>> = {
  openai: {
    'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
    'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
    'gpt-4-1': { input: 2, output: 8, cacheRead: 0.5 },
    'gpt-4-1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
    'gpt-4-1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
    'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
    'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
    'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
    o3: { input: 2, output: 8, cacheRead: 0.5 },
    'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
    'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  },
  anthropic: {
    'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-3-5-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
    'claude-3-haiku': { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
  },
};

/** Local servers cost nothing per token. */
const FREE_TYPES: ReadonlySet<ProviderType> = new Set(['ollama', 'lmstudio', 'llamacpp', 'vllm']);

export function normalizeModelId(model: string): string {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  // Ollama tags (`llama3.1:8b`) and dated snapshots share their family's facts.
  return bare.split(':')[0]?.replace(/\./g, '-') ?? bare;
}

export function longestPrefix<T>(table: Record<string, T>, model: string): T | undefined {
  const id = normalizeModelId(model);
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (id.startsWith(key) && (!best || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

export function builtinContextWindow(model: string): number | undefined {
  return longestPrefix(CONTEXT, model);
}

export function builtinPrice(type: ProviderType, model: string): Price | undefined {
  if (FREE_TYPES.has(type)) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  // OpenRouter ids carry the vendor (`openai/gpt-4o`); its prices come from its model list.
  const table = PRICES[type];
  return table ? longestPrefix(table, model) : undefined;
}
