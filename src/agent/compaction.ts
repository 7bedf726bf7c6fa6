import { contextSize } from '../history/context-size.js';
import { fromLastSummary, localId, replayResult } from '../history/conversation.js';
import { estimateMessageTokens } from '../history/estimate-tokens.js';
import type { History, Message, SummaryMessage } from '../history/types.js';
import type { Provider } from '../providers/provider.js';

/** Compaction starts once the estimated context passes this share of the budget. */
export const COMPACT_THRESHOLD = 0.8;
export const SUMMARY_MAX_TOKENS = 2048;
/** One summarisation request covers at most this share of the budget of older turns. */
const BATCH_SHARE = 0.5;

export interface CompactionSettings {
  /** Input-context budget in tokens. */
  budget: number;
  /** Completed turns kept verbatim. */
  keepTurns: number;
}

export interface CompactionInput extends CompactionSettings {
  history: History;
  provider: Provider;
  model: string;
  /** Tokens of the system prompt and tool declarations sent with every request. */
  fixedTokens: number;
  signal: AbortSignal;
  /** Compact even below the threshold (`:Agent compact`). */
  force?: boolean;
  /** The last turn is the one being answered (always kept); false between runs. */
  currentTurn?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export type CompactionResult =
  | { status: 'not_needed'; tokens: number }
  | { status: 'compacted'; tokens: number; before: number; summary: string; turns: number; index: number }
  | { status: 'failed'; reason: string }
  | { status: 'blocked'; reason: string };

/** A user message and everything answering it; a call and its result are never apart. */
interface Turn {
  start: number;
  messages: Message[];
  tokens: number;
}

const SUMMARY_SYSTEM = [
  'You summarise part of a coding session between a user and a coding agent so the work can',
  'continue without the full transcript. Write a dense Markdown summary with these sections:',
  'Objectives; Decisions and constraints; Files and symbols changed (paths, names); Failed',
  'approaches (what did not work and why); Open work; User preferences. Keep facts, paths,',
  'commands, errors and exact names; drop pleasantries. Do not call tools. Do not invent.',
].join(' ');

/**
 * Tokens the next request to `model` would carry: anchored on the provider's count of the last
 * request when there is a usable one (context-size.ts), else our estimate.
 */
export function estimateContext(
  history: History,
  fixedTokens: number,
  model?: { provider: string; model: string },
): number {
  return contextSize(history, fixedTokens, model).tokens;
}

/**
 * Summarises older whole turns so the history fits the budget. Transactional: the summary is
 * built completely and checked to fit before it is inserted; any failure leaves the history
 * exactly as it was. The kept recent turns and the current turn stay verbatim; an earlier
 * summary is carried over intact and extended.
 */
export async function compactHistory(input: CompactionInput): Promise<CompactionResult> {
  const { history, budget } = input;
  const before = estimateContext(history, input.fixedTokens, {
    provider: input.provider.id,
    model: input.model,
  });
  if (!input.force && before <= budget * COMPACT_THRESHOLD) return { status: 'not_needed', tokens: before };

  const visible = fromLastSummary(history.messages);
  const offset = history.messages.length - visible.length;
  const previous = visible[0]?.role === 'summary' ? visible[0] : undefined;
  const turns = splitTurns(previous ? visible.slice(1) : visible, offset + (previous ? 1 : 0));
  // The last turn may be in progress; it and the kept completed turns stay verbatim.
  const keep = Math.min(turns.length, input.keepTurns + (input.currentTurn === false ? 0 : 1));
  const older = turns.slice(0, turns.length - keep);
  const kept = turns.slice(turns.length - keep);
  const keptTokens = kept.reduce((s, t) => s + t.tokens, 0);
  if (older.length === 0) {
    return {
      status: 'blocked',
      reason: `The last ${keep} turn(s) alone need about ${keptTokens + input.fixedTokens} tokens of a ${budget}-token budget, and nothing older is left to summarise. Raise the context budget, keep fewer recent turns, or start over with :Agent clear.`,
    };
  }

  const huge = older.find((t) => t.tokens > budget);
  if (huge) {
    return {
      status: 'blocked',
      reason: `One earlier turn alone needs about ${huge.tokens} tokens, more than the ${budget}-token budget, so it cannot be summarised. Raise the context budget or start over with :Agent clear.`,
    };
  }
  const batchLimit = Math.max(1024, Math.floor(budget * BATCH_SHARE));
  const batches = batchTurns(older, batchLimit);
  const parts: string[] = [];
  for (const [i, batch] of batches.entries()) {
    input.onProgress?.(i, batches.length);
    const text = await summarise(input, batch, previous?.text, parts).catch((err: unknown) => {
      if (input.signal.aborted) return { error: 'Compaction was cancelled; the history is unchanged.' };
      return {
        error: `Compaction failed (${err instanceof Error ? err.message : String(err)}); the history is unchanged.`,
      };
    });
    if (typeof text !== 'string') return { status: 'failed', reason: text.error };
    if (text.trim() === '')
      return { status: 'failed', reason: 'The model returned an empty summary; the history is unchanged.' };
    parts.push(text.trim());
  }
  input.onProgress?.(batches.length, batches.length);

  const summaryText = [previous?.text, ...parts].filter(Boolean).join('\n\n');
  const summary: SummaryMessage = {
    role: 'summary',
    id: localId('msg_'),
    text: summaryText,
    createdAt: Date.now(),
  };
  const after = input.fixedTokens + estimateMessageTokens(summary) + keptTokens;
  if (after > budget) {
    return {
      status: 'blocked',
      reason: `Even summarised, the conversation needs about ${after} tokens of a ${budget}-token budget. Raise the context budget, keep fewer recent turns, or start over with :Agent clear.`,
    };
  }
  const insertAt = kept[0]?.start ?? history.messages.length;
  history.messages.splice(insertAt, 0, summary);
  return {
    status: 'compacted',
    tokens: after,
    before,
    summary: summaryText,
    turns: older.length,
    index: insertAt,
  };
}

function splitTurns(messages: Message[], offset: number): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user' || turns.length === 0) turns.push({ start: offset + i, messages: [], tokens: 0 });
    const turn = turns[turns.length - 1] as Turn;
    turn.messages.push(m);
    turn.tokens += estimateMessageTokens(m);
  });
  return turns;
}

