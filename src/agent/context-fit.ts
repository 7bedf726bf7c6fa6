import type { History } from '../history/types.js';
import { compactHistory, estimateContext } from './compaction.js';
import type { ResolvedModel } from './model-resolver.js';
import type { RunSink } from './run-sink.js';

export interface FitInput {
  id: string;
  history: History;
  target: ResolvedModel;
  budget: number;
  keepTurns: number;
  /** Tokens of the system prompt and tool declarations. */
  fixedTokens: number;
  signal: AbortSignal;
  /** `:Agent compact`: summarise now, whatever the size, with no turn in progress. */
  force: boolean;
  sink: RunSink;
  /** Saves the history once a summary went in at this index. */
  onCompacted(index: number): Promise<void>;
}

/**
 * Before each request: compacts older turns when the context passes 80% of the budget. Returns
 * a sentence that stops the run when the conversation cannot fit; a failed summary leaves the
 * history as it was and the run goes on while it still fits.
 */
export async function fitContext(input: FitInput): Promise<string | undefined> {
  const { id, sink, history } = input;
  const result = await compactHistory({
    history,
    provider: input.target.provider,
    model: input.target.model,
    budget: input.budget,
    keepTurns: input.keepTurns,
    fixedTokens: input.fixedTokens,
    signal: input.signal,
    force: input.force,
    currentTurn: !input.force,
    onProgress: (done, total) =>
      sink.activity?.(id, `summarising older turns ${Math.min(done + 1, total)}/${total}`),
  });
  sink.activity?.(id, undefined);
  if (result.status === 'compacted') {
    await input.onCompacted(result.index);
    sink.notice(
      `Summarised ${result.turns} earlier turn(s) to fit the context (about ${result.before} → ${result.tokens} tokens):\n\n${result.summary}`,
      'info',
    );
    return undefined;
  }
  if (result.status === 'blocked') return result.reason;
  if (result.status === 'failed') {
    sink.notice(result.reason, 'warn');
    const model = { provider: input.target.provider.id, model: input.target.model };
    if (estimateContext(history, input.fixedTokens, model) > input.budget) return result.reason;
  }
  return undefined;
}
