import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { ToolError } from './tool-error.js';

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
    let answer: string;
    try {
      answer = await ctx.editor.askUser(args.question, args.options);
    } catch (err) {
      // The editor rejects with this name when the user closes the question (Esc) instead of
      // answering; the run goes on and the model decides what to do without the answer.
      if (err instanceof Error && err.name === 'QuestionDismissed') {
        throw new ToolError(
          'denied',
          'The user dismissed the question without answering. Do not ask it again: go on with your best judgement and say which choice you made, or stop and explain what you need.',
        );
      }
      throw err;
    }
    return { answer, chose_option: args.options.includes(answer) };
  },
});
