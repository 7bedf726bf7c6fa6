import type { History } from '../history/types.js';
import type { TodoItem } from '../tools/tool-context.js';

const PROPOSED = /<proposed_plan>\s*([\s\S]*?)\s*<\/proposed_plan>/i;

/** The plan file a run saved with create_plan_file, newest first, from the messages it added. */
export function savedPlanPath(history: History, fromIndex: number): string | undefined {
  let found: string | undefined;
  for (const message of history.messages.slice(fromIndex)) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls) {
      if (call.name !== 'create_plan_file' || call.state !== 'done' || !call.result) continue;
      try {
        const output = JSON.parse(call.result.output) as { path?: unknown };
        if (typeof output.path === 'string') found = output.path;
      } catch {
        // A result that is not JSON is not a saved plan.
      }
    }
  }
  return found;
}

/** A plan the model returned inline between <proposed_plan> tags, with a name for its file. */
export function proposedPlan(text: string): { name: string; content: string } | undefined {
  const match = PROPOSED.exec(text);
  const content = match?.[1]?.trim();
  if (!content) return undefined;
  const heading = /^#\s+(.+)$/m.exec(content)?.[1] ?? 'plan';
  const name =
    heading
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'plan';
  return { name, content };
}

/** The `## Tasks` checklist of a plan as todo items (checked boxes start completed). */
export function tasksFromPlan(plan: string): TodoItem[] {
  const lines = plan.split(/\r?\n/);
  const start = lines.findIndex((l) => /^#{2,3}\s+tasks\b/i.test(l.trim()));
  if (start < 0) return [];
  const items: TodoItem[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,3}\s/.test(line.trim())) break;
    const m = /^\s*[-*]\s+\[([ xX])\]\s+(.+)$/.exec(line);
    if (m?.[2]) items.push({ content: m[2].trim(), status: m[1] === ' ' ? 'pending' : 'completed' });
  }
  return items;
}