/** Chronological batches of whole turns; a turn larger than the limit is a batch of its own. */
function batchTurns(turns: Turn[], limit: number): Turn[][] {
  const batches: Turn[][] = [];
  let current: Turn[] = [];
  let size = 0;
  for (const turn of turns) {
    if (current.length > 0 && size + turn.tokens > limit) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(turn);
    size += turn.tokens;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The transcript of some turns as plain text for the summariser (reasoning is never included). */
function transcriptOf(turns: Turn[]): string {
  const out: string[] = [];
  for (const m of turns.flatMap((t) => t.messages)) {
    if (m.role === 'user') out.push(`USER:\n${m.text}`);
    else if (m.role === 'summary') out.push(`EARLIER SUMMARY:\n${m.text}`);
    else {
      if (m.text) out.push(`AGENT:\n${m.text}`);
      for (const call of m.toolCalls) {
        out.push(`TOOL CALL ${call.name} ${call.rawArguments || JSON.stringify(call.arguments)}`);
        out.push(`TOOL RESULT (${call.state}):\n${replayResult(call).output}`);
      }
    }
  }
  return out.join('\n\n');
}

async function summarise(
  input: CompactionInput,
  batch: Turn[],
  earlier: string | undefined,
  sofar: string[],
) {
  const context = [earlier, ...sofar].filter(Boolean).join('\n\n');
  const prompt = [
    context ? `Summary of the session so far (keep it; add to it):\n${context}\n` : '',
    `Summarise this next part of the session:\n\n${transcriptOf(batch)}`,
  ].join('\n');
  let text = '';
  for await (const event of input.provider.stream(
    {
      model: input.model,
      system: SUMMARY_SYSTEM,
      messages: [{ role: 'user', id: localId('msg_'), text: prompt, createdAt: Date.now() }],
      tools: [],
      maxTokens: SUMMARY_MAX_TOKENS,
    },
    input.signal,
  )) {
    if (event.type === 'done') text = event.message.text;
  }
  return text;
}
