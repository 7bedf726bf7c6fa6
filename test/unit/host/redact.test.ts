import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/util/logger.js';
import { redact, registerEnvSecrets, registerSecret } from '../../../src/util/redact.js';

describe('redact', () => {
  it('hides registered secrets of any shape', () => {
    registerSecret('hunter2-very-secret');
    expect(redact('key=hunter2-very-secret; again hunter2-very-secret')).toBe(
      'key=[REDACTED]; again [REDACTED]',
    );
  });

  it('hides well-known key shapes and auth headers it was never told about', () => {
    expect(redact('using sk-ant-api03-abcdefghijklmnop')).toBe('using [REDACTED]');
    expect(redact('Authorization: Bearer abc.def.ghi123')).not.toContain('abc.def.ghi123');
    expect(redact('{"x-api-key":"zzzzzzzzzzzz"}')).toBe('{"x-api-key":"[REDACTED]"}');
  });

  it('registers provider keys from the environment', () => {
    registerEnvSecrets({ MY_API_KEY: 'plain-looking-value-123', PATH: '/usr/bin' });
    expect(redact('value plain-looking-value-123')).toBe('value [REDACTED]');
    expect(redact('/usr/bin')).toBe('/usr/bin');
  });

  it('leaves ordinary text alone', () => {
    expect(redact('The sky is blue; skip this.')).toBe('The sky is blue; skip this.');
  });
});

describe('logger', () => {
  it('writes redacted lines at or above its level to its file', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-log-')), 'sub', 'agent.log');
    registerSecret('secret-token-value');
    const logger = createLogger(file, 'info');
    logger.debug('not written');
    logger.info('request with', { key: 'secret-token-value' });
    logger.error(new Error('boom'));
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('not written');
    expect(text).not.toContain('secret-token-value');
    expect(text).toMatch(/INFO \[\d+\] request with \{ key: '\[REDACTED\]' \}/);
    expect(text).toContain('ERROR');
    expect(text).toContain('boom');
  });

  it('without a file drops everything and reports no file', () => {
    const logger = createLogger(undefined);
    expect(logger.file).toBeUndefined();
    expect(() => logger.error('x')).not.toThrow();
  });
});
