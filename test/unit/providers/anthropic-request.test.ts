import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../../src/history/types.js';
import { buildAnthropicRequest, defaultMaxTokens } from '../../../src/providers/anthropic-request.js';

type Json = Record<string, unknown>;

const fromOtherProvider: AssistantMessage = {
  role: 'assistant',
  id: 'a',
  text: '',
  toolCalls: [
    {
      id: 'call.with:odd/chars',
      name: 'shell',
      arguments: { command: 'ls' },
      rawArguments: '{"command":"ls"}',
      state: 'done',
      result: { output: 'x' },
    },
  ],
  finishReason: 'tool_calls',
  provider: 'ollama',
  model: 'qwen3',
  replay: { provider: 'ollama', data: { thinking: [{ type: 'thinking', thinking: 'not for claude' }] } },
  createdAt: 0,
};

describe('Anthropic request', () => {
  it('sanitises foreign tool ids and never replays another provider thinking', () => {
    const body = buildAnthropicRequest(
      {
        model: 'claude-sonnet-4-5',
        system: '',
        messages: [{ role: 'user', id: 'u', text: 'go', createdAt: 0 }, fromOtherProvider],
        tools: [],
      },
      { providerId: 'claude', maxTokens: 1000, thinkingBudget: 0, textTools: false },
    );
    const messages = body.messages as Array<{ role: string; content: Json[] }>;
    expect(messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'call_with_odd_chars', name: 'shell', input: { command: 'ls' } },
    ]);
    expect(messages[2]?.content[0]).toMatchObject({ tool_use_id: 'call_with_odd_chars' });
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
  });

  it('picks output limits by model family', () => {
    expect(defaultMaxTokens('claude-3-haiku-20240307')).toBe(4096);
    expect(defaultMaxTokens('claude-3-5-sonnet-latest')).toBe(8192);
    expect(defaultMaxTokens('claude-sonnet-4-5')).toBe(16384);
  });
});
