import type { ToolCall } from '../history/types.js';

export type RunOutcome = 'done' | 'failed' | 'cancelled' | 'budget';

/** A build or test actually run during a run, with its exit code. */
export interface CheckRun {
  command: string;
  exit_code: number | null;
  passed: boolean;
}

/** How a run ended: shown as the completion entry and sent with `AgentRunDone`. */
export interface Completion {
  outcome: RunOutcome;
  changed_files: string[];
  checks: CheckRun[];
  error?: string;
  steps: number;
}

export interface ToolView {
  call_id: string;
  name: string;
  summary: string;
  status: 'running' | 'done' | 'failed' | 'denied' | 'cancelled';
  /** Arguments and result, for the folded details. */
  detail?: string;
  duration_ms?: number;
}

/** Figures for the status line: the step while running, tokens, context use and cost. */
export interface RunStatus {
  step: number;
  max_steps: number;
  /** Session totals. */
  input_tokens: number;
  output_tokens: number;
  /** Tokens the last request put in the context, and the model's window (0 when unknown). */
  context_tokens: number;
  /**
   * Our own estimate (bytes / 3) of the next request. Compaction decides on the provider's count
   * plus our estimate of what was added since, falling back to this one (context-size.ts).
   */
  context_estimate: number;
  context_window: number;
  /** Session cost in USD; undefined when a price is unknown. */
  cost?: number;
}

/** Where a run reports what the user should see; the host turns these into UI dispatches. */
export interface RunSink {
  started(id: string, model: string): void;
  text(id: string, text: string): void;
  reasoning(id: string, text: string): void;
  notice(text: string, level: 'info' | 'warn' | 'error'): void;
  tool?(id: string, view: ToolView): void;
  planReady?(id: string, path: string): void;
  status?(id: string, status: RunStatus): void;
  /** Background work worth showing in the status (summarising); undefined clears it. */
  activity?(id: string, text: string | undefined): void;
  /** The run ended; `completion` carries changed files and checks when the loop ran. */
  done(id: string, outcome: RunOutcome, error?: string, completion?: Completion): void;
}

/** One line naming a call for the chat: the tool and its main argument. */
export function summarizeCall(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const args = call.arguments;
  const main = ['path', 'command', 'pattern', 'subcommand', 'url', 'question', 'name', 'query', 'action']
    .map((k) => args[k])
    .find((v) => typeof v === 'string' && v !== '');
  const text = typeof main === 'string' ? (main.split('\n')[0] ?? '') : '';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Longest line and whole size of a call's details in the chat. */
const DETAIL_MAX_LINE = 400;
const DETAIL_MAX_CHARS = 16 * 1024;

/**
 * The folded details of a call in the chat: its arguments, and its result once there is one.
 * Cut to a size Neovim draws at once (a 5 MB write_file would otherwise be one 5 MB line); the
 * model and the session keep them whole.
 */
export function detailOf(args: unknown, result?: string): string {
  const json = JSON.stringify(args, null, 2) ?? '';
  const text = result === undefined ? json : `${json}\n--- result ---\n${result}`;
  const lines = text
    .split('\n')
    .map((l) =>
      l.length > DETAIL_MAX_LINE
        ? `${l.slice(0, DETAIL_MAX_LINE)}… (${l.length - DETAIL_MAX_LINE} more characters)`
        : l,
    );
  const out = lines.join('\n');
  return out.length > DETAIL_MAX_CHARS
    ? `${out.slice(0, DETAIL_MAX_CHARS)}\n… (${out.length - DETAIL_MAX_CHARS} more characters)`
    : out;
}
