import { z } from 'zod';
import { confinePath, toProjectRelative } from './confine-path.js';
import { defineTool } from './define-tool.js';

const MAX_DIAGNOSTICS = 200;
const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, hint: 3 } as const;

export const diagnosticsTool = defineTool({
  name: 'diagnostics',
  aliases: ['get_diagnostics', 'get_errors'],
  description: [
    'Live diagnostics (errors, warnings, hints) that the editor shows for a file, or for every open',
    'buffer when no path is given, with source (the language server or linter) and severity.',
    'Use after an edit to see whether it introduced errors.',
  ].join(' '),
  schema: z.object({
    path: z.string().optional().describe('File relative to the project root; omit for all open buffers.'),
  }),
  argAliases: { file_path: 'path' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const target = args.path ? await confinePath(ctx.root, args.path) : undefined;
    const all = await ctx.editor.diagnostics(target?.abs);
    const sorted = all
      .map((d) => ({ ...d, path: d.path.startsWith('/') ? toProjectRelative(ctx.root, d.path) : d.path }))
      .sort(
        (a, b) =>
          SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
          a.path.localeCompare(b.path) ||
          a.line - b.line,
      );
    const result: Record<string, unknown> = {
      diagnostics: sorted.slice(0, MAX_DIAGNOSTICS),
      count: sorted.length,
    };
    if (sorted.length > MAX_DIAGNOSTICS) result.truncated = true;
    return result;
  },
});
