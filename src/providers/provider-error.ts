/**
 * The one error type providers throw. Its message is a single user-facing sentence with every
 * secret redacted; `kind` drives retries and the agent's reaction (e.g. `tools_unsupported`
 * switches to the text fallback, `cancelled` is not a failure).
 */
import { redact } from '../util/redact.js';

export type ProviderErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'network'
  | 'unreachable'
  | 'timeout'
  | 'cancelled'
  | 'bad_request'
  | 'not_found'
  | 'context_length'
  | 'tools_unsupported'
  | 'incomplete'
  | 'invalid_response'
  | 'config';

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limit', 'overloaded', 'server', 'network']);

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  /** Server-requested wait before retrying (from `retry-after`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(redact(message), { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

interface ApiErrorLike {
  status?: number;
  headers?: { get(name: string): string | null } | Record<string, string>;
  error?: unknown;
  message?: string;
  name?: string;
  constructor?: { name?: string };
}

function header(err: ApiErrorLike, name: string): string | undefined {
  const h = err.headers;
  if (!h) return undefined;
  if (typeof (h as { get?: unknown }).get === 'function') {
    return (h as { get(n: string): string | null }).get(name) ?? undefined;
  }
  return (h as Record<string, string>)[name];
}

/** `retry-after` (seconds or an HTTP date) and `retry-after-ms`, in milliseconds. */
export function retryAfterMs(err: ApiErrorLike): number | undefined {
  const ms = Number(header(err, 'retry-after-ms'));
  if (header(err, 'retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = header(err, 'retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The server's own explanation, from either SDK's error body shapes. */
function serverMessage(err: ApiErrorLike): string {
  const body = err.error as { message?: unknown; error?: { message?: unknown; type?: unknown } } | undefined;
  const text = body?.error?.message ?? body?.message;
  if (typeof text === 'string' && text.trim()) return text.trim();
  return (err.message ?? '').replace(/^\d{3}\s+/, '').trim();
}

function errorType(err: ApiErrorLike): string {
  const body = err.error as { type?: unknown; error?: { type?: unknown } } | undefined;
  const t = body?.error?.type ?? body?.type;
  return typeof t === 'string' ? t : '';
}

function sentence(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

const TOOLS_REJECTED =
  /\btools?\b.*\b(not supported|unsupported|does not support|not available)|does not support tools/i;
const CONTEXT_EXCEEDED = /context (length|window)|maximum context|too many tokens|prompt is too long/i;

/** Maps any SDK, network or abort failure to a ProviderError naming the provider. */
export function toProviderError(err: unknown, providerId: string, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = (err ?? {}) as ApiErrorLike;
  const name = e.constructor?.name ?? e.name ?? '';
  if (signal?.aborted || name === 'APIUserAbortError' || (err as Error)?.name === 'AbortError') {
    return new ProviderError('cancelled', 'Cancelled.', { cause: err });
  }
  if (name === 'APIConnectionTimeoutError') {
    return new ProviderError('timeout', `The request to ${providerId} timed out.`, { cause: err });
  }
  const status = typeof e.status === 'number' ? e.status : undefined;
  const code = causeCode(err);
  if (status === undefined && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')) {
    // Nothing listens there (a local server not started, a mistyped host): retrying only delays
    // the message the user needs.
    const why =
      code === 'ECONNREFUSED'
        ? 'connection refused; is the server running'
        : 'host not found; check base_url';
    return new ProviderError('unreachable', `Could not connect to ${providerId} (${why}?).`, { cause: err });
  }
  if (status === undefined) {
    const detail = serverMessage(e) || String(err);
    if (name === 'APIError' || /overloaded/i.test(errorType(e))) {
      // An error event inside an otherwise successful stream.
      const kind = /overloaded/i.test(errorType(e) + detail) ? 'overloaded' : 'server';
      return new ProviderError(kind, sentence(`${providerId} reported an error mid-stream: ${detail}`), {
        cause: err,
      });
    }
    return new ProviderError('network', sentence(`Could not reach ${providerId}: ${detail}`), { cause: err });
  }
  const detail = serverMessage(e);
  const opts = { status, retryAfterMs: retryAfterMs(e), cause: err };
  if (status === 401 || status === 403) {
    return new ProviderError(
      'auth',
      sentence(
        `${providerId} rejected the API key (${status}); check its api_key, api_key_cmd or environment variable`,
      ),
      opts,
    );
  }
  if (status === 429)
    return new ProviderError('rate_limit', sentence(`${providerId} is rate limiting: ${detail}`), opts);
  if (status === 529 || /overloaded/i.test(errorType(e))) {
    return new ProviderError('overloaded', sentence(`${providerId} is overloaded: ${detail}`), opts);
  }
  if (status >= 500)
    return new ProviderError('server', sentence(`${providerId} failed (${status}): ${detail}`), opts);
  if (status === 404)
    return new ProviderError('not_found', sentence(`${providerId}: ${detail || 'not found'}`), opts);
  if (TOOLS_REJECTED.test(detail)) {
    return new ProviderError(
      'tools_unsupported',
      sentence(`${providerId} does not accept tools: ${detail}`),
      opts,
    );
  }
  if (CONTEXT_EXCEEDED.test(detail)) {
    return new ProviderError(
      'context_length',
      sentence(`The conversation is too long for the model: ${detail}`),
      opts,
    );
  }
  return new ProviderError(
    'bad_request',
    sentence(`${providerId} rejected the request (${status}): ${detail}`),
    opts,
  );
}

/** The first system error code (`ECONNREFUSED`, ...) in an error's cause chain. */
function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
