import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startLlmServer } from '../../helpers/llm-server.js';

describe('scripted LLM server', () => {
  it('streams chat completions with tool-call deltas and usage through the openai SDK', async () => {
    await using server = await startLlmServer('fixtures/llm/hello.json');
    const client = new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 });
    const first = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of first) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from the scripted server.');

    const second = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'read' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let args = '';
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of second) {
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(JSON.parse(args)).toEqual({ path: 'README.md' });
    expect(finish).toBe('tool_calls');
    expect(usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 14 });
    expect(server.modelRequests()).toHaveLength(2);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[1]?.body).toMatchObject({ stream_options: { include_usage: true } });
  });

  it('streams Anthropic messages through @anthropic-ai/sdk', async () => {
    await using server = await startLlmServer([
      { reasoning: 'think', text: 'Hi!', toolCalls: [{ name: 'glob', arguments: { pattern: '*.ts' } }] },
    ]);
    const client = new Anthropic({ baseURL: server.anthropicUrl, apiKey: 'sk-ant-test', maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'claude-x',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const tool = message.content[2];
    expect(tool?.type === 'tool_use' && tool.input).toEqual({ pattern: '*.ts' });
    const headers = server.requests[0]?.headers ?? {};
    expect(`${headers['x-api-key']} ${headers.authorization}`).toContain('sk-ant-test');
    expect(headers['anthropic-version']).toBeTruthy();
  });

  it('serves model lists in both formats and 429 with retry-after', async () => {
    await using server = await startLlmServer({
      models: [{ id: 'a', context_length: 1000 }],
      turns: [{ status: 429, headers: { 'retry-after': '0' } }],
    });
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const list = await openai.models.list();
    expect(list.data[0]).toMatchObject({ id: 'a', context_length: 1000 });
    const anthropic = new Anthropic({ baseURL: server.anthropicUrl, apiKey: 'k', maxRetries: 0 });
    const models = await anthropic.models.list();
    expect(models.data[0]?.id).toBe('a');
    const err = await openai.chat.completions
      .create({ model: 'a', messages: [{ role: 'user', content: 'x' }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('0');
  });

  it('splits events across writes, cuts connections and answers when the script is exhausted', async () => {
    await using server = await startLlmServer([
      { text: 'héllo wörld ✓', splitBytes: 3, crlf: true, garbage: true },
      { text: 'abcdefghijklmnop', chunkSize: 2, cutAfter: 3 },
    ]);
    const client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    let text = '';
    const s = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('héllo wörld ✓');
    const cut = async () => {
      const s2 = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
      for await (const _ of s2) {
        // drain
      }
    };
    await expect(cut()).rejects.toThrow();
    const exhausted = await client.chat.completions
      .create({ model: 'm', messages: [], stream: true })
      .catch((e: unknown) => e);
    expect(String(exhausted)).toContain('no scripted response left');
  });
});

describe('scripted LLM server, non-streamed answers', () => {
  it('answers each API with its own complete body', async () => {
    await using server = await startLlmServer([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(chat.choices[0]?.message.content).toBe('one');
    const anthropic = new Anthropic({ baseURL: server.anthropicUrl, apiKey: 'k', maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'c',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('two');
    const response = await openai.responses.create({ model: 'gpt-5', input: 'x' });
    expect(response.output_text).toBe('three');
  });
});
