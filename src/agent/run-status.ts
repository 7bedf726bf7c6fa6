import { contextSize, lastAssistant, sessionUsage } from '../history/index.js';
import type { History } from '../history/types.js';
import { costOfMessages } from '../providers/pricing.js';
import type { ModelResolver, ResolvedModel } from './model-resolver.js';
import type { RunStatus } from './run-sink.js';

/**
 * The status line's figures after a response: session tokens, the last request's context use as
 * the provider counted it beside our own estimate of the next request (the budget goes by that
 * count plus an estimate of what was added since, context-size.ts), the window once known, and
 * the session cost when every price is known.
 */
export async function runStatus(input: {
  history: History;
  target: ResolvedModel;
  models: ModelResolver;
  fixedTokens: number;
  step: number;
  maxSteps: number;
}): Promise<RunStatus> {
  const { history, target, models } = input;
  const usage = sessionUsage(history);
  const last = lastAssistant(history)?.usage;
  const cost = await costOfMessages(history.messages, (providerId, model) =>
    (models.byId(providerId) ?? target.provider).price(model),
  ).catch(() => undefined);
  return {
    step: input.step,
    max_steps: input.maxSteps,
    input_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
    output_tokens: usage.output,
    context_tokens: last ? last.input + last.cacheRead + last.cacheWrite + last.output : 0,
    context_estimate: contextSize(history, input.fixedTokens).estimate,
    context_window: models.knownWindow(target),
    ...(cost === undefined ? {} : { cost }),
  };
}
