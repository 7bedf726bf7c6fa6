/**
 * Operations on a History. They mutate the plain data in place (the store persists it as is) and
 * enforce the invariants the providers rely on: tool-call ids unique across the history, results
 * owned by the invocation that made the call, and a complete call/result sequence.
 */
import { randomBytes } from 'node:crypto';
import type {
  AssistantMessage,
  History,
  Message,
  SummaryMessage,
  ToolCall,
  ToolCallState,
  ToolResult,
  UserMessage,
} from './types.js';

const FINAL_STATES: ReadonlySet<ToolCallState> = new Set(['done', 'error', 'denied', 'cancelled']);

export function createHistory(): History {
  return { version: 1, messages: [] };
}

export function localId(prefix: string): string {
  // Letters and digits only: some servers (Mistral) reject ids with other characters.
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return `${prefix}${out}`;
}

export function appendUser(history: History, text: string): UserMessage {
  const message: UserMessage = { role: 'user', id: localId('msg_'), text, createdAt: Date.now() };
  history.messages.push(message);
  return message;
}

export function appendSummary(history: History, text: string): SummaryMessage {
  const message: SummaryMessage = { role: 'summary', id: localId('msg_'), text, createdAt: Date.now() };
  history.messages.push(message);
  return message;
}

/**
 * Adds a completed assistant invocation. Calls with a missing, empty or already used id get a
 * fresh local id (the provider's id is kept as `providerCallId`), so a provider that reuses
 * `call_0` in every response can never make a later result overwrite an earlier one.
 */
export function commitAssistant(history: History, message: AssistantMessage): AssistantMessage {
  const used = new Set<string>();
  for (const m of history.messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls) used.add(c.id);
  }
  for (const call of message.toolCalls) {
    if (!call.id || used.has(call.id)) {
      if (call.id && call.providerCallId === undefined) call.providerCallId = call.id;
      call.id = localId('call_');
    }
    used.add(call.id);
    if (call.invalid && call.state === 'pending') {
      call.state = 'error';
      call.result = { output: call.invalid, isError: true, meta: { error_kind: 'invalid_tool_call' } };
    }
  }
  history.messages.push(message);
  return message;
}

export function findAssistant(history: History, messageId: string): AssistantMessage | undefined {
  const m = history.messages.find((x) => x.id === messageId);
  return m?.role === 'assistant' ? m : undefined;
}

function findCall(history: History, messageId: string, callId: string): ToolCall | undefined {
  return findAssistant(history, messageId)?.toolCalls.find((c) => c.id === callId);
}

export function setToolState(
  history: History,
  messageId: string,
  callId: string,
  state: ToolCallState,
): boolean {
  const call = findCall(history, messageId, callId);
  if (!call || FINAL_STATES.has(call.state)) return false;
  call.state = state;
  return true;
}

/**
 * Stores a result for a call of the given invocation. A second result for the same call is
 * ignored (returns false): the first one is what the model saw being produced.
 */
export function recordToolResult(
  history: History,
  messageId: string,
  callId: string,
  result: ToolResult,
  state: Exclude<ToolCallState, 'pending' | 'running'> = result.isError ? 'error' : 'done',
): boolean {
  const call = findCall(history, messageId, callId);
  if (!call || FINAL_STATES.has(call.state)) return false;
  call.state = state;
  call.result = result;
  return true;
}

/**
 * Gives every call of the invocation that has no result yet a "cancelled" or "denied" result,
 * so the next request still has a result for every call (providers reject orphans).
 */
export function closePendingCalls(
  history: History,
  messageId: string,
  state: 'cancelled' | 'denied',
  reason = state === 'cancelled' ? 'Cancelled by the user before it ran.' : 'Denied by the user.',
): ToolCall[] {
  const message = findAssistant(history, messageId);
  if (!message) return [];
  const closed: ToolCall[] = [];
  for (const call of message.toolCalls) {
    if (FINAL_STATES.has(call.state)) continue;
    call.state = state;
    call.result = { output: reason, isError: true, meta: { error_kind: state } };
    closed.push(call);
  }
  return closed;
}

export function pendingCalls(message: AssistantMessage): ToolCall[] {
  return message.toolCalls.filter((c) => !FINAL_STATES.has(c.state));
}

export function lastAssistant(history: History): AssistantMessage | undefined {
  for (let i = history.messages.length - 1; i >= 0; i--) {
    const m = history.messages[i];
    if (m?.role === 'assistant') return m;
  }
  return undefined;
}

/**
 * The result a provider is shown for a call. A call left without one (a crash mid-batch, a
 * session restored from disk) is replayed as interrupted rather than dropped.
 */
export function replayResult(call: ToolCall): ToolResult {
  if (call.result) return call.result;
  return { output: 'The tool call was interrupted before it produced a result.', isError: true };
}

/** Messages a provider request is built from, in order (summaries replace what they cover). */
export function replayMessages(history: History): Message[] {
  return fromLastSummary(history.messages);
}

/** The tail starting at the last summary, or everything when there is none. */
export function fromLastSummary(messages: Message[]): Message[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'summary') return messages.slice(i);
  }
  return messages;
}
