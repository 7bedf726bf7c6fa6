import { z } from 'zod';
import { buildTimeSchema } from './build-time-schemas.js';
import { capOutput } from './cap-output.js';
import type { Mode, PatchDialect, ToolCallContext } from './tool-context.js';
import { fail, isFailure, ToolError, type ToolFailure } from './tool-error.js';

/** A successful result: any JSON object; a failure is a `ToolFailure`. */
export type ToolOutput = Record<string, unknown>;

export interface ToolSpec<S extends z.ZodType<Record<string, unknown>>> {
  name: string;
  aliases?: string[];
  /** Written for the model: what the tool does, when to use it, and its limits. */
  description: string;
  /** A description for models that write one patch format best, instead of `description`. */
  descriptionFor?: Partial<Record<PatchDialect, string>>;
  schema: S;
  modes: Mode[];
  /** Whether the tool can change files (the loop uses this for plan/ask policies and undo). */
  mutates: boolean;
  /** Argument names real models send for ours (`file_path` for `path`); renamed before validation. */
  argAliases?: Record<string, string>;
  /**
   * Advice added to an `invalid_args` failure, for argument shapes of other agents' tools that a
   * model may send out of habit (e.g. a text editor's `command: "insert"`).
   */
  invalidArgsHint?: (args: Record<string, unknown>) => string | undefined;
  /** Backstop on the serialised result; tools cap their own output first. */
  maxOutputBytes?: number;
  execute(args: z.output<S>, ctx: ToolCallContext): Promise<ToolOutput | ToolFailure>;
}

export interface ToolResult {
  /** Canonical tool name (the requested name when it matched nothing). */
  tool: string;
  ok: boolean;
  /** The object the model sees. */
  output: ToolOutput;
  /** `output` serialised, within the size cap: send this to the provider. */
  content: string;
  /** Project-relative paths this call changed (empty for read-only tools). */
  changed_paths: string[];
  duration_ms: number;
  truncated: boolean;
}

export interface Tool {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly description: string;
  readonly modes: readonly Mode[];
  /** The description for a model that writes this patch format best. */
  describe(dialect: PatchDialect): string;
  readonly mutates: boolean;
  /** JSON Schema of the arguments, as providers expect it. */
  parameters(): Record<string, unknown>;
  run(rawArgs: unknown, ctx: ToolCallContext): Promise<ToolResult>;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;

export function defineTool<S extends z.ZodType<Record<string, unknown>>>(spec: ToolSpec<S>): Tool {
  let parameters: Record<string, unknown> | undefined;
  return {
    name: spec.name,
    aliases: spec.aliases ?? [],
    description: spec.description,
    modes: spec.modes,
    describe: (dialect) => spec.descriptionFor?.[dialect] ?? spec.description,
    mutates: spec.mutates,
    parameters() {
      parameters ??= buildTimeSchema(spec.name);
      if (!parameters) {
        // io: 'input' keeps fields with defaults optional, which is what the model may send.
        const { $schema: _ignored, ...schema } = z.toJSONSchema(spec.schema, { io: 'input' }) as Record<
          string,
          unknown
        >;
        parameters = dropSafeIntegerBounds(schema) as Record<string, unknown>;
      }
      return parameters;
    },
    async run(rawArgs, ctx) {
      const started = performance.now();
      // The time the user takes to answer a permission prompt is not the tool's (nor the
      // checkpoint the editor takes once it is allowed).
      let waited = 0;
      const editor: ToolCallContext['editor'] = Object.assign(Object.create(ctx.editor), {
        askPermission: async (...args: Parameters<ToolCallContext['editor']['askPermission']>) => {
          const asked = performance.now();
          try {
            return await ctx.editor.askPermission(...args);
          } finally {
            waited += performance.now() - asked;
          }
        },
      });
      let output: ToolOutput | ToolFailure;
      const parsed = parseArgs(rawArgs, spec);
      if (ctx.signal.aborted) {
        output = fail('cancelled', 'The user stopped the run before this tool started.');
      } else if (!parsed.ok) {
        output = parsed.failure;
      } else {
        try {
          output = await spec.execute(parsed.args, { ...ctx, editor });
        } catch (err) {
          output = toFailure(err, ctx.signal);
        }
      }
      return finish(spec, output, started + waited);
    },
  };
}

export function resultOf(tool: string, output: ToolOutput, started: number, maxBytes: number): ToolResult {
  const capped = capOutput(output, maxBytes);
  const changed = Array.isArray(output.changed_paths) ? (output.changed_paths as string[]) : [];
  return {
    tool,
    ok: !isFailure(output),
    output: capped.value,
    content: capped.json,
    changed_paths: changed,
    duration_ms: Math.round(performance.now() - started),
    truncated: capped.truncated,
  };
}

function finish<S extends z.ZodType<Record<string, unknown>>>(
  spec: ToolSpec<S>,
  output: ToolOutput,
  started: number,
): ToolResult {
  return resultOf(spec.name, output, started, spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
}

function parseArgs<S extends z.ZodType<Record<string, unknown>>>(
  rawArgs: unknown,
  spec: ToolSpec<S>,
): { ok: true; args: z.output<S> } | { ok: false; failure: ToolFailure } {
  let args = rawArgs ?? {};
  // Some providers deliver arguments as a JSON string; an empty string means "no arguments".
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return { ok: false, failure: fail('invalid_args', `Arguments for ${spec.name} are not valid JSON.`) };
    }
  }
  if (spec.argAliases && args && typeof args === 'object' && !Array.isArray(args)) {
    const renamed: Record<string, unknown> = { ...(args as Record<string, unknown>) };
    for (const [alias, canonical] of Object.entries(spec.argAliases)) {
      if (alias in renamed && !(canonical in renamed)) {
        renamed[canonical] = renamed[alias];
        delete renamed[alias];
      }
    }
    args = renamed;
  }
  const result = spec.schema.safeParse(args);
  if (result.success) return { ok: true, args: result.data };
  const hint =
    args && typeof args === 'object' && !Array.isArray(args)
      ? spec.invalidArgsHint?.(args as Record<string, unknown>)
      : undefined;
  return {
    ok: false,
    failure: fail(
      'invalid_args',
      `Invalid arguments for ${spec.name}:\n${z.prettifyError(result.error)}${hint ? `\n${hint}` : ''}`,
    ),
  };
}

function toFailure(err: unknown, signal: AbortSignal): ToolFailure {
  if (err instanceof ToolError) return err.toFailure();
  if (signal.aborted) return fail('cancelled', 'The user stopped this tool call.');
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof code === 'string') return fail('io', message);
  return fail('internal', `The tool failed unexpectedly: ${message}`);
}

/**
 * zod writes `.int()` as bounds of ±2^53-1; they say nothing to a model and cost tokens on every
 * request, so they are dropped.
 */
function dropSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    out[key] = dropSafeIntegerBounds(value);
  }
  return out;
}
