/**
 * Assembles a chat-completions stream into one assistant message. Written for servers as they
 * are rather than as documented: tool-call deltas without `index` or `type`, parallel calls that
 * all say `index: 0` with different ids, ids and names repeated on every delta, a whole call in
 * one chunk, `finish_reason: "stop"` after a tool call, `delta.content` as typed parts, reasoning
 * in `reasoning_content` / `reasoning` / `reasoning_details` / inline `<think>` tags, empty
 * `choices`, usage anywhere.
 */
import type { FinishReason, Usage } from '../history/types.js';
import type { ProviderEvent } from './provider.js';
import { ProviderError } from './provider-error.js';
import { ThinkTagSplitter } from './think-tag-splitter.js';

export interface AccumulatedCall {
  /** Position in the message; what progress events report. */
  index: number;
  /** The `index` the server used, if any. */
  wireIndex: number | undefined;
  id: string;
  name: string;
  args: string;
  /** Server state attached to the call (Gemini `extra_content`). */
  extra?: Record<string, unknown>;
}

export interface AccumulatedMessage {
  text: string;
  reasoning: string;
  calls: Array<AccumulatedCall & { arguments: Record<string, unknown> }>;
  finishReason: FinishReason;
  usage: Usage;
  /** DeepSeek-style `reasoning_content`, which that server wants back on tool turns. */
  reasoningContent?: string;
  /** OpenRouter `reasoning_details`, replayed for reasoning continuity. */
  reasoningDetails?: unknown[];
}

type Json = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function mapFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'stop':
    case 'end_turn':
    case 'eos':
    case 'eos_token':
    case 'stop_sequence':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

export class ChatAccumulator {
  text = '';
  reasoning = '';
  private reasoningContent = '';
  private reasoningDetails: Json[] = [];
  readonly calls: AccumulatedCall[] = [];
  rawFinishReason: string | undefined;
  private usage: Usage | undefined;
  private readonly thinkTags = new ThinkTagSplitter();

  constructor(private readonly providerId: string) {}

