/**
 * Builds the committed AssistantMessage from what an adapter assembled. Shared by every adapter
 * so ids, reasoning and the text fallback are handled the same way everywhere.
 */
import { localId } from '../history/conversation.js';
import type { AssistantMessage, FinishReason, ReplayState, ToolCall, Usage } from '../history/types.js';
import { parseTextToolCalls } from './text-tool-calls.js';

export interface DraftCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  rawArguments: string;
  replay?: Record<string, unknown>;
}

export interface Draft {
  providerId: string;
  model: string;
  text: string;
  reasoning: string;
  calls: DraftCall[];
  finishReason: FinishReason;
  usage: Usage;
  replay?: Record<string, unknown>;
  /** Tools were described in the prompt: parse calls out of the text. */
  textTools?: { names: readonly string[] };
}

export function buildAssistantMessage(draft: Draft): AssistantMessage {
  const state = (data: Record<string, unknown> | undefined): ReplayState | undefined =>
    data && Object.keys(data).length ? { provider: draft.providerId, data } : undefined;
  let text = draft.text;
  const toolCalls: ToolCall[] = draft.calls.map((c) => {
    const call: ToolCall = {
      // Missing or empty ids get local ones; the history also replaces reused ones on commit.
      id: c.id || localId('call_'),
      name: c.name,
      arguments: c.arguments,
      rawArguments: c.rawArguments,
      state: 'pending',
    };
    if (!c.id) call.providerCallId = '';
    const replay = state(c.replay);
    if (replay) call.replay = replay;
    return call;
  });
  let finishReason = draft.finishReason;
  if (draft.textTools) {
    const parsed = parseTextToolCalls(text, draft.textTools.names);
    text = parsed.text;
    for (const c of parsed.calls) {
      const call: ToolCall = {
        id: localId('call_'),
        name: c.name,
        arguments: c.arguments,
        rawArguments: JSON.stringify(c.arguments),
        state: 'pending',
      };
      if (c.invalid) call.invalid = c.invalid;
      toolCalls.push(call);
    }
    if (parsed.calls.length && finishReason === 'stop') finishReason = 'tool_calls';
  }
  const message: AssistantMessage = {
    role: 'assistant',
    id: localId('msg_'),
    text,
    toolCalls,
    finishReason,
    provider: draft.providerId,
    model: draft.model,
    usage: draft.usage,
    createdAt: Date.now(),
  };
  if (draft.reasoning) message.reasoning = draft.reasoning;
  if (draft.textTools) message.textToolCalls = true;
  const replay = state(draft.replay);
  if (replay) message.replay = replay;
  return message;
}
