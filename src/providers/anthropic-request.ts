/**
 * History → Anthropic Messages request. Prompt caching marks the system prompt, the tool list
 * and the conversation tail (three of the four allowed breakpoints), so each turn re-reads the
 * previous prefix from cache. Signed thinking blocks go back only to the provider that made them.
 */
import { fromLastSummary, replayResult } from '../history/conversation.js';
import type { Message } from '../history/types.js';
import type { ModelRequest } from './provider.js';
import { renderTextCall, textToolsPrompt } from './text-tool-calls.js';

type Json = Record<string, unknown>;
type Block = Json;

const EPHEMERAL = { type: 'ephemeral' } as const;

export interface AnthropicRequestOptions {
  providerId: string;
  maxTokens: number;
  /** Extended-thinking budget in tokens; 0 leaves thinking off. */
  thinkingBudget: number;
  textTools: boolean;
}

/** Output limits of the model families, used when neither the request nor the user sets one. */
export function defaultMaxTokens(model: string): number {
  if (/claude-3-(haiku|opus|sonnet)/.test(model)) return 4096;
  if (/claude-3-[57]/.test(model)) return 8192;
  return 16_384;
}

export function buildAnthropicRequest(req: ModelRequest, opts: AnthropicRequestOptions): Json {
  const systemText =
    opts.textTools && req.tools.length ? `${req.system}\n\n${textToolsPrompt(req.tools)}` : req.system;
  const messages: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (!blocks.length) return;
    const last = messages.at(-1);
    // Tool results and the next prompt are both user content: keep roles alternating.
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of fromLastSummary(req.messages)) appendMessage(m, opts, push);

  const tail = messages.at(-1)?.content.at(-1);
  if (tail) tail.cache_control = EPHEMERAL;

  const body: Json = {
    model: req.model,
    max_tokens: opts.maxTokens,
    messages,
    stream: true,
  };
  if (systemText) body.system = [{ type: 'text', text: systemText, cache_control: EPHEMERAL }];
  if (!opts.textTools && req.tools.length) {
    body.tools = req.tools.map((t, i) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
      ...(i === req.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }));
  }
  if (opts.thinkingBudget > 0) {
    body.thinking = { type: 'enabled', budget_tokens: opts.thinkingBudget };
    body.max_tokens = Math.max(opts.maxTokens, opts.thinkingBudget + 1024);
  }
  return body;
}

function appendMessage(
  m: Message,
  opts: AnthropicRequestOptions,
  push: (role: 'user' | 'assistant', blocks: Block[]) => void,
): void {
  if (m.role === 'user') {
    if (m.text) push('user', [{ type: 'text', text: m.text }]);
    return;
  }
  if (m.role === 'summary') {
    push('user', [{ type: 'text', text: `Summary of the conversation so far:\n\n${m.text}` }]);
    return;
  }
  if (opts.textTools) {
    const text = [m.text, ...m.toolCalls.map((c) => renderTextCall(c.name, c.arguments))]
      .filter(Boolean)
      .join('\n\n');
    if (text) push('assistant', [{ type: 'text', text }]);
    if (m.toolCalls.length) {
      const results = m.toolCalls.map((c) => {
        const r = replayResult(c);
        return `<tool_result name="${c.name}"${r.isError ? ' error="true"' : ''}>\n${r.output}\n</tool_result>`;
      });
      push('user', [{ type: 'text', text: results.join('\n\n') }]);
    }
    return;
  }
  const blocks: Block[] = [];
  if (m.replay?.provider === opts.providerId && Array.isArray(m.replay.data.thinking)) {
    blocks.push(...(m.replay.data.thinking as Block[]));
  }
  if (m.text) blocks.push({ type: 'text', text: m.text });
  for (const c of m.toolCalls) {
    blocks.push({ type: 'tool_use', id: toolUseId(c.id), name: c.name, input: c.invalid ? {} : c.arguments });
  }
  push('assistant', blocks);
  if (m.toolCalls.length) {
    push(
      'user',
      m.toolCalls.map((c) => {
        const r = replayResult(c);
        return {
          type: 'tool_result',
          tool_use_id: toolUseId(c.id),
          content: r.output || '(no output)',
          is_error: r.isError === true,
        };
      }),
    );
  }
}

/** Anthropic accepts only `[A-Za-z0-9_-]` in tool_use ids; calls made by other providers may not comply. */
export function toolUseId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}
