import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const askUserTool = defineTool({
  name: 'ask_user',
  aliases: ['ask', 'question', 'ask_followup_question'],
  description: [
    'Ask the user a question when a decision is theirs (a design choice, a missing requirement) and',
    'wait for the answer. Give 2 to 5 short options; the user may also answer in their own words.',
    'Do not ask for things you can find out with the other tools.',
  ].join(' '),
  schema: z.object({
    question: z.string().min(1).describe('One clear question.'),
    options: z.array(z.string().min(1)).min(2).max(5).describe('2 to 5 suggested answers.'),
  }),
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const answer = await ctx.editor.askUser(args.question, args.options);
    return { answer, chose_option: args.options.includes(answer) };
  },
});
