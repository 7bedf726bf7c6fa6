import { describe, expect, it } from 'vitest';
import { providerStatus } from '../../../src/providers/provider-status.js';

describe('providerStatus', () => {
  it('says where the key comes from without revealing it', () => {
    expect(providerStatus('a', { type: 'anthropic' }, { ANTHROPIC_API_KEY: 'sk-ant-secret' })).toEqual({
      id: 'a',
      type: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      keySource: 'env:ANTHROPIC_API_KEY',
    });
    expect(
      providerStatus(
        'w',
        { type: 'openai_compatible', base_url: 'http://x/v1', api_key_cmd: ['pass', 'x'] },
        {},
      ),
    ).toMatchObject({
      keySource: 'api_key_cmd',
    });
    expect(providerStatus('o', { type: 'ollama' }, {})).toEqual({
      id: 'o',
      type: 'ollama',
      baseUrl: 'http://localhost:11434/v1',
      keySource: 'none needed',
    });
  });

  it('names what is wrong in one sentence', () => {
    expect(providerStatus('openai', { type: 'openai' }, {}).problem).toBe(
      'providers.openai has no key: set OPENAI_API_KEY or its api_key / api_key_cmd.',
    );
    expect(providerStatus('c', { type: 'openai_compatible' }, {}).problem).toBe(
      'providers.c.base_url is required for type openai_compatible.',
    );
    expect(providerStatus('bad', { type: 'openai', timeout: 'soon' }, {}).problem).toMatch(
      /^agent: providers\.bad\.timeout/,
    );
  });
});
