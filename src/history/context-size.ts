/**
 * The size of the next request, for the budget. The provider's own count of the last request is
 * the best figure there is: it comes from the model's real tokenizer and includes framing we
 * cannot see. So the last reported input count anchors the figure, and only what changed since
 * (the answer, tool results, new prompts, a different system prompt or tool list) is estimated.
 * Without a usable report (no usage yet, another model, or the history compacted after that
 * request) the figure is the pure estimate.
 */
import { fromLastSummary } from './conversation.js';
import { estimateMessageTokens } from './estimate-tokens.js';
import type { AssistantMessage, History, Usage } from './types.js';

export interface ContextSize {
  /** What budget decisions use: `reported + added` when anchored, else `estimate`. */
  tokens: number;
  /** Our own estimate of the whole request (bytes / 3 plus overhead). */
  estimate: number;
  /** The provider's count of the last request this figure is anchored on, when there is one. */
  reported?: number;
}

/** Input tokens a provider counted for one request, cached ones included. */
export function reportedInput(usage: Usage | undefined): number {
  return usage ? usage.input + usage.cacheRead + usage.cacheWrite : 0;
}

/**
 * The next request's size: `fixedTokens` (system prompt and tool declarations) plus the messages
 * from the last summary on. `model` is the provider id and model the request goes to: a count
 * from another model's tokenizer is not an anchor.
 */
export function contextSize(
  history: History,
  fixedTokens: number,
  model?: { provider: string; model: string },
): ContextSize {
  const visible = fromLastSummary(history.messages);
  const estimate = fixedTokens + visible.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
  const anchor = anchorOf(visible, model);
  if (!anchor) return { tokens: estimate, estimate };
  const reported = reportedInput(anchor.usage);
  // Our estimate now minus our estimate of the anchored request: the messages since (the answer
  // itself included) and any change in the system prompt or tool list.
  const added = estimate - (anchor.contextEstimate ?? estimate);
  return { tokens: Math.max(0, reported + added), estimate, reported };
}

/**
 * The last answer whose request is still a prefix of the next one: it has a reported count and
 * our estimate of the same request, and no summary was inserted after it was sent.
 */
function anchorOf(
  visible: History['messages'],
  model: { provider: string; model: string } | undefined,
): AssistantMessage | undefined {
  const head = visible[0];
  for (let i = visible.length - 1; i >= 0; i--) {
    const m = visible[i];
    if (m?.role !== 'assistant') continue;
    if (reportedInput(m.usage) <= 0 || !m.contextEstimate) continue;
    if (model && (m.provider !== model.provider || m.model !== model.model)) return undefined;
    if (head?.role === 'summary' && head.createdAt > m.createdAt) return undefined;
    return m;
  }
  return undefined;
}
