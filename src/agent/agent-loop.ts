import {
  closePendingCalls,
  commitAssistant,
  recordToolResult,
  setToolState,
} from '../history/conversation.js';
import type { AssistantMessage, History, ToolCall } from '../history/types.js';
import type { Provider } from '../providers/provider.js';
import type { ToolResult } from '../tools/define-tool.js';
import type { ToolListing, ToolRegistry } from '../tools/registry.js';
import type { Mode, ToolContext } from '../tools/tool-context.js';
import { checkFromResult } from './check-runs.js';
import type { CheckRun, Completion, RunSink } from './run-sink.js';
import { detailOf, summarizeCall } from './run-sink.js';
import { budgetNote } from './system-prompt.js';

export const DEFAULT_MAX_STEPS = 50;
const REPEAT_LIMIT = 3;

export interface LoopOptions {
  id: string;
  history: History;
  provider: Provider;
  model: string;
  mode: Mode;
  system: string;
  registry: ToolRegistry;
  /** The tool list offered to the model (computed once per mode by the caller). */
  tools?: ToolListing[];
  /** The context tools run with; its `signal` is the run's. */
  context: ToolContext;
  sink: RunSink;
  maxSteps?: number;
  /** Runs after a file-changing call when the project has a build_command. */
  buildCommand?: string | undefined;
  /**
   * Runs before each request (context compaction); a returned sentence stops the run as failed
   * with that reason, before anything is sent.
   */
  beforeRequest?: () => Promise<string | undefined>;
  /** Awaited after a response is committed and after each tool result: the session is saved. */
  onCommit?: (message: AssistantMessage) => Promise<void>;
  onCallSettled?: (message: AssistantMessage, result: ToolResult | undefined) => Promise<void>;
  /** Called as each step's request goes out and after its response is committed (status line). */
  onStep?: (step: number, maxSteps: number) => void;
}

const FILE_TOOLS = new Set(['write_file', 'edit_file', 'apply_patch']);

/**
 * One prompt's loop: request a response, store its text and all its calls together, run the
 * calls in order, store each result with its call id, and go again until the model answers
 * without calls, the step budget runs out, or the user stops. The history is consistent
 * whenever this returns: every call has a result.
 */
export async function runAgentLoop(options: LoopOptions): Promise<Completion> {
  const { history, provider, registry, context, sink, id } = options;
  const signal = context.signal;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const changed = new Set<string>();
  const checks: CheckRun[] = [];
  const repeats = new RepeatTracker();
  const end = (outcome: Completion['outcome'], steps: number, error?: string): Completion => ({
    outcome,
    changed_files: [...changed].sort(),
    checks,
    steps,
    ...(error ? { error } : {}),
  });

  for (let step = 1; step <= maxSteps; step++) {
    if (signal.aborted) return end('cancelled', step - 1);
    const blocked = await options.beforeRequest?.();
    if (signal.aborted) return end('cancelled', step - 1);
    if (blocked) return end('failed', step - 1, blocked);
    options.onStep?.(step, maxSteps);
    const note = budgetNote(maxSteps - step + 1);
    let message: AssistantMessage | undefined;
    try {
      const events = provider.stream(
        {
          model: options.model,
          system: note ? `${options.system}\n\n${note}` : options.system,
          messages: history.messages,
          tools: options.tools ?? registry.list(options.mode),
        },
        signal,
      );
      for await (const event of events) {
        if (event.type === 'text') sink.text(id, event.text);
        else if (event.type === 'reasoning') sink.reasoning(id, event.text);
        else if (event.type === 'retry') {
          const seconds = Math.max(1, Math.round(event.delayMs / 1000));
          sink.notice(
            `${event.reason}; retrying in ${seconds} s (attempt ${event.attempt} of ${event.maxAttempts}).`,
            'warn',
          );
        } else if (event.type === 'notice') sink.notice(event.message, 'info');
        else if (event.type === 'done') message = event.message;
      }
    } catch (err) {
      if (signal.aborted) return end('cancelled', step);
      return end('failed', step, err instanceof Error ? err.message : String(err));
    }
    if (!message)
      return end(signal.aborted ? 'cancelled' : 'failed', step, 'The model ended without an answer.');
    commitAssistant(history, message);
    await options.onCommit?.(message);
    options.onStep?.(step, maxSteps);
    if (message.toolCalls.length === 0) return end('done', step);

    for (const call of message.toolCalls) {
      if (signal.aborted) {
        closePendingCalls(history, message.id, 'cancelled');
        await options.onCallSettled?.(message, undefined);
        return end('cancelled', step);
      }
      if (call.state !== 'pending') {
        // Rejected before running (arguments that did not parse): the model sees why.
        sink.tool?.(id, view(call, 'failed', call.result?.output));
        continue;
      }
      if (repeats.seen(call) > REPEAT_LIMIT && !(await confirmRepeat(context, call))) {
        recordToolResult(
          history,
          message.id,
          call.id,
          {
            output:
              'The user stopped this call: it repeated the same call with the same arguments. Try something else.',
            isError: true,
            meta: { error_kind: 'denied' },
          },
          'denied',
        );
        sink.tool?.(id, view(call, 'denied'));
        await options.onCallSettled?.(message, undefined);
        continue;
      }
      setToolState(history, message.id, call.id, 'running');
      sink.tool?.(id, view(call, 'running'));
      let result = await registry.call(call.name, call.arguments, context, options.mode);
      for (const p of result.changed_paths) changed.add(p);
      const check = checkFromResult(result);
      if (check) checks.push(check);
      if (
        result.ok &&
        FILE_TOOLS.has(result.tool) &&
        result.changed_paths.length > 0 &&
        options.buildCommand
      ) {
        result = await appendBuild(result, options, checks, changed, sink);
      }
      const kind = (result.output as { error_kind?: string }).error_kind;
      const state = result.ok
        ? 'done'
        : kind === 'denied'
          ? 'denied'
          : kind === 'cancelled' || signal.aborted
            ? 'cancelled'
            : 'error';
      recordToolResult(
        history,
        message.id,
        call.id,
        {
          output: result.content,
          isError: !result.ok,
          meta: { tool: result.tool, duration_ms: result.duration_ms },
        },
        state,
      );
      await options.onCallSettled?.(message, result);
      sink.tool?.(id, {
        ...view(call, state === 'done' ? 'done' : state === 'error' ? 'failed' : state, result.content),
        duration_ms: result.duration_ms,
      });
    }
    if (signal.aborted) return end('cancelled', step);
  }
  return end('budget', maxSteps);
}

