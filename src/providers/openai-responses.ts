/**
 * OpenAI's Responses API, used for its reasoning models: `store: false` keeps nothing on
 * OpenAI's side, so the encrypted reasoning items are requested back
 * (`include: ['reasoning.encrypted_content']`), kept with the assistant message and replayed to
 * this provider on the next request, which lets the model continue its reasoning across tool
 * calls. A reply counts only once `response.completed` arrived.
 */
import type OpenAI from 'openai';
import { fromLastSummary, replayResult } from '../history/conversation.js';
import type { Message, Usage } from '../history/types.js';
import type { AbortLink } from './abort-link.js';
import { buildAssistantMessage, type DraftCall } from './assistant-message.js';
import { coalesceEvents } from './coalesce-events.js';
import type { ModelRequest, ProviderEvent } from './provider.js';
import { ProviderError } from './provider-error.js';
import { sseBatches } from './sse-reader.js';

type Json = Record<string, unknown>;

/** o-series and gpt-5 (not the -chat variants) reason; only they take `reasoning` options. */
export function isReasoningModel(model: string): boolean {
  const id = model.slice(model.lastIndexOf('/') + 1);
  return /^(o\d|gpt-5)/.test(id) && !/-chat/.test(id);
}

export function buildResponsesRequest(req: ModelRequest, providerId: string, effort?: string): Json {
  const input: Json[] = [];
  for (const m of fromLastSummary(req.messages)) appendItems(input, m, providerId);
  const body: Json = { model: req.model, input, stream: true, store: false };
  if (req.system) body.instructions = req.system;
  if (req.tools.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
  }
  if (req.maxTokens) body.max_output_tokens = req.maxTokens;
  if (isReasoningModel(req.model)) {
    body.reasoning = effort ? { summary: 'auto', effort } : { summary: 'auto' };
    body.include = ['reasoning.encrypted_content'];
  }
  return body;
}

function appendItems(input: Json[], m: Message, providerId: string): void {
  if (m.role === 'user') {
    input.push({ role: 'user', content: m.text });
    return;
  }
  if (m.role === 'summary') {
    input.push({ role: 'user', content: `Summary of the conversation so far:\n\n${m.text}` });
    return;
  }
  if (m.replay?.provider === providerId && Array.isArray(m.replay.data.reasoning_items)) {
    input.push(...(m.replay.data.reasoning_items as Json[]));
  }
  if (m.text) {
    input.push({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: m.text, annotations: [] }],
    });
  }
  for (const c of m.toolCalls) {
    input.push({
      type: 'function_call',
      call_id: c.id,
      name: c.name,
      arguments: c.invalid ? '{}' : c.rawArguments || '{}',
    });
  }
  for (const c of m.toolCalls) {
    input.push({ type: 'function_call_output', call_id: c.id, output: replayResult(c).output });
  }
}

interface OpenCall {
  index: number;
  id: string;
  name: string;
  args: string;
}

