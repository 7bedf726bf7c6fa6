/**
 * Token estimates for budgeting and compaction decisions: serialized UTF-8 bytes / 3, rounded
 * up, plus a per-message overhead. Real tokenizers average about four bytes of English or code
 * per token, so this over-counts on purpose: a budget check that errs stays under the window.
 * Once the provider has counted a request, context-size.ts anchors on that count and uses this
 * only for what was added since. No tokenizer is bundled for the rest: gpt-tokenizer's o200k
 * table alone takes about half a second and 90 MB of memory to load, more than the host's idle
 * footprint, to refine only the part since the last answer.
 */
import { replayMessages } from './conversation.js';
import type { History, Message } from './types.js';

export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** Per-message framing the APIs add (role markers, separators). */
const MESSAGE_OVERHEAD = 4;

export function estimateMessageTokens(message: Message): number {
  if (message.role !== 'assistant') return MESSAGE_OVERHEAD + estimateTextTokens(message.text);
  let total = MESSAGE_OVERHEAD + estimateTextTokens(message.text);
  for (const call of message.toolCalls) {
    total += MESSAGE_OVERHEAD + estimateTextTokens(call.name) + estimateTextTokens(call.rawArguments);
    if (call.result) total += MESSAGE_OVERHEAD + estimateTextTokens(call.result.output);
  }
  return total;
}

export function estimateHistoryTokens(history: History): number {
  return replayMessages(history).reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}
