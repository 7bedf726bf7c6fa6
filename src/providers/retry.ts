/**
 * Bounded retries with jittered exponential backoff, honouring `retry-after`. Only failures
 * before the first streamed event are retried: once text has reached the user, a silent restart
 * would show it twice, so a mid-stream failure is reported instead.
 */
import type { ProviderEvent } from './provider.js';
import { ProviderError, toProviderError } from './provider-error.js';

export interface RetryOptions {
  providerId: string;
  maxRetries: number;
  signal: AbortSignal;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A server asking to wait longer than this gets a failure, not a frozen chat. */
  maxRetryAfterMs?: number;
  random?: () => number;
}

export function backoffDelay(attempt: number, base: number, max: number, random: () => number): number {
  const exp = Math.min(max, base * 2 ** attempt);
  // ±25% jitter so parallel clients do not retry in lockstep.
  return Math.round(exp * (0.75 + random() * 0.5));
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ProviderError('cancelled', 'Cancelled.'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ProviderError('cancelled', 'Cancelled.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export async function* retryStream(
  attempt: (n: number) => AsyncIterable<ProviderEvent>,
  opts: RetryOptions,
): AsyncGenerator<ProviderEvent> {
  const base = opts.baseDelayMs ?? 1000;
  const max = opts.maxDelayMs ?? 30_000;
  const maxRetryAfter = opts.maxRetryAfterMs ?? 120_000;
  const random = opts.random ?? Math.random;
  for (let n = 0; ; n++) {
    let yielded = false;
    try {
      for await (const event of attempt(n)) {
        yielded = true;
        yield event;
      }
      return;
    } catch (err) {
      const error = toProviderError(err, opts.providerId, opts.signal);
      const canRetry = error.retryable && !yielded && n < opts.maxRetries && !opts.signal.aborted;
      if (!canRetry || (error.retryAfterMs ?? 0) > maxRetryAfter) throw error;
      const delayMs = error.retryAfterMs ?? backoffDelay(n, base, max, random);
      yield {
        type: 'retry',
        attempt: n + 1,
        maxAttempts: opts.maxRetries,
        delayMs,
        // A phrase, not a sentence: the UI appends "; retrying in N s".
        reason: error.message.replace(/\.$/, ''),
      };
      await sleep(delayMs, opts.signal);
    }
  }
}
