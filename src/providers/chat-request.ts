/**
 * History → chat-completions request body. Replays each assistant invocation with its calls and
 * results in order, and the provider state that this provider (and only this one) asked to get
 * back: DeepSeek `reasoning_content`, OpenRouter `reasoning_details`, Gemini `extra_content`.
 */
import { createHash } from 'node:crypto';
import { fromLastSummary, replayResult } from '../history/conversation.js';
import type { AssistantMessage, Message } from '../history/types.js';
import type { ModelRequest } from './provider.js';
import { renderTextCall, textToolsPrompt } from './text-tool-calls.js';

type Json = Record<string, unknown>;

export interface ChatRequestOptions {
  providerId: string;
  /** Tools described in the prompt instead of sent natively. */
  textTools: boolean;
  /** Map ids to 9 alphanumerics (Mistral). */
  shortCallIds: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  streamUsage: boolean;
  reasoningEffort?: string | undefined;
}

/** Deterministic, so the same call keeps the same id from request to request. */
export function shortCallId(id: string): string {
  const digest = createHash('sha256').update(id).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let out = '';
  for (let i = 0; i < 9; i++) out += alphabet[(digest[i] ?? 0) % alphabet.length];
  return out;
}

export function buildChatRequest(req: ModelRequest, opts: ChatRequestOptions): Json {
  const callId = opts.shortCallIds ? shortCallId : (id: string) => id;
  const system =
    opts.textTools && req.tools.length ? `${req.system}\n\n${textToolsPrompt(req.tools)}` : req.system;
  const messages: Json[] = [];
  if (system) messages.push({ role: 'system', content: system });
  for (const m of fromLastSummary(req.messages)) appendMessage(messages, m, opts, callId);

  const body: Json = { model: req.model, messages, stream: true };
  if (opts.streamUsage) body.stream_options = { include_usage: true };
  if (req.maxTokens) body[opts.maxTokensField] = req.maxTokens;
  if (opts.reasoningEffort) body.reasoning_effort = opts.reasoningEffort;
  if (!opts.textTools && req.tools.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  return body;
}

function appendMessage(
  out: Json[],
  m: Message,
  opts: ChatRequestOptions,
  callId: (id: string) => string,
): void {
  if (m.role === 'user') {
    out.push({ role: 'user', content: m.text });
    return;
  }
  if (m.role === 'summary') {
    out.push({ role: 'user', content: `Summary of the conversation so far:\n\n${m.text}` });
    return;
  }
  if (opts.textTools) {
    appendAsText(out, m);
    return;
  }
  const own = m.provider === opts.providerId;
  const msg: Json = { role: 'assistant', content: m.text || (m.toolCalls.length ? null : '') };
  if (own && m.replay?.provider === opts.providerId) {
    const data = m.replay.data;
    // DeepSeek's thinking mode answers 400 unless every assistant turn that called tools carries
    // its reasoning_content in all later requests; on turns without tools it is ignored, so it
    // is left out there.
    if (typeof data.reasoning_content === 'string' && m.toolCalls.length) {
      msg.reasoning_content = data.reasoning_content;
    }
    if (Array.isArray(data.reasoning_details)) msg.reasoning_details = data.reasoning_details;
  }
  if (m.toolCalls.length) {
    msg.tool_calls = m.toolCalls.map((c) => {
      const call: Json = {
        id: callId(c.id),
        type: 'function',
        function: { name: c.name, arguments: c.invalid ? '{}' : c.rawArguments || '{}' },
      };
      if (c.replay?.provider === opts.providerId && c.replay.data.extra_content) {
        call.extra_content = c.replay.data.extra_content;
      }
      return call;
    });
  }
  out.push(msg);
  for (const c of m.toolCalls) {
    out.push({ role: 'tool', tool_call_id: callId(c.id), content: replayResult(c).output });
  }
}

/** Text-fallback replay: calls as the markup the model was told to write, results as user turns. */
function appendAsText(out: Json[], m: AssistantMessage): void {
  const parts = [m.text, ...m.toolCalls.map((c) => renderTextCall(c.name, c.arguments))].filter(Boolean);
  out.push({ role: 'assistant', content: parts.join('\n\n') });
  if (!m.toolCalls.length) return;
  const results = m.toolCalls.map((c) => {
    const r = replayResult(c);
    return `<tool_result name="${c.name}"${r.isError ? ' error="true"' : ''}>\n${r.output}\n</tool_result>`;
  });
  out.push({ role: 'user', content: results.join('\n\n') });
}
