import type { PatchDialect } from '../tools/tool-context.js';

/**
 * OpenAI trains GPT-4.1, GPT-5, the o3/o4 reasoning models and Codex on its "*** Begin Patch"
 * format; they write it more reliably than unified diffs. Matched on the model's own name so
 * the same model served through OpenRouter or a proxy (`openai/gpt-5`) is recognised.
 */
const OPENAI_PATCH_MODELS = /^(gpt-4\.1|gpt-5|o3|o4|codex)(\b|-|$)/i;

export function patchDialectFor(model: string): PatchDialect {
  const name = model.split('/').pop() ?? model;
  return OPENAI_PATCH_MODELS.test(name) || /codex/i.test(name) ? 'openai' : 'unified';
}
