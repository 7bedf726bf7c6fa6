/**
 * A session as Markdown for `:Agent export`: the conversation a reader can follow, with tool
 * calls folded to their name, arguments and (capped) result. Replay state never appears.
 */
import type { Message, ToolCall } from '../history/types.js';
import type { SessionData } from './types.js';

const MAX_RESULT_CHARS = 4000;

function fence(text: string, lang = ''): string {
  // A fence longer than any backtick run inside, so results containing fences stay intact.
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function renderCall(call: ToolCall): string {
  const lines = [`**Tool \`${call.name}\`** (${call.state})`, '', fence(call.rawArguments || '{}', 'json')];
  if (call.result) {
    const out = call.result.output;
    const shown =
      out.length > MAX_RESULT_CHARS
        ? `${out.slice(0, MAX_RESULT_CHARS)}\n… (${out.length - MAX_RESULT_CHARS} more characters)`
        : out;
    lines.push('', call.result.isError ? 'Error:' : 'Result:', '', fence(shown));
  }
  return lines.join('\n');
}

function renderMessage(m: Message): string {
  switch (m.role) {
    case 'user':
      return `## User\n\n${m.text}`;
    case 'summary':
      return `## Summary of earlier conversation\n\n${m.text}`;
    case 'assistant': {
      const parts = [`## Assistant (${m.model})`];
      if (m.reasoning) parts.push(`<details><summary>Reasoning</summary>\n\n${m.reasoning}\n\n</details>`);
      if (m.text) parts.push(m.text);
      for (const call of m.toolCalls) parts.push(renderCall(call));
      return parts.join('\n\n');
    }
  }
}

export function sessionToMarkdown(data: SessionData): string {
  const { meta } = data;
  const head = [
    `# ${meta.title}`,
    '',
    `- Project: \`${meta.root}\``,
    `- Created: ${new Date(meta.createdAt).toISOString()}`,
    `- Updated: ${new Date(meta.updatedAt).toISOString()}`,
    `- Mode: ${meta.mode}, model: ${meta.model}`,
    `- Tokens: ${meta.usage.input} in, ${meta.usage.output} out${meta.cost === undefined ? '' : `, cost $${meta.cost.toFixed(4)}`}`,
  ];
  if (meta.planPath) head.push(`- Plan: \`${meta.planPath}\``);
  if (meta.todos.length) {
    head.push('', '### Todos', '');
    for (const t of meta.todos)
      head.push(
        `- [${t.status === 'completed' ? 'x' : ' '}] ${t.content}${t.status === 'in_progress' ? ' (in progress)' : ''}`,
      );
  }
  return `${[head.join('\n'), ...data.messages.map(renderMessage)].join('\n\n')}\n`;
}
