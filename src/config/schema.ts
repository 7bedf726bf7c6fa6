import { z } from 'zod';

export const PROVIDER_TYPES = [
  'openai',
  'anthropic',
  'openrouter',
  'ollama',
  'vllm',
  'lmstudio',
  'llamacpp',
  'openai_compatible',
] as const;

/**
 * A provider entry as the user wrote it. Only the type is checked here: the provider layer
 * (parseProviderConfig) validates the rest and names the dotted path of anything wrong.
 */
export const providerEntrySchema = z.looseObject({ type: z.enum(PROVIDER_TYPES) });

export type ProviderEntry = z.infer<typeof providerEntrySchema>;

/**
 * The options the host receives from Lua's setup() (already validated there for the user's
 * benefit; checked again here because the host trusts nothing that crosses the channel).
 */
export const hostConfigSchema = z.object({
  providers: z.record(z.string(), providerEntrySchema).default({}),
  model: z.string().optional(),
  mode: z.enum(['ask', 'plan', 'agent']).default('ask'),
  permissions: z.array(z.record(z.string(), z.unknown())).default([]),
  auto_approve: z.union([z.boolean(), z.literal('edits')]).default(false),
  cwd: z.string().optional(),
  /** Where sessions are kept (`stdpath('data')/agent`); without it nothing is saved. */
  data_dir: z.string().optional(),
  /** Steps (model requests) one prompt may take before it stops with outcome "budget". */
  max_steps: z.number().int().min(1).max(1000).default(50),
  /** Input-context budget in tokens; default 80% of the model's window, else 32768. */
  context_budget: z.number().int().min(1024).optional(),
  /** Completed turns kept verbatim when older ones are summarised. */
  keep_turns: z.number().int().min(0).max(50).default(2),
  /**
   * Session titles: `model` asks the model for a short one after the first completed turn (the
   * heuristic title from the first prompt stands until then); `heuristic` never asks.
   */
  titles: z.enum(['model', 'heuristic']).default('model'),
  /** `.agent/config.json` of the project, sent only once the user trusted it (vim.secure.read). */
  project: z.record(z.string(), z.unknown()).optional(),
});

export type HostConfig = z.infer<typeof hostConfigSchema>;

/** Splits "<provider id>/<model id>"; model ids may themselves hold slashes (OpenRouter). */
export function splitModelRef(ref: string): { provider: string; model: string } | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}
