import type { HostConfig } from '../config/schema.js';
import { type AssistantMessage, contextSize, estimateTextTokens, type History } from '../history/index.js';
import type { Mode } from '../tools/tool-context.js';
import type { Logger } from '../util/logger.js';
import { fitContext } from './context-fit.js';
import type { ModelResolver, ResolvedModel } from './model-resolver.js';
import { contextBudget, keepTurns } from './project-settings.js';
import type { RunSink } from './run-sink.js';
import { runStatus } from './run-status.js';
import type { SessionRecorder } from './session-recorder.js';
import type { ToolListings } from './tool-listings.js';

export interface ContextMeterDeps {
  listings: ToolListings;
  models: ModelResolver;
  logger: Logger;
  /** The session's current settings (they change with each configure()). */
  config(): HostConfig;
  /** The session's current recorder (a new one with each session). */
  recorder(): SessionRecorder;
}

/**
 * How big the conversation is to the model, request by request: compaction under the budget
 * before each request, our estimate kept with each answer (later estimates start from it), and
 * the status line's figures after a response.
 */
export class ContextMeter {
  /** Tokens of the system prompt and tool declarations of the latest request. */
  private fixedTokens: number | undefined;
  /** Our estimate of the request being sent, kept with its answer to anchor later estimates. */
  private requestEstimate: number | undefined;

  constructor(private readonly deps: ContextMeterDeps) {}

  /** Before a request (or for `:Agent compact`, with `force`): see context-fit.ts. */
  async fit(input: {
    id: string;
    history: History;
    target: ResolvedModel;
    system: string;
    mode: Mode;
    signal: AbortSignal;
    sink: RunSink;
    force: boolean;
  }): Promise<string | undefined> {
    const { history, target } = input;
    this.fixedTokens =
      estimateTextTokens(input.system) + this.deps.listings.for(input.mode, target.model).tokens;
    const blocked = await fitContext({
      id: input.id,
      history,
      target,
      budget: contextBudget(this.deps.config(), this.deps.models.knownWindow(target)),
      keepTurns: keepTurns(this.deps.config()),
      fixedTokens: this.fixedTokens,
      signal: input.signal,
      force: input.force,
      sink: input.sink,
      onCompacted: (index) => this.deps.recorder().compacted(history.messages, index),
    });
    this.requestEstimate = contextSize(history, this.fixedTokens).estimate;
    return blocked;
  }

  /** Keeps the estimate of the request an answer came from with the answer. */
  stamp(message: AssistantMessage): void {
    if (this.requestEstimate !== undefined) message.contextEstimate ??= this.requestEstimate;
  }

  /** The status line's figures after a response. Never throws. */
  async report(
    id: string,
    history: History,
    step: number,
    maxSteps: number,
    target: ResolvedModel,
    sink: RunSink,
  ): Promise<void> {
    try {
      const fixedTokens = this.fixedTokens ?? 0;
      const models = this.deps.models;
      sink.status?.(id, await runStatus({ history, target, models, fixedTokens, step, maxSteps }));
    } catch (err) {
      this.deps.logger.warn('status report failed:', err);
    }
  }
}
