import { z } from 'zod';
import { confinePath, toProjectRelative } from './confine-path.js';
import { defineTool } from './define-tool.js';
import type { LspResponse } from './editor.js';
import { fail } from './tool-error.js';

const MAX_ITEMS = 200;

export const lspTool = defineTool({
  name: 'lsp',
  aliases: ['code_intel'],
  description: [
    'Ask the language servers attached in the editor. Actions: "definition", "references" and',
    '"hover" need path, line and col (1-based, as read_file numbers lines); "document_symbols" needs',
    'path; "workspace_symbols" needs query. Fails with no_lsp when no server handles the file.',
  ].join(' '),
  schema: z.object({
    action: z.enum(['definition', 'references', 'hover', 'document_symbols', 'workspace_symbols']),
    path: z.string().optional().describe('File relative to the project root.'),
    line: z.number().int().min(1).optional().describe('1-based line.'),
    col: z.number().int().min(1).optional().describe('1-based column.'),
    query: z.string().optional().describe('Symbol name to look for (workspace_symbols).'),
  }),
  argAliases: { file_path: 'path', column: 'col', character: 'col' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const needsPosition =
      args.action === 'definition' || args.action === 'references' || args.action === 'hover';
    if (needsPosition && (!args.path || args.line === undefined || args.col === undefined)) {
      return fail('invalid_args', `${args.action} needs path, line and col.`);
    }
    if (args.action === 'document_symbols' && !args.path)
      return fail('invalid_args', 'document_symbols needs path.');
    if (args.action === 'workspace_symbols' && !args.query)
      return fail('invalid_args', 'workspace_symbols needs query.');
    const target = args.path ? await confinePath(ctx.root, args.path) : undefined;
    const response = await ctx.editor.lsp({
      action: args.action,
      path: target?.abs,
      line: args.line,
      col: args.col,
      query: args.query,
    });
    if (!response) {
      return fail('no_lsp', 'No language server is attached for this file; use search_code instead.', {
        ...(target ? { path: target.rel } : {}),
      });
    }
    return present(response, ctx.root);
  },
});

function present(response: LspResponse, root: string): Record<string, unknown> {
  const rel = (p: string) => (p.startsWith('/') ? toProjectRelative(root, p) : p);
  if ('contents' in response) return { action: 'hover', contents: response.contents };
  if ('locations' in response) {
    const locations = response.locations.map((l) => ({ ...l, path: rel(l.path) }));
    return { action: response.action, locations: locations.slice(0, MAX_ITEMS), count: locations.length };
  }
  const symbols = response.symbols.map((s) => ({ ...s, path: rel(s.path) }));
  return { action: response.action, symbols: symbols.slice(0, MAX_ITEMS), count: symbols.length };
}
