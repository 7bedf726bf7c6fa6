/** Every way a tool call can fail that the model (or the loop) can act on. */
export type ToolErrorKind =
  | 'invalid_args'
  | 'unknown_tool'
  | 'not_available'
  | 'outside_project'
  | 'not_found'
  | 'is_directory'
  | 'not_a_directory'
  | 'binary'
  | 'unsupported_encoding'
  | 'too_large'
  | 'unsaved_buffer'
  | 'changed_since_read'
  | 'parse'
  | 'no_match'
  | 'ambiguous'
  | 'no_change'
  | 'missing_file'
  | 'exists'
  | 'io'
  | 'invalid_pattern'
  | 'denied'
  | 'cancelled'
  | 'timeout'
  | 'not_a_repo'
  | 'not_configured'
  | 'no_lsp'
  | 'unsupported'
  | 'http'
  | 'internal';

/** The model-facing failure: `{ error, error_kind, path?, line? }` plus tool-specific hints. */
export interface ToolFailure {
  error: string;
  error_kind: ToolErrorKind;
  path?: string;
  line?: number;
  [extra: string]: unknown;
}

/**
 * Thrown inside a tool for a failure the model can correct; `defineTool` turns it into a
 * `ToolFailure` result. Throwing keeps deep helpers (confinement, decoding) free of plumbing.
 */
export class ToolError extends Error {
  constructor(
    readonly kind: ToolErrorKind,
    message: string,
    readonly extra: { path?: string; line?: number; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = 'ToolError';
  }

  toFailure(): ToolFailure {
    return { error: this.message, error_kind: this.kind, ...this.extra };
  }
}

export function fail(
  kind: ToolErrorKind,
  message: string,
  extra: { path?: string; line?: number; [key: string]: unknown } = {},
): ToolFailure {
  return { error: message, error_kind: kind, ...extra };
}

export function isFailure(value: unknown): value is ToolFailure {
  return typeof value === 'object' && value !== null && 'error_kind' in value && 'error' in value;
}
