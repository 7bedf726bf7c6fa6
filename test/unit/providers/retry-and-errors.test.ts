import { describe, expect, it } from 'vitest';
import { clearKeyCache, resolveApiKey } from '../../../src/providers/api-key.js';
import { createProvider } from '../../../src/providers/create-provider.js';
import type { ProviderEvent } from '../../../src/providers/provider.js';
import { ProviderError, toProviderError } from '../../../src/providers/provider-error.js';
import { backoffDelay, retryStream } from '../../../src/providers/retry.js';
import { redact } from '../../../src/util/redact.js';

describe('retries', () => {
  it('backs off exponentially with bounded jitter', () => {
    expect(backoffDelay(0, 1000, 30_000, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, 1000, 30_000, () => 0)).toBe(6000);
    expect(backoffDelay(10, 1000, 30_000, () => 1)).toBe(37_500);
  });

  it('retries only before the first event and stops after the bound', async () => {
    let attempts = 0;
    const failing = async function* (): AsyncGenerator<ProviderEvent> {
      attempts++;
      if (attempts > 0)
        throw Object.assign(new Error('429'), { status: 429, headers: { 'retry-after': '0' } });
      yield { type: 'text', text: 'never' };
    };
    const events: ProviderEvent[] = [];
    const run = async () => {
      for await (const e of retryStream(failing, {
        providerId: 'p',
        maxRetries: 2,
        signal: new AbortController().signal,
      })) {
        events.push(e);
      }
    };
    await expect(run()).rejects.toMatchObject({ kind: 'rate_limit' });
    expect(attempts).toBe(3);
    expect(events.map((e) => e.type)).toEqual(['retry', 'retry']);

    attempts = 0;
    const midStream = async function* (): AsyncGenerator<ProviderEvent> {
      attempts++;
      yield { type: 'text', text: 'hi' };
      throw Object.assign(new Error('boom'), { status: 500 });
    };
    const run2 = async () => {
      for await (const _ of retryStream(midStream, {
        providerId: 'p',
        maxRetries: 3,
        signal: new AbortController().signal,
      })) {
        // drain
      }
    };
    await expect(run2()).rejects.toMatchObject({ kind: 'server' });
    expect(attempts).toBe(1);
  });
});

describe('errors and keys', () => {
  it('maps statuses to kinds with one redacted sentence', () => {
    const err = toProviderError(
      { status: 401, message: '401 bad key sk-abcdefghijklmnopqrstuvwxyz' },
      'openai',
    );
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/^openai rejected the API key \(401\).*\.$/);
    expect(
      toProviderError(
        { status: 400, error: { error: { message: 'maximum context length is 8192 tokens' } } },
        'p',
      ).kind,
    ).toBe('context_length');
    expect(toProviderError(new TypeError('fetch failed'), 'p').kind).toBe('network');
    const aborted = new AbortController();
    aborted.abort();
    expect(toProviderError(new Error('x'), 'p', aborted.signal).kind).toBe('cancelled');
    expect(new ProviderError('server', 'key sk-ant-api03-abcdefghijklmnop leaked').message).not.toContain(
      'abcdefghijklmnop',
    );
  });

  it('runs api_key_cmd once, caches it and registers it for redaction', async () => {
    clearKeyCache();
    const cmd = [
      'node',
      '-e',
      'console.log("custom-secret-" + "value-42"); require("fs").appendFileSync(process.env.COUNT_FILE, "x")',
    ];
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/keycmd-');
    process.env.COUNT_FILE = `${dir}/count`;
    const a = await resolveApiKey('p', { api_key_cmd: cmd }, undefined);
    const b = await resolveApiKey('p', { api_key_cmd: cmd }, undefined);
    expect(a).toBe('custom-secret-value-42');
    expect(b).toBe(a);
    expect(readFileSync(`${dir}/count`, 'utf8')).toBe('x');
    expect(redact('the key is custom-secret-value-42')).toBe('the key is [REDACTED]');
    await expect(resolveApiKey('p', { api_key_cmd: ['false'] }, undefined)).rejects.toThrow(
      /api_key_cmd of provider p/,
    );
    expect(await resolveApiKey('p', {}, 'MY_KEY', { MY_KEY: 'from-env-123' })).toBe('from-env-123');
    // One string runs through the shell; only the first line counts (pass show prints metadata after it).
    expect(await resolveApiKey('p', { api_key_cmd: 'printf "shell-key-999\\nuser: me\\n"' }, undefined)).toBe(
      'shell-key-999',
    );
  });

  it('rejects a bad entry naming the dotted path', () => {
    expect(() => createProvider('work', { type: 'openai_compatible' })).toThrow(
      /providers\.work\.base_url is required/,
    );
    expect(() => createProvider('x', { type: 'openai', timeout: -1 })).toThrow(/providers\.x\.timeout/);
  });
});
