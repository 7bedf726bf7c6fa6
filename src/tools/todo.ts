import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const todoTool = defineTool({
  name: 'todo',
  aliases: ['plan', 'todo_write', 'update_plan'],
  description: [
    'Keep the task list for this chat: send the whole list every time (it replaces the previous one).',
    'Each item has content and a status: pending, in_progress or completed. Keep one item',
    'in_progress at a time and mark items completed as soon as they are done.',
  ].join(' '),
  schema: z.object({
    items: z
      .array(
        z.object({
          content: z.string().min(1).describe('What to do, one short sentence.'),
          status: z.enum(['pending', 'in_progress', 'completed']),
        }),
      )
      .describe('The complete list, in order.'),
  }),
  argAliases: { todos: 'items' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    ctx.todos.set(args.items);
    const count = (status: string) => args.items.filter((i) => i.status === status).length;
    const result: Record<string, unknown> = {
      items: ctx.todos.get(),
      pending: count('pending'),
      in_progress: count('in_progress'),
      completed: count('completed'),
    };
    if (count('in_progress') > 1)
      result.note = 'More than one item is in_progress; finish one before starting another.';
    return result;
  },
});
