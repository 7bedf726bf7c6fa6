import type { History, ToolCall } from '../history/types.js';
import { detailOf, summarizeCall, type ToolView } from './run-sink.js';

/** What the chat draws for a restored session, message by message. */
export type TranscriptEntry =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; model: string; text: string; reasoning?: string; tools: ToolView[] }
  | { kind: 'summary'; text: string };

const STATUS: Record<ToolCall['state'], ToolView['status']> = {
  pending: 'cancelled',
  running: 'cancelled',
  done: 'done',
  error: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
};

export function transcriptOf(history: History): TranscriptEntry[] {
  return history.messages.map((m): TranscriptEntry => {
    if (m.role === 'user') return { kind: 'user', text: m.text };
    if (m.role === 'summary') return { kind: 'summary', text: m.text };
    return {
      kind: 'assistant',
      model: `${m.provider}/${m.model}`,
      text: m.text,
      ...(m.reasoning ? { reasoning: m.reasoning } : {}),
      tools: m.toolCalls.map((call) => ({
        call_id: call.id,
        name: call.name,
        summary: summarizeCall(call),
        status: STATUS[call.state],
        detail: detailOf(call.arguments, call.result?.output ?? '(no result)'),
      })),
    };
  });
}
