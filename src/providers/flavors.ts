/**
 * Per-type defaults and quirks of the OpenAI-compatible servers. Everything that differs between
 * OpenAI, OpenRouter, Ollama, vLLM, LM Studio and llama.cpp on the chat-completions route is
 * decided here, so the adapter itself stays vendor-neutral.
 */
import type { ProviderType } from './provider.js';

export interface Flavor {
  label: string;
  defaultBaseUrl: string | undefined;
  /** Environment variable holding the key when the entry has none. */
  keyEnv: string | undefined;
  /** A missing key is a configuration error (hosted APIs) rather than normal (local servers). */
  needsKey: boolean;
  /** Name of the output-limit field the server honours. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Where the server's context window can be read (see context-discovery.ts). */
  contextSource: 'models' | 'lmstudio' | 'ollama' | 'llamacpp' | 'none';
  /** Ask for usage in the final chunk (`stream_options.include_usage`). */
  streamUsage: boolean;
  /** Sent unless the entry's own `headers` override them. */
  headers?: Record<string, string>;
}

export const FLAVORS: Record<Exclude<ProviderType, 'anthropic'>, Flavor> = {
  openai: {
    label: 'OpenAI',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyEnv: 'OPENAI_API_KEY',
    needsKey: true,
    maxTokensField: 'max_completion_tokens',
    contextSource: 'none',
    streamUsage: true,
  },
  openrouter: {
    label: 'OpenRouter',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    keyEnv: 'OPENROUTER_API_KEY',
    needsKey: true,
    maxTokensField: 'max_tokens',
    contextSource: 'models',
    streamUsage: true,
    // OpenRouter's app attribution; harmless elsewhere, so it is sent only here.
    headers: { 'HTTP-Referer': 'https://github.com/agent-nvim/agent.nvim', 'X-Title': 'agent.nvim' },
  },
  ollama: {
    label: 'Ollama',
    defaultBaseUrl: 'http://localhost:11434/v1',
    keyEnv: undefined,
    needsKey: false,
    maxTokensField: 'max_tokens',
    contextSource: 'ollama',
    streamUsage: true,
  },
  vllm: {
    label: 'vLLM',
    defaultBaseUrl: 'http://localhost:8000/v1',
    keyEnv: undefined,
    needsKey: false,
    maxTokensField: 'max_tokens',
    contextSource: 'models',
    streamUsage: true,
  },
  lmstudio: {
    label: 'LM Studio',
    defaultBaseUrl: 'http://localhost:1234/v1',
    keyEnv: undefined,
    needsKey: false,
    maxTokensField: 'max_tokens',
    contextSource: 'lmstudio',
    streamUsage: true,
  },
  llamacpp: {
    label: 'llama.cpp',
    defaultBaseUrl: 'http://localhost:8080/v1',
    keyEnv: undefined,
    needsKey: false,
    maxTokensField: 'max_tokens',
    contextSource: 'llamacpp',
    streamUsage: true,
  },
  openai_compatible: {
    label: 'OpenAI-compatible server',
    defaultBaseUrl: undefined,
    keyEnv: undefined,
    needsKey: false,
    maxTokensField: 'max_tokens',
    contextSource: 'models',
    streamUsage: true,
  },
};

/** Mistral's API (and vLLM serving Mistral models) reject tool-call ids that are not 9 alphanumerics. */
export function wantsShortCallIds(baseUrl: string, model: string): boolean {
  return (
    /mistral\.ai/i.test(baseUrl) || /mistral|mixtral|codestral|devstral|magistral|ministral/i.test(model)
  );
}
