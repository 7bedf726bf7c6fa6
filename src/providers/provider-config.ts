/**
 * One provider entry of `setup({ providers = { <id> = {...} } })` (ARCHITECTURE §3a), with the
 * per-model options the provider layer understands. Per-model settings can be given either
 * inside `models = { [id] = {...} }` or as provider-wide maps (`context_window`, `pricing`).
 */
import { z } from 'zod';
import { ProviderError } from './provider-error.js';

const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
});

export const modelOptionsSchema = z.object({
  context_window: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Context window in tokens (overrides discovery).'),
  max_tokens: z.number().int().positive().optional().describe('Maximum output tokens per request.'),
  text_tools: z.boolean().optional().describe('Describe tools in the prompt instead of native tool calls.'),
  price: priceSchema.optional().describe('USD per million tokens.'),
  thinking_budget: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Anthropic extended-thinking budget in tokens.'),
  reasoning_effort: z
    .enum(['minimal', 'low', 'medium', 'high'])
    .optional()
    .describe('OpenAI-style reasoning effort (chat `reasoning_effort`, Responses `reasoning.effort`).'),
});

export const providerConfigSchema = z.object({
  type: z.enum([
    'openai',
    'anthropic',
    'openrouter',
    'ollama',
    'vllm',
    'lmstudio',
    'llamacpp',
    'openai_compatible',
  ]),
  base_url: z.string().min(1).optional(),
  api_key: z.string().min(1).optional(),
  /** Argument list, or one string run by the shell. Run once; the key is kept in memory. */
  api_key_cmd: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
  /** Ids, or ids mapped to options. The first one is the default model. */
  models: z.union([z.array(z.string()), z.record(z.string(), modelOptionsSchema)]).optional(),
  default_model: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** One number for every model, or per model id. */
  context_window: z
    .union([z.number().int().positive(), z.record(z.string(), z.number().int().positive())])
    .optional(),
  /** Per model id, USD per million tokens. */
  pricing: z.record(z.string(), priceSchema).optional(),
  /** `true` for every model, or a list of model ids that get the text fallback for tools. */
  text_tools: z.union([z.boolean(), z.array(z.string())]).optional(),
  /** OpenAI only: `chat` (default) or `responses`. */
  api: z.enum(['chat', 'responses']).optional(),
  /** Milliseconds of silence before a request is abandoned (default 10 minutes). */
  timeout: z.number().int().positive().optional(),
  /** Attempts after the first for 429, 5xx and overload answers (default 4). */
  max_retries: z.number().int().min(0).max(10).optional(),
});

export type ProviderConfig = z.infer<typeof providerConfigSchema>;
/** What callers may pass: any §3a-shaped entry; it is validated by createProvider. */
export interface ProviderConfigInput {
  type: ProviderConfig['type'];
  [key: string]: unknown;
}
export type ModelOptions = z.infer<typeof modelOptionsSchema>;

/** Effective options for one model, merging the per-model entry and the provider-wide maps. */
export function modelOptions(config: ProviderConfig, model: string): ModelOptions {
  const own = config.models && !Array.isArray(config.models) ? (config.models[model] ?? {}) : {};
  const out: ModelOptions = { ...own };
  if (out.context_window === undefined && config.context_window !== undefined) {
    const cw =
      typeof config.context_window === 'number' ? config.context_window : config.context_window[model];
    if (cw !== undefined) out.context_window = cw;
  }
  if (out.price === undefined && config.pricing?.[model]) out.price = config.pricing[model];
  if (out.text_tools === undefined && config.text_tools !== undefined) {
    out.text_tools = Array.isArray(config.text_tools) ? config.text_tools.includes(model) : config.text_tools;
  }
  return out;
}

export function configuredModels(config: ProviderConfig): string[] {
  if (!config.models) return [];
  return Array.isArray(config.models) ? config.models : Object.keys(config.models);
}

/** Validates an entry; a bad one becomes one sentence naming the dotted path. */
export function parseProviderConfig(id: string, input: ProviderConfigInput): ProviderConfig {
  const parsed = providerConfigSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = ['providers', id, ...(issue?.path ?? [])].join('.');
  throw new ProviderError('config', `agent: ${path}: ${issue?.message ?? 'invalid provider entry'}.`);
}
