import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../../../src/tools/read-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

let root: string;
beforeEach(async () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
  root = await makeProject({ 'a.txt': `${lines}\n`, 'crlf.txt': 'x\r\ny\r\n', 'empty.txt': '' });
});
afterEach(() => removeProject(root));

function run(args: Record<string, unknown>, ctx = makeContext(root)) {
  return readFileTool.run(args, { ...ctx, mode: 'ask', tool: 'read_file' });
}

describe('read_file', () => {
  it('numbers lines and pages with offset and limit', async () => {
    const result = await run({ path: 'a.txt', offset: 9, limit: 3 });
    expect(result.output).toMatchObject({
      content: ' 9\tline 9\n10\tline 10\n11\tline 11',
      start_line: 9,
      end_line: 11,
      total_lines: 30,
      truncated: true,
      next_offset: 12,
    });
    expect((await run({ path: 'crlf.txt' })).output.content).toBe('1\tx\n2\ty');
    expect((await run({ path: 'empty.txt' })).output).toMatchObject({ content: '', total_lines: 0 });
  });

  it('reads the unsaved buffer text when there is one, and says so', async () => {
    const ctx = makeContext(root);
    ctx.editor.buffers.set(path.join(root, 'a.txt'), 'from buffer\n');
    const result = await run({ path: 'a.txt' }, ctx);
    expect(result.output).toMatchObject({ content: '1\tfrom buffer', from_editor_buffer: true });
  });

  it('refuses binary, UTF-16, oversized files and directories', async () => {
    await fs.writeFile(path.join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
    await fs.writeFile(path.join(root, 'u16.txt'), Buffer.from([0xff, 0xfe, 0x61, 0]));
    await fs.writeFile(path.join(root, 'latin1.txt'), Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'));
    const big = await fs.open(path.join(root, 'big.log'), 'w');
    await big.truncate(17 * 1024 * 1024);
    await big.close();
    expect((await run({ path: 'img.png' })).output.error_kind).toBe('binary');
    expect((await run({ path: 'u16.txt' })).output.error_kind).toBe('unsupported_encoding');
    expect((await run({ path: 'latin1.txt' })).output.error_kind).toBe('unsupported_encoding');
    expect((await run({ path: 'big.log' })).output.error_kind).toBe('too_large');
    expect((await run({ path: '.' })).output.error_kind).toBe('is_directory');
    expect((await run({ path: 'missing.txt' })).output.error_kind).toBe('not_found');
  });
});
