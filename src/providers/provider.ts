/**
 * The contract between the agent loop and a model API. One adapter per API family implements it;
 * vendor quirks stay inside the adapter. A stream either ends with exactly one `done` event
 * carrying a complete message, or throws a ProviderError: nothing partial is ever committed.
 */
import type { AssistantMessage, FinishReason, Message, Usage } from '../history/types.js';
import type { Price } from './model-table.js';

export type ProviderType =
  | 'openai'
  | 'anthropic'
  | 'openrouter'
  | 'ollama'
  | 'vllm'
  | 'lmstudio'
  | 'llamacpp'
  | 'openai_compatible';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  maxTokens?: number;
}

export type ProviderEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argumentsDelta: string }
  /** A failed attempt that will be retried after `delayMs`; shown to the user. */
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  /** The server rejected native tools; this and later requests describe them in the prompt. */
  | { type: 'notice'; message: string }
  | { type: 'done'; message: AssistantMessage; usage: Usage; finishReason: FinishReason };

export interface ModelInfo {
  id: string;
  /** Context window in tokens when the server says so; 0 when unknown. */
  contextWindow: number;
  /** From the user's `models` list rather than the server. */
  configured?: boolean;
}

export interface Provider {
  /** The user's provider id (the key in `setup({ providers = ... })`). */
  readonly id: string;
  readonly type: ProviderType;
  /** The model used when none is named. */
  readonly defaultModel: string | undefined;
  stream(req: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** Tokens; 0 when unknown (never guessed). */
  contextWindow(model: string, signal?: AbortSignal): Promise<number>;
  /** USD per million tokens; undefined when unknown (show "unknown", not $0). See pricing.ts costOf. */
  price(model: string): Promise<Price | undefined>;
}
