import { ToolError } from '../tool-error.js';
import { looksLikeOpenAiPatch, parseOpenAiPatch } from './openai-patch.js';
import type { ParsedPatch } from './patch-model.js';
import { parseUnified } from './unified-diff.js';

/** Reads either patch format, told apart by its text; both parse into the same model. */
export function parsePatchText(text: string): ParsedPatch {
  const split = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  // The newline that ends the last line does not start another (blank context) line.
  if (split.length > 1 && split[split.length - 1] === '') split.pop();
  const lines = unfence(split);
  const format = looksLikeOpenAiPatch(lines) ? 'openai' : 'unified';
  const files = format === 'openai' ? parseOpenAiPatch(lines) : parseUnified(lines);
  if (files.length === 0) {
    throw new ToolError(
      'parse',
      'No file sections found: use a unified diff ("--- a/path", "+++ b/path", "@@" hunks) or "*** Begin Patch" with "*** Update File: path".',
    );
  }
  return { format, files };
}

/** Models often wrap the patch in a Markdown code fence; the fence is not part of any hunk. */
function unfence(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === '') start++;
  while (end > start && (lines[end - 1] as string).trim() === '') end--;
  if (
    end - start >= 2 &&
    /^(`{3,}|~{3,})[\w-]*\s*$/.test(lines[start] as string) &&
    /^(`{3,}|~{3,})\s*$/.test(lines[end - 1] as string)
  ) {
    return lines.slice(start + 1, end - 1);
  }
  return lines;
}
