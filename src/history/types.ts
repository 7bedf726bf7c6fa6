/**
 * The provider-independent conversation model. Everything here is plain JSON data so the store
 * can persist a session and restore it exactly; behaviour lives in functions (conversation.ts).
 */

/** Lifecycle of one tool call: pending → running → done | error | denied | cancelled. */
export type ToolCallState = 'pending' | 'running' | 'done' | 'error' | 'denied' | 'cancelled';

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/**
 * Opaque state a provider needs back on later requests (Anthropic signed thinking blocks,
 * DeepSeek `reasoning_content`, OpenAI encrypted reasoning items, Gemini thought signatures).
 * Replayed only to the provider whose id is recorded here, never across providers.
 */
export interface ReplayState {
  provider: string;
  data: Record<string, unknown>;
}

export interface ToolResult {
  /** The text the model sees. */
  output: string;
  isError?: boolean;
  /** Structured error for the model (`error_kind` etc.), kept for the UI and the store. */
  meta?: Record<string, unknown>;
}

export interface ToolCall {
  /** Unique in the whole history; what is sent back to the provider. */
  id: string;
  /** The id the provider sent, when it differed (missing, empty or reused). */
  providerCallId?: string;
  name: string;
  /** Parsed arguments; `{}` when `invalid` is set. */
  arguments: Record<string, unknown>;
  /** The arguments text as streamed, replayed verbatim. */
  rawArguments: string;
  /**
   * Why the call cannot run (unparseable text-fallback call): the agent answers it with this
   * error so the model can correct itself, instead of executing anything.
   */
  invalid?: string;
  state: ToolCallState;
  result?: ToolResult;
  replay?: ReplayState;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning?: number;
}

export interface UserMessage {
  role: 'user';
  id: string;
  text: string;
  createdAt: number;
}

/** A compaction summary standing in for the messages it replaced. */
export interface SummaryMessage {
  role: 'summary';
  id: string;
  text: string;
  createdAt: number;
}

/** One completed model invocation with all its tool calls and, later, their results. */
export interface AssistantMessage {
  role: 'assistant';
  id: string;
  /** Visible text only: reasoning and text-fallback markup are never mixed in. */
  text: string;
  /** Shown in the UI; never sent back as text, never summarised. */
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  provider: string;
  model: string;
  usage?: Usage;
  /**
   * Our estimate of the request that produced this message, next to the provider's count in
   * `usage`: the difference of later estimates from it is what the next request adds.
   */
  contextEstimate?: number;
  /** Set when the tools were described in the prompt and calls parsed from the text. */
  textToolCalls?: boolean;
  replay?: ReplayState;
  createdAt: number;
}

export type Message = UserMessage | AssistantMessage | SummaryMessage;

export interface History {
  version: 1;
  messages: Message[];
}
