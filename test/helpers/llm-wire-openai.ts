/**
 * Renders a scripted reply as OpenAI chat-completions stream chunks and non-streamed bodies,
 * shaped like api.openai.com's answers (ids, `object`, `created`, null finish reasons).
 */
import type { ScriptedReply, ScriptedToolCall } from './llm-scenario.js';

const CREATED = 1_760_000_000;

export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  // Split by code points so scripted multi-byte text stays valid JSON per chunk.
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

export function argumentsText(call: ScriptedToolCall): string {
  if (typeof call.arguments === 'string') return call.arguments;
  return JSON.stringify(call.arguments ?? {});
}

export function openAiUsage(reply: ScriptedReply): Record<string, unknown> {
  const u = reply.usage ?? {};
  const input = u.input ?? 10;
  const output = u.output ?? 5;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
  };
}

function finishReason(reply: ScriptedReply): string | null {
  if (reply.finishReason !== undefined) return reply.finishReason;
  return reply.toolCalls?.length ? 'tool_calls' : 'stop';
}

export function openAiChunks(
  reply: ScriptedReply,
  model: string,
  wantsUsage: boolean,
  seq: number,
): unknown[] {
  const id = `chatcmpl-${seq}`;
  const size = reply.chunkSize ?? 8;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    system_fingerprint: 'fp_scripted',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const field = reply.reasoningField ?? 'reasoning_content';
  for (const part of pieces(reply.reasoning ?? '', size)) out.push(chunk({ [field]: part }));
  for (const part of pieces(reply.text ?? '', size)) out.push(chunk({ content: part }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const head: Record<string, unknown> = {
      index,
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    if (call.id !== null) head.id = call.id ?? `call_${seq}_${index}`;
    out.push(chunk({ tool_calls: [head] }));
    for (const part of pieces(argumentsText(call), size)) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  const mode = reply.usageChunk ?? 'auto';
  const usage = openAiUsage(reply);
  out.push(chunk({}, finishReason(reply), mode === 'inline' ? { usage } : {}));
  if (mode === 'always' || (mode === 'auto' && wantsUsage)) {
    out.push({
      id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      system_fingerprint: 'fp_scripted',
      choices: [],
      usage,
    });
  }
  return out;
}

export function openAiCompletion(reply: ScriptedReply, model: string, seq: number): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null, refusal: null };
  if (reply.reasoning) message[reply.reasoningField ?? 'reasoning_content'] = reply.reasoning;
  if (reply.toolCalls?.length) {
    message.tool_calls = reply.toolCalls.map((call, index) => ({
      id: call.id ?? `call_${seq}_${index}`,
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call) },
    }));
  }
  return {
    id: `chatcmpl-${seq}`,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: openAiUsage(reply),
  };
}

export function openAiError(status: number, message: string): unknown {
  const type =
    status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: type } };
}

export function openAiModels(models: Array<string | Record<string, unknown>>): unknown {
  return {
    object: 'list',
    data: models.map((m) => {
      const base = { object: 'model', created: CREATED, owned_by: 'scripted' };
      return typeof m === 'string' ? { id: m, ...base } : { ...base, ...m };
    }),
  };
}
