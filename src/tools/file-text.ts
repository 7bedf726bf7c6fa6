import { promises as fs } from 'node:fs';
import { checkText } from '../util/text-bytes.js';
import type { ConfinedPath } from './confine-path.js';
import { MAX_READ_BYTES } from './read-file.js';
import { ToolError } from './tool-error.js';

export interface FileText {
  text: string;
  bom: boolean;
}

/** Reads a file an edit will rewrite; anything that would not survive a decode/encode round trip is refused. */
export async function readEditableText(target: ConfinedPath): Promise<FileText> {
  if (!target.exists) throw new ToolError('not_found', `${target.rel} does not exist.`, { path: target.rel });
  if (target.stats?.isDirectory()) {
    throw new ToolError('is_directory', `${target.rel} is a directory.`, { path: target.rel });
  }
  if ((target.stats?.size ?? 0) > MAX_READ_BYTES) {
    throw new ToolError('too_large', `${target.rel} is larger than 16 MiB and cannot be edited here.`, {
      path: target.rel,
    });
  }
  const checked = checkText(await fs.readFile(target.real));
  if (checked.kind === 'binary') {
    throw new ToolError('binary', `${target.rel} is a binary file.`, { path: target.rel });
  }
  if (checked.kind === 'unsupported_encoding') {
    throw new ToolError(
      'unsupported_encoding',
      `${target.rel} is ${checked.encoding} text; only UTF-8 can be edited.`,
      {
        path: target.rel,
      },
    );
  }
  return { text: checked.text, bom: checked.bom };
}

/** Lines with their own terminators, so untouched lines are written back byte for byte. */
export interface Line {
  text: string;
  eol: '' | '\n' | '\r\n';
}

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    const crlf = nl > start && text[nl - 1] === '\r';
    lines.push({ text: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

export function joinLines(lines: readonly Line[]): string {
  let out = '';
  for (const line of lines) out += line.text + line.eol;
  return out;
}

/** The terminator new lines should get: the one most lines of the file already use. */
export function dominantEol(lines: readonly Line[]): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (const line of lines) {
    if (line.eol === '\r\n') crlf++;
    else if (line.eol === '\n') lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}
