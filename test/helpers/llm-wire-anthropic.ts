/**
 * Renders a scripted reply as Anthropic Messages stream events (message_start, content blocks
 * with text/thinking/input_json deltas, message_delta with the stop reason and usage,
 * message_stop), and as a non-streamed message body.
 */
import type { ScriptedReply } from './llm-scenario.js';
import { argumentsText, pieces } from './llm-wire-openai.js';

function stopReason(reply: ScriptedReply): string | null {
  if (reply.finishReason !== undefined) return reply.finishReason;
  return reply.toolCalls?.length ? 'tool_use' : 'end_turn';
}

function startUsage(reply: ScriptedReply): Record<string, number> {
  const u = reply.usage ?? {};
  return {
    input_tokens: u.input ?? 10,
    output_tokens: 1,
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
  };
}

export function anthropicEvents(reply: ScriptedReply, model: string, seq: number): unknown[] {
  const size = reply.chunkSize ?? 8;
  const out: unknown[] = [
    {
      type: 'message_start',
      message: {
        id: `msg_scripted_${seq}`,
        type: 'message',
        role: 'assistant',
        content: [],
        model,
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage(reply),
      },
    },
  ];
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    out.push({ type: 'content_block_start', index, content_block: start });
    if (index === 0) out.push({ type: 'ping' });
    for (const delta of deltas) out.push({ type: 'content_block_delta', index, delta });
    out.push({ type: 'content_block_stop', index });
    index++;
  };
  if (reply.reasoning) {
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...pieces(reply.reasoning, size).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: reply.reasoningSignature ?? `sig_${seq}` },
    ]);
  }
  if (reply.text) {
    block(
      { type: 'text', text: '' },
      pieces(reply.text, size).map((text) => ({ type: 'text_delta', text })),
    );
  }
  (reply.toolCalls ?? []).forEach((call, i) => {
    block(
      { type: 'tool_use', id: call.id ?? `toolu_${seq}_${i}`, name: call.name, input: {} },
      pieces(argumentsText(call), size).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    );
  });
  out.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: { output_tokens: reply.usage?.output ?? 5 },
  });
  out.push({ type: 'message_stop' });
  return out;
}

export function anthropicMessage(reply: ScriptedReply, model: string, seq: number): unknown {
  const content: unknown[] = [];
  if (reply.reasoning) {
    content.push({
      type: 'thinking',
      thinking: reply.reasoning,
      signature: reply.reasoningSignature ?? `sig_${seq}`,
    });
  }
  if (reply.text) content.push({ type: 'text', text: reply.text });
  (reply.toolCalls ?? []).forEach((call, i) => {
    content.push({
      type: 'tool_use',
      id: call.id ?? `toolu_${seq}_${i}`,
      name: call.name,
      input: call.arguments ?? {},
    });
  });
  return {
    id: `msg_scripted_${seq}`,
    type: 'message',
    role: 'assistant',
    content,
    model,
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: { ...startUsage(reply), output_tokens: reply.usage?.output ?? 5 },
  };
}

export function anthropicError(status: number, message: string): unknown {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status === 401
          ? 'authentication_error'
          : status >= 500
            ? 'api_error'
            : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}

export function anthropicModels(models: Array<string | Record<string, unknown>>): unknown {
  const data = models.map((m) => {
    const base = { type: 'model', created_at: '2025-01-01T00:00:00Z' };
    return typeof m === 'string'
      ? { ...base, id: m, display_name: m }
      : { ...base, display_name: m.id, ...m };
  });
  const ids = data.map((d) => String((d as { id: unknown }).id));
  return { data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null };
}