function view(
  call: ToolCall,
  status: 'running' | 'done' | 'failed' | 'denied' | 'cancelled',
  result?: string,
) {
  return {
    call_id: call.id,
    name: call.name,
    summary: summarizeCall(call),
    status,
    detail: detailOf(call.arguments, result),
  };
}

/** Counts identical consecutive calls (same tool, same arguments). */
class RepeatTracker {
  private last = '';
  private count = 0;

  seen(call: ToolCall): number {
    const key = `${call.name}\u0000${JSON.stringify(call.arguments)}`;
    this.count = key === this.last ? this.count + 1 : 1;
    this.last = key;
    return this.count;
  }
}

async function confirmRepeat(context: ToolContext, call: ToolCall): Promise<boolean> {
  const answer = await context.editor
    .askUser(
      `The model is calling ${call.name} with the same arguments for the ${REPEAT_LIMIT + 1}th time in a row. Let it?`,
      ['Allow it', 'Stop this call'],
    )
    .catch(() => 'Stop this call');
  return answer === 'Allow it';
}

/** Runs the project's build after a file change and puts a failure in front of the model. */
async function appendBuild(
  result: ToolResult,
  options: LoopOptions,
  checks: CheckRun[],
  changed: Set<string>,
  sink: RunSink,
): Promise<ToolResult> {
  const build = await options.registry.call('build', {}, options.context, 'agent');
  for (const p of build.changed_paths) changed.add(p);
  const out = build.output as {
    exit_code?: number | null;
    stdout?: string;
    stderr?: string;
    command?: string;
  };
  const command = out.command ?? options.buildCommand ?? 'build';
  const passed = build.ok && out.exit_code === 0;
  checks.push({ command, exit_code: out.exit_code ?? null, passed });
  sink.notice(
    passed ? `Build passed: ${command}` : `Build failed: ${command} (exit ${out.exit_code ?? '?'})`,
    passed ? 'info' : 'warn',
  );
  if (passed) return result;
  const tail = `${out.stdout ?? ''}\n${out.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
  const output = {
    ...result.output,
    build: { command, passed: false, exit_code: out.exit_code ?? null, output_tail: tail },
  };
  return { ...result, output, content: JSON.stringify(output) };
}
