import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { checkText } from '../util/text-bytes.js';
import { confinePath } from './confine-path.js';
import { defineTool } from './define-tool.js';
import { requestPermission } from './permission.js';
import { fail } from './tool-error.js';

export const MAX_READ_BYTES = 16 * 1024 * 1024;
const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 200 * 1024;

export const readFileTool = defineTool({
  name: 'read_file',
  aliases: ['read', 'view', 'cat'],
  description: [
    'Read a text file of the project. Lines come back numbered ("   12\\tcode"); the numbers are not',
    'part of the file. Use offset/limit to page through long files (default: the first 2000 lines).',
    'If the file is open in the editor with unsaved changes, you get the editor text and are told so.',
    'Binary files, files that are not UTF-8 and files over 16 MiB are refused.',
  ].join(' '),
  schema: z.object({
    path: z.string().describe('Path relative to the project root.'),
    offset: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
    limit: z.number().int().min(1).optional().describe('Number of lines to return (default 2000).'),
  }),
  argAliases: { file_path: 'path', filename: 'path', start_line: 'offset' },
  modes: ['ask', 'plan', 'agent'],
  mutates: false,
  async execute(args, ctx) {
    const target = await confinePath(ctx.root, args.path);
    if (target.stats?.isDirectory()) {
      return fail('is_directory', `${target.rel} is a directory; use list_files to see what it holds.`, {
        path: target.rel,
      });
    }
    // Reads are allowed by default, but rules may ask or deny (secrets in `.env*` ask).
    const denied = await requestPermission(ctx, {
      pattern: target.rel,
      summary: `Read ${target.rel}`,
      paths: [target.rel],
    });
    if (denied) return denied;
    let text: string;
    let fromBuffer = false;
    const buffer = await ctx.editor.bufferText(target.abs);
    if (buffer !== undefined) {
      text = buffer;
      fromBuffer = true;
    } else {
      if ((target.stats?.size ?? 0) > MAX_READ_BYTES) {
        return fail('too_large', `${target.rel} is larger than 16 MiB; search it with search_code instead.`, {
          path: target.rel,
        });
      }
      const checked = checkText(await fs.readFile(target.real));
      if (checked.kind === 'binary') {
        return fail('binary', `${target.rel} is a binary file and cannot be shown as text.`, {
          path: target.rel,
        });
      }
      if (checked.kind === 'unsupported_encoding') {
        return fail(
          'unsupported_encoding',
          `${target.rel} is ${checked.encoding} text; only UTF-8 is supported.`,
          {
            path: target.rel,
          },
        );
      }
      text = checked.text;
    }
    ctx.reads.saw(target.rel, text);
    return numberLines(text, target.rel, args.offset ?? 1, args.limit ?? DEFAULT_LIMIT, fromBuffer);
  },
});

function numberLines(text: string, rel: string, offset: number, limit: number, fromBuffer: boolean) {
  const lines = text.split('\n');
  // A final newline ends the last line rather than starting an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = text === '' ? 0 : lines.length;
  if (offset > Math.max(total, 1)) {
    return fail('invalid_args', `offset ${offset} is past the end of ${rel} (${total} lines).`, {
      path: rel,
    });
  }
  const width = String(Math.min(total, offset + limit - 1)).length;
  const out: string[] = [];
  let chars = 0;
  let end = offset - 1;
  for (let i = offset - 1; i < total && i < offset - 1 + limit; i++) {
    let line = (lines[i] as string).replace(/\r$/, '');
    if (line.length > MAX_LINE_CHARS)
      line = `${line.slice(0, MAX_LINE_CHARS)} [... line cut at ${MAX_LINE_CHARS} chars]`;
    const numbered = `${String(i + 1).padStart(width)}\t${line}`;
    if (chars + numbered.length > MAX_OUTPUT_CHARS && out.length > 0) break;
    out.push(numbered);
    chars += numbered.length + 1;
    end = i + 1;
  }
  const result: Record<string, unknown> = {
    path: rel,
    content: out.join('\n'),
    start_line: total === 0 ? 0 : offset,
    end_line: end,
    total_lines: total,
  };
  if (end < total) {
    result.truncated = true;
    result.next_offset = end + 1;
  }
  if (fromBuffer) {
    result.from_editor_buffer = true;
    result.note = 'This is the unsaved text of the buffer open in the editor; the file on disk differs.';
  }
  return result;
}
