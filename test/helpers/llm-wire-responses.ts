/**
 * Renders a scripted reply as an OpenAI Responses API stream: response.created, output items
 * (reasoning with a summary and encrypted_content, message with output_text deltas,
 * function_call with argument deltas), and response.completed (or response.incomplete when the
 * scripted finish reason is `max_output_tokens`).
 */
import type { ScriptedReply } from './llm-scenario.js';
import { argumentsText, pieces } from './llm-wire-openai.js';

export function responsesEvents(reply: ScriptedReply, model: string, seq: number): unknown[] {
  const size = reply.chunkSize ?? 8;
  const id = `resp_${seq}`;
  const events: Array<Record<string, unknown>> = [];
  const output: unknown[] = [];
  const base = { id, object: 'response', created_at: 1_760_000_000, model, store: false };
  events.push({ type: 'response.created', response: { ...base, status: 'in_progress', output: [] } });
  let index = 0;
  if (reply.reasoning) {
    const item = {
      id: `rs_${seq}`,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: reply.reasoning }],
      encrypted_content: reply.reasoningSignature ?? `enc_${seq}`,
    };
    events.push({ type: 'response.output_item.added', output_index: index, item: { ...item, summary: [] } });
    for (const delta of pieces(reply.reasoning, size)) {
      events.push({
        type: 'response.reasoning_summary_text.delta',
        item_id: item.id,
        output_index: index,
        summary_index: 0,
        delta,
      });
    }
    events.push({ type: 'response.output_item.done', output_index: index, item });
    output.push(item);
    index++;
  }
  if (reply.text) {
    const itemId = `msg_${seq}`;
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    });
    for (const delta of pieces(reply.text, size)) {
      events.push({
        type: 'response.output_text.delta',
        item_id: itemId,
        output_index: index,
        content_index: 0,
        delta,
      });
    }
    const item = {
      id: itemId,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    };
    events.push({ type: 'response.output_item.done', output_index: index, item });
    output.push(item);
    index++;
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const args = argumentsText(call);
    const item = {
      id: `fc_${seq}_${i}`,
      type: 'function_call',
      call_id: call.id ?? `call_${seq}_${i}`,
      name: call.name,
      arguments: '',
      status: 'in_progress',
    };
    events.push({ type: 'response.output_item.added', output_index: index, item });
    for (const delta of pieces(args, size)) {
      events.push({
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: index,
        delta,
      });
    }
    const done = { ...item, arguments: args, status: 'completed' };
    events.push({ type: 'response.output_item.done', output_index: index, item: done });
    output.push(done);
    index++;
  }
  const u = reply.usage ?? {};
  const usage = {
    input_tokens: (u.input ?? 10) + (u.cacheRead ?? 0),
    input_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    output_tokens: u.output ?? 5,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: (u.input ?? 10) + (u.cacheRead ?? 0) + (u.output ?? 5),
  };
  if (reply.finishReason === 'max_output_tokens') {
    events.push({
      type: 'response.incomplete',
      response: {
        ...base,
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output,
        usage,
      },
    });
  } else {
    events.push({ type: 'response.completed', response: { ...base, status: 'completed', output, usage } });
  }
  return events.map((e, n) => ({ ...e, sequence_number: n }));
}
