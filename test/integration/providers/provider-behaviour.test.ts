import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendSummary,
  appendUser,
  commitAssistant,
  createHistory,
  recordToolResult,
} from '../../../src/history/conversation.js';
import { createProvider } from '../../../src/providers/create-provider.js';
import { createLogger } from '../../../src/util/logger.js';
import { startLlmServer } from '../../helpers/llm-server.js';
import { must, request, runStream } from './run-stream.js';

type Json = Record<string, unknown>;

describe('provider behaviour across requests', () => {
  it('maps tool-call ids to 9 alphanumerics for Mistral, the same on every request', async () => {
    await using server = await startLlmServer([
      { toolCalls: [{ id: 'call_with_a_long_id_0001', name: 'glob', arguments: {} }] },
      { text: 'ok' },
    ]);
    const provider = createProvider('mistral', { type: 'openai_compatible', base_url: server.url });
    const history = createHistory();
    appendUser(history, 'go');
    const first = await runStream(provider, request({ model: 'devstral-small', messages: history.messages }));
    const m = commitAssistant(history, must(first.message));
    recordToolResult(history, m.id, must(m.toolCalls[0]).id, { output: 'x' });
    await runStream(provider, request({ model: 'devstral-small', messages: history.messages }));
    const messages = (must(server.modelRequests()[1]).body as Json).messages as Json[];
    const callId = must((must(messages[2]).tool_calls as Json[])[0]).id as string;
    expect(callId).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: callId });
  });

  it('abandons a silent server after the idle timeout', async () => {
    await using server = await startLlmServer([{ raw: [], hang: true }]);
    const provider = createProvider('slow', {
      type: 'openai_compatible',
      base_url: server.url,
      timeout: 300,
    });
    const started = Date.now();
    const out = await runStream(provider, request());
    expect(out.error?.kind).toBe('timeout');
    expect(out.error?.message).toMatch(/sent nothing for too long/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('keeps the earlier tool exchange when a later request fails, and replays it afterwards', async () => {
    await using server = await startLlmServer([
      { toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a' } }] },
      { text: 'partial answer that never finishes', chunkSize: 4, cutAfter: 4 },
      { text: 'complete answer' },
    ]);
    const provider = createProvider('p', { type: 'openai_compatible', base_url: server.url, max_retries: 0 });
    const history = createHistory();
    appendUser(history, 'go');
    const first = await runStream(provider, request({ messages: history.messages }));
    const m = commitAssistant(history, must(first.message));
    recordToolResult(history, m.id, 'call_1', { output: 'contents' });
    const failed = await runStream(provider, request({ messages: history.messages }));
    expect(failed.error).toBeDefined();
    expect(history.messages).toHaveLength(2);
    const retried = await runStream(provider, request({ messages: history.messages }));
    expect(retried.message?.text).toBe('complete answer');
    const replay = (must(server.modelRequests()[2]).body as Json).messages as Json[];
    expect(replay.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  });

  it('starts the replay at the last summary', async () => {
    await using server = await startLlmServer([{ text: 'ok' }]);
    const provider = createProvider('p', { type: 'openai_compatible', base_url: server.url });
    const history = createHistory();
    appendUser(history, 'ancient');
    appendSummary(history, 'The user asked something ancient.');
    appendUser(history, 'now');
    await runStream(provider, request({ messages: history.messages }));
    const messages = (must(server.modelRequests()[0]).body as Json).messages as Json[];
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'Summary of the conversation so far:\n\nThe user asked something ancient.' },
      { role: 'user', content: 'now' },
    ]);
  });

  it('keeps configured keys out of log lines and error messages', async () => {
    const key = 'custom-provider-key-without-a-known-shape';
    await using server = await startLlmServer([
      { status: 500, body: { error: { message: `upstream said ${key}` } } },
    ]);
    const provider = createProvider('work', {
      type: 'openai_compatible',
      base_url: server.url,
      api_key: key,
      max_retries: 0,
      headers: { 'X-Api-Token': 'header-secret-value-123' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'provider-log-'));
    try {
      const logger = createLogger(join(dir, 'agent.log'));
      logger.info('provider entry', { api_key: key, headers: { 'X-Api-Token': 'header-secret-value-123' } });
      const out = await runStream(provider, request());
      logger.error(out.error?.message);
      const log = readFileSync(join(dir, 'agent.log'), 'utf8');
      expect(log).not.toContain(key);
      expect(log).not.toContain('header-secret-value-123');
      expect(out.error?.message).not.toContain(key);
      expect(must(server.requests[0]).headers.authorization).toBe(`Bearer ${key}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('servers that reject stream_options', () => {
  it('drop the field once and keep going', async () => {
    await using server = await startLlmServer([
      { status: 400, body: { error: { message: 'Unrecognized request argument supplied: stream_options' } } },
      { text: 'fine', usageChunk: 'inline' },
      { text: 'again' },
    ]);
    const provider = createProvider('old', { type: 'llamacpp', base_url: server.url });
    const out = await runStream(provider, request());
    expect(out.message?.text).toBe('fine');
    expect(out.message?.usage?.output).toBe(5);
    await runStream(provider, request());
    const bodies = server.modelRequests().map((r) => r.body as Json);
    expect(bodies.map((b) => 'stream_options' in b)).toEqual([true, false, false]);
  });
});

describe('missing keys', () => {
  it('name the variable to set, for hosted APIs only', async () => {
    const openai = createProvider('openai', { type: 'openai' }, {});
    const out = await runStream(openai, request());
    expect(out.error?.kind).toBe('config');
    expect(out.error?.message).toBe(
      "No API key for openai: set OPENAI_API_KEY or the provider's api_key / api_key_cmd.",
    );
    const claude = createProvider('claude', { type: 'anthropic' }, {});
    expect((await runStream(claude, request())).error?.message).toMatch(/set ANTHROPIC_API_KEY/);
    const closed = await startLlmServer([]);
    await closed.close();
    const fromEnv = createProvider(
      'or',
      { type: 'openrouter', base_url: closed.url },
      { OPENROUTER_API_KEY: 'sk-or-v1-abcdefghijklmnop' },
    );
    const refused = await runStream(fromEnv, request());
    expect(refused.error?.kind).toBe('unreachable');
    expect(refused.error?.message).toBe(
      'Could not connect to or (connection refused; is the server running?).',
    );
  });
});