  /** Feeds one parsed chunk; returns the events to show live. */
  push(chunk: Json): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    if (chunk.usage && typeof chunk.usage === 'object') this.usage = readUsage(chunk.usage as Json);
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
    for (const choice of choices) {
      // Only the first choice is ours (n = 1); some servers omit `index` entirely.
      if (typeof choice.index === 'number' && choice.index !== 0) continue;
      const delta = (choice.delta ?? choice.message ?? {}) as Json;
      this.readReasoning(delta, events);
      this.readContent(delta.content, events);
      // A refusal is what the user gets to read instead of an answer.
      if (typeof delta.refusal === 'string' && delta.refusal) this.addText(delta.refusal, events);
      if (Array.isArray(delta.tool_calls)) {
        for (const tc of delta.tool_calls as Json[]) this.readToolCall(tc, events);
      }
      const finish = str(choice.finish_reason);
      if (finish) this.rawFinishReason = finish;
    }
    return events;
  }

  private readReasoning(delta: Json, events: ProviderEvent[]): void {
    // OpenRouter sends the same text as `reasoning` and `reasoning_details`: read one source.
    const rc = str(delta.reasoning_content);
    const r = str(delta.reasoning);
    let text = '';
    if (rc) {
      this.reasoningContent += rc;
      text = rc;
    } else if (r) {
      text = r;
    }
    if (Array.isArray(delta.reasoning_details)) {
      for (const d of delta.reasoning_details as Json[]) {
        this.mergeDetail(d);
        if (!rc && !r) text += str(d.text) ?? str(d.summary) ?? '';
      }
    }
    if (text) {
      this.reasoning += text;
      events.push({ type: 'reasoning', text });
    }
  }

  private mergeDetail(detail: Json): void {
    const last = this.reasoningDetails.at(-1);
    if (last && detail.index !== undefined && last.index === detail.index && last.type === detail.type) {
      for (const key of ['text', 'summary', 'data', 'signature']) {
        const add = str(detail[key]);
        if (add) last[key] = (str(last[key]) ?? '') + add;
      }
      return;
    }
    this.reasoningDetails.push({ ...detail });
  }

  private readContent(content: unknown, events: ProviderEvent[]): void {
    if (typeof content === 'string') {
      if (content) this.addText(content, events);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const part of content as Json[]) {
      const type = str(part.type);
      if (type === 'thinking' || type === 'reasoning') {
        // Mistral nests the thinking text as parts of its own.
        const nested = Array.isArray(part.thinking)
          ? (part.thinking as Json[]).map((p) => str(p.text) ?? '').join('')
          : undefined;
        const t = nested ?? str(part.thinking) ?? str(part.text) ?? str(part.reasoning) ?? '';
        if (t) {
          this.reasoning += t;
          events.push({ type: 'reasoning', text: t });
        }
      } else {
        const t = str(part.text) ?? '';
        if (t) this.addText(t, events);
      }
    }
  }

  private addText(text: string, events: ProviderEvent[]): void {
    for (const piece of this.thinkTags.push(text)) {
      if (piece.kind === 'text') this.text += piece.text;
      else this.reasoning += piece.text;
      events.push({ type: piece.kind, text: piece.text });
    }
  }

  private target(tc: Json): AccumulatedCall | undefined {
    const id = str(tc.id) || undefined;
    const wireIndex = typeof tc.index === 'number' ? tc.index : undefined;
    const name = str((tc.function as Json | undefined)?.name) || undefined;
    if (id) {
      const same = this.calls.find((c) => c.id === id);
      if (same) return same;
      // The id may arrive after a first id-less delta for the same slot.
      const slot = this.latest(wireIndex);
      if (slot && !slot.id && (!name || !slot.name || slot.name === name)) return slot;
      return undefined;
    }
    const slot = wireIndex === undefined ? this.calls.at(-1) : this.latest(wireIndex);
    if (!slot) return undefined;
    // An id-less delta carrying a name starts a new call once the current one has its name and
    // arguments: another function, or the same one again after complete arguments.
    if (name && slot.name && slot.args && (name !== slot.name || isJson(slot.args))) return undefined;
    return slot;
  }

  private latest(wireIndex: number | undefined): AccumulatedCall | undefined {
    for (let i = this.calls.length - 1; i >= 0; i--) {
      const c = this.calls[i];
      if (c && c.wireIndex === wireIndex) return c;
    }
    return undefined;
  }

  private readToolCall(tc: Json, events: ProviderEvent[]): void {
    const fn = (tc.function ?? {}) as Json;
    let call = this.target(tc);
    const id = str(tc.id) ?? '';
    const name = str(fn.name) ?? '';
    if (!call) {
      call = {
        index: this.calls.length,
        wireIndex: typeof tc.index === 'number' ? tc.index : undefined,
        id,
        name: '',
        args: '',
      };
      this.calls.push(call);
    }
    if (!call.id && id) call.id = id;
    if (name && !call.name) {
      call.name = name;
      events.push({ type: 'tool_call_start', index: call.index, id: call.id, name });
    }
    const extra = tc.extra_content;
    if (extra && typeof extra === 'object') call.extra = { ...call.extra, extra_content: extra };
    const args = fn.arguments;
    if (typeof args === 'string' && args) {
      call.args += args;
      events.push({ type: 'tool_call_delta', index: call.index, argumentsDelta: args });
    } else if (args && typeof args === 'object') {
      // Some servers send the arguments as an object, whole.
      call.args = JSON.stringify(args);
      events.push({ type: 'tool_call_delta', index: call.index, argumentsDelta: call.args });
    }
  }

  /**
   * Ends the stream. `sawDone` is true when `data: [DONE]` arrived; without it a clean end
   * counts only after a terminal finish reason. Throws instead of returning anything partial.
   */
  finish(sawDone: boolean): AccumulatedMessage {
    if (!sawDone && !this.rawFinishReason) {
      throw new ProviderError(
        'incomplete',
        `The reply from ${this.providerId} ended before it was complete (no finish reason); nothing was applied.`,
      );
    }
    for (const piece of this.thinkTags.flush()) {
      if (piece.kind === 'text') this.text += piece.text;
      else this.reasoning += piece.text;
    }
    const calls = this.calls.filter((c) => c.name || c.args);
    let finishReason = mapFinishReason(this.rawFinishReason ?? 'stop');
    if (finishReason === 'length') {
      throw new ProviderError(
        'incomplete',
        `The reply from ${this.providerId} was cut off at the output token limit; nothing was applied. Raise max_tokens or ask for a shorter answer.`,
      );
    }
    // Ollama and others end tool turns with `stop`: the calls are what counts.
    if (calls.length > 0 && (finishReason === 'stop' || finishReason === 'other'))
      finishReason = 'tool_calls';
    const parsed = calls.map((c) => {
      if (!c.name) {
        throw new ProviderError('invalid_response', `${this.providerId} sent a tool call without a name.`);
      }
      return { ...c, arguments: parseArguments(c, this.providerId) };
    });
    const out: AccumulatedMessage = {
      text: this.text,
      reasoning: this.reasoning,
      calls: parsed,
      finishReason,
      usage: this.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    };
    if (this.reasoningContent) out.reasoningContent = this.reasoningContent;
    if (this.reasoningDetails.length) out.reasoningDetails = this.reasoningDetails;
    return out;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function parseArguments(call: AccumulatedCall, providerId: string): Record<string, unknown> {
  const text = call.args.trim();
  if (!text) return {};
  const asObject = (t: string): Record<string, unknown> | undefined => {
    try {
      const v = JSON.parse(t) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const direct = asObject(text);
  if (direct) return direct;
  // Servers that resend the full arguments on every delta produce the same object twice.
  const half = text.length / 2;
  if (Number.isInteger(half) && text.slice(0, half) === text.slice(half)) {
    const once = asObject(text.slice(0, half));
    if (once) {
      call.args = text.slice(0, half);
      return once;
    }
  }
  throw new ProviderError(
    'invalid_response',
    `${providerId} sent invalid JSON arguments for tool ${call.name}; nothing was run.`,
  );
}

export function readUsage(u: Json): Usage {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const prompt = num(u.prompt_tokens ?? u.input_tokens);
  const details = (u.prompt_tokens_details ?? u.input_tokens_details ?? {}) as Json;
  // DeepSeek reports its cache as prompt_cache_hit_tokens.
  const cached = num(details.cached_tokens ?? u.prompt_cache_hit_tokens);
  const completion = (u.completion_tokens_details ?? u.output_tokens_details ?? {}) as Json;
  const usage: Usage = {
    input: Math.max(0, prompt - cached),
    output: num(u.completion_tokens ?? u.output_tokens),
    cacheRead: cached,
    cacheWrite: num(details.cache_write_tokens),
  };
  if (typeof completion.reasoning_tokens === 'number') usage.reasoning = completion.reasoning_tokens;
  return usage;
}
