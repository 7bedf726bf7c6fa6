import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/providers/create-provider.js';
import { detectProvider, httpProbe } from '../../../src/providers/detect-provider.js';
import { startLlmServer } from '../../helpers/llm-server.js';
import { request, runStream } from './run-stream.js';

describe('first run pointed at a server by AGENT_NVIM_BASE_URL', () => {
  it('asks the server for its model, then streams through it', async () => {
    await using server = await startLlmServer({
      models: ['scripted-7b'],
      turns: [{ text: 'Hi from the env server.' }],
    });
    const env = { AGENT_NVIM_BASE_URL: server.url };
    const found = await detectProvider(env, httpProbe);
    expect(found).toEqual({
      id: 'env',
      config: { type: 'openai_compatible', base_url: server.url },
      model: 'scripted-7b',
    });
    if (!found) return;
    const provider = createProvider(found.id, found.config, env);
    const out = await runStream(provider, request({ model: found.model, tools: [] }));
    expect(out.message?.text).toBe('Hi from the env server.');
    expect(server.modelRequests()[0]?.body).toMatchObject({ model: 'scripted-7b', stream: true });
  });
});
