/**
 * Anthropic Messages adapter over `@anthropic-ai/sdk`: text, thinking (kept with its signature
 * for replay), tool_use with streamed `input_json_delta`, usage, stop reasons. The SDK does the
 * HTTP, auth and error mapping; the event stream is read raw, one network read at a time (not
 * through MessageStream), so a reply counts only once `message_stop` arrived.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { FinishReason, Usage } from '../history/types.js';
import { linkAbort } from './abort-link.js';
import { buildAnthropicRequest, defaultMaxTokens } from './anthropic-request.js';
import { buildAssistantMessage, type DraftCall } from './assistant-message.js';
import { CatalogProvider } from './catalog-provider.js';
import { mapFinishReason } from './chat-accumulator.js';
import { coalesceEvents } from './coalesce-events.js';
import { ModelCatalog } from './model-catalog.js';
import type { ModelRequest, Provider, ProviderEvent } from './provider.js';
import { modelOptions, type ProviderConfig } from './provider-config.js';
import { ProviderError, toProviderError } from './provider-error.js';
import { retryStream } from './retry.js';
import { sseBatches } from './sse-reader.js';
import { holdBackMarkup } from './text-stream-filter.js';

type Json = Record<string, unknown>;

export interface AnthropicOptions {
  id: string;
  config: ProviderConfig;
  baseUrl: string;
  apiKey: () => Promise<string | undefined>;
}

const DEFAULT_TIMEOUT_MS = 600_000;

interface OpenBlock {
  index: number;
  type: string;
  text: string;
  json: string;
  signature: string;
  data?: string;
  id?: string;
  name?: string;
  callIndex?: number;
}

export class AnthropicProvider extends CatalogProvider implements Provider {
  readonly id: string;
  readonly type = 'anthropic' as const;
  readonly catalog: ModelCatalog;
  private client: Promise<Anthropic> | undefined;

  constructor(private readonly opts: AnthropicOptions) {
    super();
    this.id = opts.id;
    this.catalog = new ModelCatalog('anthropic', opts.config, {
      list: async (signal) => {
        const client = await this.getClient();
        const out: Json[] = [];
        for await (const model of client.models.list({ limit: 100 }, { signal }))
          out.push(model as unknown as Json);
        return out;
      },
    });
  }

  private getClient(): Promise<Anthropic> {
    this.client ??= this.opts.apiKey().then(async (apiKey) => {
      if (!apiKey) {
        throw new ProviderError(
          'config',
          `No API key for ${this.id}: set ANTHROPIC_API_KEY or the provider's api_key / api_key_cmd.`,
        );
      }
      // Loaded on first use: the SDK is the largest part of the host and most sessions never need it.
      const { Anthropic: AnthropicClient } = await import('@anthropic-ai/sdk');
      return new AnthropicClient({
        apiKey,
        baseURL: this.opts.baseUrl,
        maxRetries: 0,
        timeout: this.opts.config.timeout ?? DEFAULT_TIMEOUT_MS,
        defaultHeaders: this.opts.config.headers,
      });
    });
    this.client.catch(() => {
      this.client = undefined;
    });
    return this.client;
  }

  stream(req: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return retryStream(() => this.attempt(req, signal), {
      providerId: this.id,
      maxRetries: this.opts.config.max_retries ?? 4,
      signal,
    });
  }

  private async *attempt(req: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    const client = await this.getClient();
    const options = modelOptions(this.opts.config, req.model);
    const textTools = req.tools.length > 0 && options.text_tools === true;
    const body = buildAnthropicRequest(req, {
      providerId: this.id,
      maxTokens: req.maxTokens ?? options.max_tokens ?? defaultMaxTokens(req.model),
      thinkingBudget: options.thinking_budget ?? 0,
      textTools,
    });
    const link = linkAbort(signal, this.opts.config.timeout ?? DEFAULT_TIMEOUT_MS);
    const filter = textTools ? holdBackMarkup() : undefined;
    // Blocks by index; a block is complete when the message is (message_stop is the commit point).
    const blocks = new Map<number, OpenBlock>();
    const usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    let stopReason: string | undefined;
    let sawStop = false;
    let calls = 0;
    const handle = (event: Json, out: ProviderEvent[]) => {
      switch (event.type) {
        case 'message_start':
          readUsage(usage, (event.message as Json | undefined)?.usage as Json | undefined);
          break;
        case 'content_block_start': {
          const cb = (event.content_block ?? {}) as Json;
          const block: OpenBlock = {
            index: Number(event.index),
            type: String(cb.type),
            text: '',
            json: '',
            signature: '',
          };
          if (cb.type === 'tool_use') {
            block.id = String(cb.id ?? '');
            block.name = String(cb.name ?? '');
            block.callIndex = calls++;
            out.push({ type: 'tool_call_start', index: block.callIndex, id: block.id, name: block.name });
          } else if (cb.type === 'redacted_thinking') {
            block.data = String(cb.data ?? '');
          } else if (typeof cb.text === 'string') {
            block.text = cb.text;
          }
          blocks.set(block.index, block);
          break;
        }
        case 'content_block_delta': {
          const block = blocks.get(Number(event.index));
          const d = (event.delta ?? {}) as Json;
          if (!block) break;
          if (d.type === 'text_delta' && typeof d.text === 'string') {
            block.text += d.text;
            const visible = filter ? filter.push(d.text) : d.text;
            if (visible) out.push({ type: 'text', text: visible });
          } else if (d.type === 'thinking_delta' && typeof d.thinking === 'string') {
            block.text += d.thinking;
            out.push({ type: 'reasoning', text: d.thinking });
          } else if (d.type === 'signature_delta' && typeof d.signature === 'string') {
            block.signature += d.signature;
          } else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') {
            block.json += d.partial_json;
            out.push({
              type: 'tool_call_delta',
              index: block.callIndex ?? 0,
              argumentsDelta: d.partial_json,
            });
          }
          break;
        }
        case 'message_delta':
          stopReason = ((event.delta as Json | undefined)?.stop_reason as string | undefined) ?? stopReason;
          readUsage(usage, event.usage as Json | undefined);
          break;
        case 'message_stop':
          sawStop = true;
          break;
        case 'error':
          throw streamError(event, this.id);
      }
    };
    try {
      const response = await client.messages
        .create(body as unknown as Anthropic.MessageCreateParamsStreaming, { signal: link.signal })
        .asResponse();
      if (!response.body) throw new ProviderError('invalid_response', `${this.id} answered without a body.`);
      for await (const batch of sseBatches(
        response.body as unknown as AsyncIterable<Uint8Array>,
        link.touch,
      )) {
        const out: ProviderEvent[] = [];
        for (const sse of batch) {
          if (!sse.data) continue;
          let event: Json;
          try {
            event = JSON.parse(sse.data) as Json;
          } catch {
            throw new ProviderError(
              'invalid_response',
              `${this.id} sent a malformed stream event; nothing was applied.`,
            );
          }
          handle(sse.event === 'error' ? { ...event, type: 'error' } : event, out);
        }
        for (const event of coalesceEvents(out)) yield event;
        if (sawStop) break;
      }
    } catch (err) {
      if (link.timedOut() && !signal.aborted) {
        throw new ProviderError(
          'timeout',
          `${this.id} sent nothing for too long; the request was abandoned.`,
        );
      }
      throw toProviderError(err, this.id, signal);
    } finally {
      link.dispose();
    }
    if (signal.aborted) throw new ProviderError('cancelled', 'Cancelled.');
    if (!sawStop) {
      throw new ProviderError(
        'incomplete',
        `The reply from ${this.id} ended before message_stop; nothing was applied.`,
      );
    }
    let finishReason: FinishReason = mapFinishReason(stopReason ?? 'end_turn');
    if (finishReason === 'length') {
      throw new ProviderError(
        'incomplete',
        `The reply from ${this.id} was cut off at max_tokens; nothing was applied. Raise max_tokens or ask for a shorter answer.`,
      );
    }
    const draftCalls: DraftCall[] = [];
    const thinking: Json[] = [];
    let text = '';
    let reasoning = '';
    for (const b of [...blocks.values()].sort((x, y) => x.index - y.index)) {
      if (b.type === 'text') text += b.text;
      else if (b.type === 'thinking') {
        reasoning += b.text;
        thinking.push({ type: 'thinking', thinking: b.text, signature: b.signature });
      } else if (b.type === 'redacted_thinking')
        thinking.push({ type: 'redacted_thinking', data: b.data ?? '' });
      else if (b.type === 'tool_use') draftCalls.push(toCall(b, this.id));
    }
    if (draftCalls.length && finishReason === 'stop') finishReason = 'tool_calls';
    const message = buildAssistantMessage({
      providerId: this.id,
      model: req.model,
      text,
      reasoning,
      calls: draftCalls,
      finishReason,
      usage,
      replay: thinking.length ? { thinking } : {},
      ...(textTools ? { textTools: { names: req.tools.map((t) => t.name) } } : {}),
    });
    yield { type: 'done', message, usage, finishReason: message.finishReason };
  }
}

function toCall(block: OpenBlock, providerId: string): DraftCall {
  let args: unknown = {};
  if (block.json.trim()) {
    try {
      args = JSON.parse(block.json);
    } catch {
      args = undefined;
    }
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    throw new ProviderError(
      'invalid_response',
      `${providerId} sent invalid JSON arguments for tool ${block.name}; nothing was run.`,
    );
  }
  return {
    id: block.id ?? '',
    name: block.name ?? '',
    arguments: args as Record<string, unknown>,
    rawArguments: block.json || '{}',
  };
}

/** message_start carries input and cache counts; message_delta the running output count. */
function readUsage(usage: Usage, u: Json | undefined): void {
  if (!u) return;
  const n = (v: unknown) => (typeof v === 'number' ? v : undefined);
  usage.input = n(u.input_tokens) ?? usage.input;
  usage.output = n(u.output_tokens) ?? usage.output;
  usage.cacheRead = n(u.cache_read_input_tokens) ?? usage.cacheRead;
  usage.cacheWrite = n(u.cache_creation_input_tokens) ?? usage.cacheWrite;
}

/** An `event: error` inside a 200 stream (overloaded mid-reply is the common one). */
function streamError(event: Json, providerId: string): ProviderError {
  const e = (event.error ?? {}) as Json;
  const type = String(e.type ?? '');
  const message = String(e.message ?? 'unknown error');
  const kind = /overloaded/.test(type)
    ? 'overloaded'
    : /rate_limit/.test(type)
      ? 'rate_limit'
      : /api_error/.test(type)
        ? 'server'
        : 'bad_request';
  return new ProviderError(kind, `${providerId} reported an error mid-stream: ${message}`);
}
