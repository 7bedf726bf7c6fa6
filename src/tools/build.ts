import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { detectBuildCommand } from './detect-build.js';
import { requestPermission } from './permission.js';
import { runTracked } from './shell.js';
import { fail } from './tool-error.js';

const BUILD_TIMEOUT_MS = 600_000;

export const buildTool = defineTool({
  name: 'build',
  aliases: ['compile', 'run_tests'],
  description: [
    'Build the project (target "build", the default) or run its test suite (target "test") with the',
    "project's own command: from the project config, else detected (npm/pnpm/yarn scripts, cargo, go,",
    'make, cmake, gradle, maven, python). Never starts the program. Output as in shell: exit_code,',
    'stdout, stderr (capped), duration and changed files.',
  ].join(' '),
  schema: z.object({
    target: z.enum(['build', 'test']).optional().describe('"build" (default) or "test".'),
  }),
  modes: ['agent'],
  mutates: true,
  maxOutputBytes: 2 * 1024 * 1024 + 64 * 1024,
  async execute(args, ctx) {
    const target = args.target ?? 'build';
    const configured = target === 'test' ? ctx.config.test_command : ctx.config.build_command;
    const command = configured ?? (await detectBuildCommand(ctx.root, target));
    if (!command) {
      return fail(
        'not_configured',
        `No ${target} command is configured and none could be detected. Ask the user for it (it can be set as ${target}_command in .agent/config.json), or use shell.`,
      );
    }
    const denied = await requestPermission(ctx, { pattern: command, summary: command });
    if (denied) return denied;
    const result = await runTracked(ctx, command, ctx.root, BUILD_TIMEOUT_MS);
    return { command, ...result };
  },
});
