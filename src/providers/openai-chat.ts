/**
 * Chat-completions adapter for OpenAI and every OpenAI-compatible server. The `openai` SDK does
 * the HTTP, auth and error mapping; the body is read raw (not through the SDK's stream helpers,
 * which lose tool calls on several servers and hide `[DONE]` from the commit rule) and parsed
 * one network read at a time.
 */
import OpenAI from 'openai';
import { type AbortLink, linkAbort } from './abort-link.js';
import { buildAssistantMessage } from './assistant-message.js';
import { CatalogProvider } from './catalog-provider.js';
import { ChatAccumulator } from './chat-accumulator.js';
import { buildChatRequest } from './chat-request.js';
import { coalesceEvents } from './coalesce-events.js';
import { discoverNativeContext } from './context-discovery.js';
import { type Flavor, wantsShortCallIds } from './flavors.js';
import { ModelCatalog } from './model-catalog.js';
import { isReasoningModel, streamResponses } from './openai-responses.js';
import type { ModelRequest, Provider, ProviderEvent, ProviderType } from './provider.js';
import { modelOptions, type ProviderConfig } from './provider-config.js';
import { ProviderError, toProviderError } from './provider-error.js';
import { retryStream } from './retry.js';
import { type SseMessage, sseBatches } from './sse-reader.js';
import { holdBackMarkup, type TextFilter } from './text-stream-filter.js';

type Json = Record<string, unknown>;

export interface OpenAIChatOptions {
  id: string;
  type: Exclude<ProviderType, 'anthropic'>;
  config: ProviderConfig;
  flavor: Flavor;
  baseUrl: string;
  /** Resolves the key lazily (api_key_cmd runs on first use, not at startup). */
  apiKey: () => Promise<string | undefined>;
}

const DEFAULT_TIMEOUT_MS = 600_000;

export class OpenAIChatProvider extends CatalogProvider implements Provider {
  readonly id: string;
  readonly type: Exclude<ProviderType, 'anthropic'>;
  private client: Promise<OpenAI> | undefined;
  /** Models whose server rejected native tools: they get the text fallback from now on. */
  private readonly toolsRejected = new Set<string>();
  readonly catalog: ModelCatalog;
  private streamUsage: boolean;

  constructor(private readonly opts: OpenAIChatOptions) {
    super();
    this.id = opts.id;
    this.type = opts.type;
    this.streamUsage = opts.flavor.streamUsage;
    this.catalog = new ModelCatalog(opts.type, opts.config, {
      list: async (signal) => {
        const client = await this.getClient();
        const page = await client.models.list({ signal });
        return page.data as unknown as Json[];
      },
      nativeContext: async (model, signal) => {
        // Servers started with an API key (vLLM, llama.cpp --api-key) guard their native routes too.
        const key = await opts.apiKey().catch(() => undefined);
        const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
        return discoverNativeContext(
          opts.flavor,
          opts.baseUrl,
          model,
          { ...auth, ...opts.config.headers },
          signal,
        );
      },
    });
  }

  getClient(): Promise<OpenAI> {
    this.client ??= this.opts.apiKey().then((key) => {
      if (!key && this.opts.flavor.needsKey) {
        throw new ProviderError(
          'config',
          `No API key for ${this.id}: set ${this.opts.flavor.keyEnv ?? 'api_key'} or the provider's api_key / api_key_cmd.`,
        );
      }
      return new OpenAI({
        baseURL: this.opts.baseUrl,
        // Local servers take no key, but the SDK insists on one; they ignore the header.
        apiKey: key ?? 'no-key',
        maxRetries: 0,
        timeout: this.opts.config.timeout ?? DEFAULT_TIMEOUT_MS,
        defaultHeaders: { ...this.opts.flavor.headers, ...this.opts.config.headers },
      });
    });
    this.client.catch(() => {
      this.client = undefined;
    });
    return this.client;
  }

  async *stream(req: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    // At most two adaptations (tools, stream_options), each remembered for later requests.
    for (let round = 0; ; round++) {
      const wantsText = modelOptions(this.opts.config, req.model).text_tools === true;
      const textTools = req.tools.length > 0 && (wantsText || this.toolsRejected.has(req.model));
      try {
        yield* this.withRetries(req, signal, textTools);
        return;
      } catch (err) {
        if (round >= 2 || !(err instanceof ProviderError)) throw err;
        if (err.kind === 'tools_unsupported' && !textTools && req.tools.length) {
          this.toolsRejected.add(req.model);
          yield {
            type: 'notice',
            message: `${req.model} does not accept native tool calls; describing the tools in the prompt instead.`,
          };
        } else if (
          err.kind === 'bad_request' &&
          this.streamUsage &&
          /stream_options|include_usage/.test(err.message)
        ) {
          // Older llama.cpp and LM Studio builds reject the field; usage then comes inline or not at all.
          this.streamUsage = false;
        } else {
          throw err;
        }
      }
    }
  }

  private withRetries(
    req: ModelRequest,
    signal: AbortSignal,
    textTools: boolean,
  ): AsyncIterable<ProviderEvent> {
    return retryStream(() => this.attempt(req, signal, textTools), {
      providerId: this.id,
      maxRetries: this.opts.config.max_retries ?? 4,
      signal,
    });
  }

