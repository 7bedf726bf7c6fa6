import type { ToolListing } from '../tools/registry.js';
import type { Mode } from '../tools/tool-context.js';

export interface SystemPromptInput {
  mode: Mode;
  root: string;
  date: string;
  tools: ToolListing[];
  instructions: string;
}

const MODE_RULES: Record<Mode, string> = {
  ask: [
    'You are in Ask mode: answer questions and explain code. You cannot change files or run',
    'commands; read and search the project to ground your answers. If the user asks for changes,',
    'explain them and suggest switching to Agent mode.',
  ].join(' '),
  plan: [
    'You are in Plan mode: research the code, then write an implementation plan; do not change',
    'code. If something the code cannot answer blocks the plan, ask the user at most one question',
    '(ask_user) before proposing. Save the plan with create_plan_file, or return it between',
    '<proposed_plan> and </proposed_plan>. A plan says what changes where and why, how to check',
    'it, and ends with a "## Tasks" section of "- [ ] task" lines.',
  ].join(' '),
  agent: [
    'You are in Agent mode: make the change the user asked for, end to end. Read before you edit;',
    'prefer edit_file or apply_patch for small changes to existing files. Keep a todo list for work',
    'with several steps. After changing code, build or run the relevant tests and fix what fails.',
    'The user approves edits and commands; a denied call is final unless the user says otherwise.',
    'Finish with a short summary of what changed and what you checked.',
  ].join(' '),
};

/** The system prompt: who the agent is, the mode, the tools with their schemas, the project. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const tools = input.tools
    .map((t) => `- ${t.name}: ${t.description}\n  arguments: ${JSON.stringify(t.parameters)}`)
    .join('\n');
  const sections = [
    'You are agent.nvim, a coding agent running inside the Neovim editor.',
    `Mode: ${input.mode}. ${MODE_RULES[input.mode]}`,
    `Project root: ${input.root}. All paths are relative to it. Date: ${input.date}.`,
    'Answer in Markdown, concisely. Refer to code as path:line.',
    `Tools available in this mode:\n${tools || '(none)'}`,
  ];
  if (input.instructions) sections.push(`Project instructions (from AGENTS.md):\n${input.instructions}`);
  return sections.join('\n\n');
}

/** Added to the request when few steps remain, so the model wraps up instead of being cut off. */
export function budgetNote(stepsLeft: number): string | undefined {
  if (stepsLeft <= 3) {
    return `Note: only ${stepsLeft} step${stepsLeft === 1 ? '' : 's'} remain in this run. Finish now: summarise what is done and what is left.`;
  }
  if (stepsLeft <= 10) return `Note: ${stepsLeft} steps remain in this run. Start wrapping up.`;
  return undefined;
}
