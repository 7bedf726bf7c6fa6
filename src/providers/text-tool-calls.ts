/**
 * Tool calls for models without native tool calling: the prompt describes the tools, and calls
 * are recognised in the reply in the forms open models actually write:
 *   `<tool_call>{"name", "arguments"}</tool_call>` (Hermes, Qwen), `<function=NAME>{...}</function>`
 *   and `<function=NAME><parameter=k>v</parameter></function>` (Llama, Qwen-Coder), a fenced or
 *   bare JSON object `{"name", "arguments"}`, and XML-style `<NAME><arg>v</arg></NAME>`.
 * Markup is removed from the visible text. A call that cannot be parsed becomes an invalid call
 * whose error goes back to the model, which can then correct itself.
 */
import type { ToolSpec } from './provider.js';

export interface TextCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Set when the call could not be understood; the model gets this as the result. */
  invalid?: string;
}

export interface TextCallParse {
  text: string;
  calls: TextCall[];
}

const FORMAT_HINT =
  'Write each tool call as <tool_call>{"name": "TOOL", "arguments": {...}}</tool_call> with valid JSON.';

export function textToolsPrompt(tools: ToolSpec[]): string {
  const list = tools
    .map((t) => `### ${t.name}\n${t.description}\nArguments (JSON Schema): ${JSON.stringify(t.parameters)}`)
    .join('\n\n');
  return [
    '# Tools',
    'You can call the tools below. To call one, write exactly:',
    '<tool_call>\n{"name": "TOOL_NAME", "arguments": {"arg": "value"}}\n</tool_call>',
    'You may make several calls in one reply. After your calls, stop and wait: the results arrive in',
    'the next message inside <tool_result> tags. Do not invent results.',
    '',
    list,
  ].join('\n');
}

export function renderTextCall(name: string, args: Record<string, unknown>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

interface Found {
  start: number;
  end: number;
  call: TextCall;
}

function asArgs(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      return asArgs(JSON.parse(value));
    } catch {
      return undefined;
    }
  }
  if (value === undefined || value === null) return {};
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `{"name", "arguments"|"parameters"|"input"}` → a call; undefined when it is not one. */
function fromObject(obj: unknown): TextCall | undefined {
  if (!obj || typeof obj !== 'object') return undefined;
  const o = obj as Record<string, unknown>;
  const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>;
  if (typeof fn.name !== 'string' || !fn.name) return undefined;
  const rawArgs = fn.arguments ?? fn.parameters ?? fn.input ?? {};
  const args = asArgs(rawArgs);
  if (!args)
    return {
      name: fn.name,
      arguments: {},
      invalid: `The arguments of ${fn.name} are not a JSON object. ${FORMAT_HINT}`,
    };
  return { name: fn.name, arguments: args };
}

function parseJsonCall(body: string, nameHint?: string): TextCall {
  const trimmed = body.trim();
  try {
    const value = JSON.parse(trimmed) as unknown;
    if (nameHint) {
      const args = asArgs(value);
      if (args) return { name: nameHint, arguments: args };
    } else {
      const call = fromObject(value);
      if (call) return call;
    }
  } catch {
    // reported below
  }
  const name = nameHint ?? /"name"\s*:\s*"([^"]+)"/.exec(trimmed)?.[1] ?? 'unknown';
  return {
    name,
    arguments: {},
    invalid: `Could not parse the tool call as JSON: ${trimmed.slice(0, 200)}. ${FORMAT_HINT}`,
  };
}

/** End index (exclusive) of the balanced JSON object starting at `start`, or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function scalar(value: string): unknown {
  const v = value.trim();
  try {
    return JSON.parse(v);
  } catch {
    return value.replace(/^\n/, '').replace(/\n$/, '');
  }
}

function overlaps(found: Found[], start: number, end: number): boolean {
  return found.some((f) => start < f.end && end > f.start);
}

export function parseTextToolCalls(reply: string, toolNames: readonly string[]): TextCallParse {
  const found: Found[] = [];
  const add = (start: number, end: number, call: TextCall) => {
    if (!overlaps(found, start, end)) found.push({ start, end, call });
  };

  for (const m of reply.matchAll(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g)) {
    add(m.index, m.index + m[0].length, parseJsonCall(stripFence(m[1] ?? '')));
  }
  for (const m of reply.matchAll(/<function=([\w.-]+)>([\s\S]*?)<\/function>/g)) {
    const name = m[1] ?? '';
    const body = m[2] ?? '';
    const params = [...body.matchAll(/<parameter=([\w.-]+)>([\s\S]*?)<\/parameter>/g)];
    const call: TextCall = params.length
      ? { name, arguments: Object.fromEntries(params.map((p) => [p[1] ?? '', scalar(p[2] ?? '')])) }
      : parseJsonCall(body || '{}', name);
    add(m.index, m.index + m[0].length, call);
  }
  for (const m of reply.matchAll(/```(?:json|tool_call|tool)?\s*\n([\s\S]*?)```/g)) {
    try {
      const call = fromObject(JSON.parse(m[1] ?? ''));
      if (call && toolNames.includes(call.name)) add(m.index, m.index + m[0].length, call);
    } catch {
      // an ordinary code block
    }
  }
  for (const name of toolNames) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const m of reply.matchAll(new RegExp(`<${escaped}>([\\s\\S]*?)</${escaped}>`, 'g'))) {
      const args = Object.fromEntries(
        [...(m[1] ?? '').matchAll(/<([\w-]+)>([\s\S]*?)<\/\1>/g)].map((a) => [
          a[1] ?? '',
          scalar(a[2] ?? ''),
        ]),
      );
      add(m.index, m.index + m[0].length, { name, arguments: args });
    }
  }
  // Bare objects last, and only naming a known tool, so ordinary JSON in prose stays prose.
  // Only objects that open with a "name"/"function" key are candidates: code in the reply has
  // plenty of braces, and scanning each one to its end would cost quadratic time.
  const candidate = /\{\s*"(?:name|function)"\s*:/g;
  for (let m = candidate.exec(reply); m; m = candidate.exec(reply)) {
    const i = m.index;
    if (overlaps(found, i, i + 1)) continue;
    const end = objectEnd(reply, i);
    if (end === -1) continue;
    try {
      const call = fromObject(JSON.parse(reply.slice(i, end)));
      if (call && toolNames.includes(call.name)) {
        add(i, end, call);
        candidate.lastIndex = end;
      }
    } catch {
      // not JSON
    }
  }

  found.sort((a, b) => a.start - b.start);
  let text = '';
  let at = 0;
  for (const f of found) {
    text += reply.slice(at, f.start);
    at = f.end;
  }
  text += reply.slice(at);
  return { text: text.replace(/\n{3,}/g, '\n\n').trim(), calls: found.map((f) => f.call) };
}

function stripFence(body: string): string {
  return body.replace(/^\s*```(?:json)?\s*/, '').replace(/\s*```\s*$/, '');
}