  /** OpenAI's reasoning models go through the Responses API unless the entry says `api = 'chat'`. */
  usesResponses(model: string): boolean {
    if (this.opts.config.api) return this.opts.config.api === 'responses';
    return this.type === 'openai' && isReasoningModel(model);
  }

  private async *attempt(
    req: ModelRequest,
    signal: AbortSignal,
    textTools: boolean,
  ): AsyncIterable<ProviderEvent> {
    const client = await this.getClient();
    const link = linkAbort(signal, this.opts.config.timeout ?? DEFAULT_TIMEOUT_MS);
    try {
      if (!textTools && this.usesResponses(req.model)) {
        const options = modelOptions(this.opts.config, req.model);
        const maxTokens = req.maxTokens ?? options.max_tokens;
        yield* streamResponses(
          client,
          maxTokens ? { ...req, maxTokens } : req,
          this.id,
          link,
          options.reasoning_effort,
        );
      } else yield* this.chatCompletion(client, req, textTools, link);
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
  }

  private async *chatCompletion(
    client: OpenAI,
    req: ModelRequest,
    textTools: boolean,
    link: AbortLink,
  ): AsyncIterable<ProviderEvent> {
    const maxTokens = req.maxTokens ?? modelOptions(this.opts.config, req.model).max_tokens;
    const body = buildChatRequest(maxTokens ? { ...req, maxTokens } : req, {
      providerId: this.id,
      textTools,
      shortCallIds: wantsShortCallIds(this.opts.baseUrl, req.model),
      maxTokensField: this.opts.flavor.maxTokensField,
      streamUsage: this.streamUsage,
      reasoningEffort: modelOptions(this.opts.config, req.model).reasoning_effort,
    });
    const acc = new ChatAccumulator(this.id);
    const filter = textTools ? holdBackMarkup() : undefined;
    let sawDone = false;
    const response = await client.chat.completions
      .create(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming, { signal: link.signal })
      .asResponse();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // Some servers ignore `stream: true` and answer with one JSON completion.
      acc.push((await response.json()) as Json);
      sawDone = true;
    } else if (response.body) {
      for await (const batch of sseBatches(
        response.body as unknown as AsyncIterable<Uint8Array>,
        link.touch,
      )) {
        const events: ProviderEvent[] = [];
        for (const sse of batch) {
          if (sse.data.startsWith('[DONE]')) {
            sawDone = true;
            break;
          }
          if (sse.data) this.consume(sse, acc, filter, events);
        }
        for (const event of coalesceEvents(events)) yield event;
        if (sawDone) break;
      }
    }
    if (link.signal.aborted) throw new ProviderError('cancelled', 'Cancelled.');
    const result = acc.finish(sawDone);
    const replay: Json = {};
    if (result.reasoningContent) replay.reasoning_content = result.reasoningContent;
    if (result.reasoningDetails) replay.reasoning_details = result.reasoningDetails;
    const message = buildAssistantMessage({
      providerId: this.id,
      model: req.model,
      text: result.text,
      reasoning: result.reasoning,
      calls: result.calls.map((c) => ({
        id: c.id,
        name: c.name,
        arguments: c.arguments,
        rawArguments: c.args,
        ...(c.extra ? { replay: c.extra } : {}),
      })),
      finishReason: result.finishReason,
      usage: result.usage,
      replay,
      ...(textTools ? { textTools: { names: req.tools.map((t) => t.name) } } : {}),
    });
    yield { type: 'done', message, usage: result.usage, finishReason: message.finishReason };
  }

  /** One SSE message into the accumulator; its live events are appended to `events`. */
  private consume(
    sse: SseMessage,
    acc: ChatAccumulator,
    filter: TextFilter | undefined,
    events: ProviderEvent[],
  ): void {
    const chunk = parseChunk(sse.data, this.id);
    if (chunk.error || sse.event === 'error') throw streamError(chunk, this.id);
    for (const event of acc.push(chunk)) {
      if (event.type === 'text' && filter) {
        const visible = filter.push(event.text);
        if (visible) events.push({ type: 'text', text: visible });
      } else {
        events.push(event);
      }
    }
  }
}

function parseChunk(data: string, providerId: string): Json {
  try {
    const value = JSON.parse(data) as unknown;
    if (value && typeof value === 'object') return value as Json;
  } catch {
    // reported below
  }
  throw new ProviderError(
    'invalid_response',
    `${providerId} sent a malformed stream event; nothing was applied.`,
  );
}

/** An `{"error": ...}` object inside a 200 stream (OpenRouter, vLLM do this on overload). */
function streamError(chunk: Json, providerId: string): ProviderError {
  const e = (chunk.error ?? chunk) as Json;
  const message = typeof e.message === 'string' ? e.message : 'unknown error';
  const code = Number(e.code);
  const kind = code === 429 ? 'rate_limit' : /overload/i.test(message) ? 'overloaded' : 'server';
  return new ProviderError(kind, `${providerId} reported an error mid-stream: ${message}`);
}
