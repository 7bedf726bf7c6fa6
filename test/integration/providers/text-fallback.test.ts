import { describe, expect, it } from 'vitest';
import {
  appendUser,
  commitAssistant,
  createHistory,
  recordToolResult,
} from '../../../src/history/conversation.js';
import { createProvider } from '../../../src/providers/create-provider.js';
import { startLlmServer } from '../../helpers/llm-server.js';
import { must, request, runStream } from './run-stream.js';

type Json = Record<string, unknown>;

describe('text fallback for models without native tools', () => {
  it('switches automatically when the server rejects tools, then replays calls as text', async () => {
    await using server = await startLlmServer([
      {
        status: 400,
        body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools' } },
      },
      {
        text: 'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>',
      },
      { text: 'It says hi.' },
    ]);
    const provider = createProvider('ollama', { type: 'ollama', base_url: server.url });
    const history = createHistory();
    appendUser(history, 'read a.ts');
    const first = await runStream(provider, request({ model: 'gemma:2b', messages: history.messages }));
    expect(first.error).toBeUndefined();
    expect(first.events.find((e) => e.type === 'notice')).toBeDefined();
    expect(first.text).toBe('I will read it.\n');
    const message = must(first.message);
    expect(message.text).toBe('I will read it.');
    expect(message.textToolCalls).toBe(true);
    expect(message.finishReason).toBe('tool_calls');
    expect(message.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['read_file', { path: 'a.ts' }]]);

    const fallbackBody = must(server.modelRequests()[1]).body as Json;
    expect(fallbackBody.tools).toBeUndefined();
    expect(String(must((fallbackBody.messages as Json[])[0]).content)).toContain('### read_file');

    commitAssistant(history, message);
    recordToolResult(history, message.id, must(message.toolCalls[0]).id, { output: 'hi' });
    const second = await runStream(provider, request({ model: 'gemma:2b', messages: history.messages }));
    expect(second.message?.text).toBe('It says hi.');
    expect(second.events.find((e) => e.type === 'notice')).toBeUndefined(); // remembered
    const replay = (must(server.modelRequests()[2]).body as Json).messages as Json[];
    expect(replay.slice(1)).toEqual([
      { role: 'user', content: 'read a.ts' },
      {
        role: 'assistant',
        content:
          'I will read it.\n\n<tool_call>\n{"name":"read_file","arguments":{"path":"a.ts"}}\n</tool_call>',
      },
      { role: 'user', content: '<tool_result name="read_file">\nhi\n</tool_result>' },
    ]);
  });

  it('is used from the start when the model is configured for it', async () => {
    await using server = await startLlmServer([{ text: '<function=shell>{"command": "ls"}</function>' }]);
    const provider = createProvider('local', {
      type: 'llamacpp',
      base_url: server.url,
      models: { 'tiny-model': { text_tools: true } },
    });
    const out = await runStream(provider, request({ model: 'tiny-model' }));
    expect(out.message?.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['shell', { command: 'ls' }]]);
    expect(out.message?.text).toBe('');
    expect(server.modelRequests()).toHaveLength(1);
  });
});