export async function* streamResponses(
  client: OpenAI,
  req: ModelRequest,
  providerId: string,
  link: AbortLink,
  effort?: string,
): AsyncGenerator<ProviderEvent> {
  const response = await client.responses
    .create(
      buildResponsesRequest(
        req,
        providerId,
        effort,
      ) as unknown as OpenAI.Responses.ResponseCreateParamsStreaming,
      {
        signal: link.signal,
      },
    )
    .asResponse();
  const calls = new Map<number, OpenCall>();
  const reasoningItems: Json[] = [];
  let text = '';
  let reasoning = '';
  let usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let completed = false;

  const handle = (e: Json, out: ProviderEvent[]) => {
    const type = e.type;
    if (type === 'response.output_text.delta' && typeof e.delta === 'string') {
      text += e.delta;
      out.push({ type: 'text', text: e.delta });
    } else if (
      (type === 'response.reasoning_summary_text.delta' || type === 'response.reasoning_text.delta') &&
      typeof e.delta === 'string'
    ) {
      reasoning += e.delta;
      out.push({ type: 'reasoning', text: e.delta });
    } else if (type === 'response.output_item.added' || type === 'response.output_item.done') {
      const item = (e.item ?? {}) as Json;
      const at = Number(e.output_index);
      if (item.type === 'function_call') {
        let call = calls.get(at);
        if (!call) {
          call = {
            index: calls.size,
            id: String(item.call_id ?? ''),
            name: String(item.name ?? ''),
            args: '',
          };
          calls.set(at, call);
          out.push({ type: 'tool_call_start', index: call.index, id: call.id, name: call.name });
        }
        // The finished item's arguments are authoritative over the deltas.
        if (type === 'response.output_item.done' && typeof item.arguments === 'string')
          call.args = item.arguments;
      } else if (item.type === 'reasoning' && type === 'response.output_item.done') {
        reasoningItems.push({
          type: 'reasoning',
          id: item.id,
          summary: item.summary ?? [],
          encrypted_content: item.encrypted_content,
        });
      }
    } else if (type === 'response.function_call_arguments.delta' && typeof e.delta === 'string') {
      const call = calls.get(Number(e.output_index));
      if (call) {
        call.args += e.delta;
        out.push({ type: 'tool_call_delta', index: call.index, argumentsDelta: e.delta });
      }
    } else if (type === 'response.completed') {
      completed = true;
      usage = readUsage(((e.response ?? {}) as Json).usage as Json | undefined);
    } else if (type === 'response.incomplete') {
      const reason = (((e.response ?? {}) as Json).incomplete_details as Json | undefined)?.reason;
      throw new ProviderError(
        'incomplete',
        `The reply from ${providerId} was cut off (${String(reason ?? 'incomplete')}); nothing was applied.`,
      );
    } else if (type === 'response.failed' || type === 'error') {
      const err = (type === 'error' ? e : (((e.response ?? {}) as Json).error ?? {})) as Json;
      const message = String(err.message ?? 'unknown error');
      const code = String(err.code ?? '');
      const kind = /rate_limit/.test(code)
        ? 'rate_limit'
        : /overloaded|server_error/.test(code)
          ? 'server'
          : 'bad_request';
      throw new ProviderError(kind, `${providerId} reported an error: ${message}`);
    }
  };

  const body = response.body as unknown as AsyncIterable<Uint8Array> | null;
  if (!body) throw new ProviderError('invalid_response', `${providerId} answered without a body.`);
  for await (const batch of sseBatches(body, link.touch)) {
    const out: ProviderEvent[] = [];
    for (const sse of batch) {
      if (!sse.data || sse.data.startsWith('[DONE]')) continue;
      let event: Json;
      try {
        event = JSON.parse(sse.data) as Json;
      } catch {
        throw new ProviderError(
          'invalid_response',
          `${providerId} sent a malformed stream event; nothing was applied.`,
        );
      }
      handle(event, out);
    }
    for (const event of coalesceEvents(out)) yield event;
    if (completed) break;
  }
  if (link.signal.aborted) throw new ProviderError('cancelled', 'Cancelled.');
  if (!completed) {
    throw new ProviderError(
      'incomplete',
      `The reply from ${providerId} ended before response.completed; nothing was applied.`,
    );
  }
  const draftCalls: DraftCall[] = [...calls.values()].map((c) => ({
    id: c.id,
    name: c.name,
    arguments: parseArgs(c, providerId),
    rawArguments: c.args,
  }));
  const message = buildAssistantMessage({
    providerId,
    model: req.model,
    text,
    reasoning,
    calls: draftCalls,
    finishReason: draftCalls.length ? 'tool_calls' : 'stop',
    usage,
    replay: reasoningItems.length ? { reasoning_items: reasoningItems } : {},
  });
  yield { type: 'done', message, usage, finishReason: message.finishReason };
}

function parseArgs(call: OpenCall, providerId: string): Record<string, unknown> {
  if (!call.args.trim()) return {};
  try {
    const v = JSON.parse(call.args) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ProviderError(
    'invalid_response',
    `${providerId} sent invalid JSON arguments for tool ${call.name}; nothing was run.`,
  );
}

function readUsage(u: Json | undefined): Usage {
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  if (!u) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const cached = n((u.input_tokens_details as Json | undefined)?.cached_tokens);
  const usage: Usage = {
    input: Math.max(0, n(u.input_tokens) - cached),
    output: n(u.output_tokens),
    cacheRead: cached,
    cacheWrite: 0,
  };
  const reasoningTokens = (u.output_tokens_details as Json | undefined)?.reasoning_tokens;
  if (typeof reasoningTokens === 'number') usage.reasoning = reasoningTokens;
  return usage;
}
