/**
 * Scenario format of the scripted LLM server (fixtures/llm/*.json).
 *
 * A scenario is a list of turns: every model request (chat completions, Anthropic messages,
 * Responses) consumes the next turn. A turn is either a high-level reply that the server renders
 * in the wire format the request asked for, or raw events/bytes for the quirks real servers have.
 */

export interface ScriptedToolCall {
  /** Omitted: the server makes one up (`call_N` / `toolu_N`). `null`: sent without an id at all. */
  id?: string | null;
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (to script invalid JSON). */
  arguments?: unknown;
}

export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** What the model "says"; rendered per wire format. */
export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  /** Anthropic thinking-block signature (defaults to a fixed string when reasoning is set). */
  reasoningSignature?: string;
  /** Chat-completions field carrying reasoning (DeepSeek `reasoning_content`, OpenRouter `reasoning`). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  toolCalls?: ScriptedToolCall[];
  /** Overrides the derived stop/finish reason (e.g. `stop` after a tool call, like Ollama). */
  finishReason?: string | null;
  usage?: ScriptedUsage;
  /** Characters per text/argument delta (default 8). */
  chunkSize?: number;
  /**
   * Chat completions usage: `auto` (only when `stream_options.include_usage` was asked),
   * `always`, `never`, or `inline` (on the finish chunk, as some servers do). Default `auto`.
   */
  usageChunk?: 'auto' | 'always' | 'never' | 'inline';
}

export interface ScriptedResponse extends ScriptedReply {
  /** HTTP status for an error answer (with `body`, `headers`); no stream is sent. */
  status?: number;
  headers?: Record<string, string>;
  /** JSON (or string) body of a non-streaming answer; default is an error object for `status`. */
  body?: unknown;
  /** JSON events replacing the rendered ones; framed per wire format (Anthropic adds `event:`). */
  events?: unknown[];
  /** Exact strings written as the stream, no framing at all (overrides `events`). */
  raw?: string[];
  /** Chat completions: end with `data: [DONE]` (default true). */
  done?: boolean;
  /** Destroy the connection after this many events (a cut mid-stream). */
  cutAfter?: number;
  /** Write the stream in slices of this many bytes, each flushed separately. */
  splitBytes?: number;
  /** Use CRLF line endings. */
  crlf?: boolean;
  /** Interleave SSE comments, keep-alive lines and field-less junk that clients must ignore. */
  garbage?: boolean;
  /** Wait this long before each event. */
  delayMs?: number;
  /** Keep the stream open after the events until the client goes away (for cancellation). */
  hang?: boolean;
}

/** A static answer for a non-model route such as `GET /props` or `POST /api/show`. */
export interface RouteResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Scenario {
  name?: string;
  turns: ScriptedResponse[];
  /** `GET /v1/models` entries: ids, or objects merged over the default entry. */
  models?: Array<string | Record<string, unknown>>;
  /** Extra routes keyed by `METHOD /path`, e.g. `"GET /props"`. */
  routes?: Record<string, RouteResponse>;
}

/** Accepts a scenario, a bare list of turns, or a list of scenarios (their turns are chained). */
export function normalizeScenario(input: Scenario | ScriptedResponse[] | Scenario[] | undefined): Scenario {
  if (input === undefined) return { turns: [] };
  if (!Array.isArray(input)) return { ...input, turns: [...input.turns] };
  if (input.every((item) => isScenario(item))) {
    const scenarios = input as Scenario[];
    return {
      name: scenarios.map((s) => s.name ?? '').join('+'),
      turns: scenarios.flatMap((s) => s.turns),
      models: scenarios.flatMap((s) => s.models ?? []),
      routes: Object.assign({}, ...scenarios.map((s) => s.routes ?? {})),
    };
  }
  return { turns: [...(input as ScriptedResponse[])] };
}

function isScenario(value: unknown): value is Scenario {
  return typeof value === 'object' && value !== null && Array.isArray((value as Scenario).turns);
}
