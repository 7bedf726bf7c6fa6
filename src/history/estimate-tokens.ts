/**
 * Cheap token estimates for budgeting and compaction decisions before a provider has reported
 * real usage. About four characters per token for English and code; non-ASCII text is denser,
 * so it is counted per character to stay on the safe (over-estimating) side.
 */
import { replayMessages } from './conversation.js';
import type { History, Message } from './types.js';

export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4 + other);
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
