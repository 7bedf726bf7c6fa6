import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

let root: string;
beforeEach(async () => {
  root = await makeProject({ 'a.ts': 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n' });
});
afterEach(() => removeProject(root));

function run(args: Record<string, unknown>, ctx = makeContext(root)) {
  return editFileTool.run(args, { ...ctx, mode: 'agent', tool: 'edit_file' });
}

describe('edit_file', () => {
  it('replaces a unique match and reports the change', async () => {
    const ctx = makeContext(root);
    const result = await run({ path: 'a.ts', old_text: 'const b = 2;', new_text: 'const b = 3;' }, ctx);
    expect(result.ok).toBe(true);
    expect(result.changed_paths).toEqual(['a.ts']);
    expect(await fs.readFile(path.join(root, 'a.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 3;\nconst a2 = 1;\n',
    );
    expect(ctx.editor.changed).toEqual([path.join(root, 'a.ts')]);
    expect(ctx.editor.permissions[0]?.diff).toContain('+const b = 3;');
  });

  it('refuses an ambiguous match with the candidate lines, unless replace_all', async () => {
    const result = await run({ path: 'a.ts', old_text: '= 1;', new_text: '= 9;' });
    expect(result.output).toMatchObject({ error_kind: 'ambiguous', lines: [1, 3], path: 'a.ts' });
    const all = await run({ path: 'a.ts', old_text: '= 1;', new_text: '= 9;', replace_all: true });
    expect(all.output).toMatchObject({ replacements: 2 });
    expect(await fs.readFile(path.join(root, 'a.ts'), 'utf8')).toBe(
      'const a = 9;\nconst b = 2;\nconst a2 = 9;\n',
    );
  });

  it('takes Gemini-style expected_replacements: all of them when the count matches, none otherwise', async () => {
    const wrong = await run({
      path: 'a.ts',
      old_string: '= 1;',
      new_string: '= 9;',
      expected_replacements: 3,
    });
    expect(wrong.output).toMatchObject({ error_kind: 'ambiguous', lines: [1, 3] });
    expect(wrong.content).toContain('not the 3 expected');
    const right = await run({
      path: 'a.ts',
      old_string: '= 1;',
      new_string: '= 9;',
      expected_replacements: 2,
    });
    expect(right.output).toMatchObject({ replacements: 2 });
    expect(await fs.readFile(path.join(root, 'a.ts'), 'utf8')).toBe(
      'const a = 9;\nconst b = 2;\nconst a2 = 9;\n',
    );
  });

  it("answers a text editor's insert or view command with what to do instead", async () => {
    const insert = await run({ command: 'insert', path: 'a.ts', insert_line: 1, new_str: 'x' });
    expect(insert.output.error_kind).toBe('invalid_args');
    expect(insert.content).toContain('does not insert at line numbers');
    const view = await run({ command: 'view', path: 'a.ts' });
    expect(view.content).toContain('use read_file');
  });

  it('shows the closest lines when nothing matches and leaves the file alone', async () => {
    const result = await run({ path: 'a.ts', old_text: 'const b = 5;\nconst a2 = 1;', new_text: 'x' });
    expect(result.output).toMatchObject({ error_kind: 'no_match', line: 2 });
    expect(result.output.closest).toContain('3\tconst a2 = 1;');
    expect(await fs.readFile(path.join(root, 'a.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 2;\nconst a2 = 1;\n',
    );
  });

  it('keeps the BOM, CRLF line endings, other bytes and the file mode', async () => {
    const file = path.join(root, 'win.txt');
    const original = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('one\r\ntwo\r\nthree\r\nlast'),
    ]);
    await fs.writeFile(file, original);
    await fs.chmod(file, 0o751);
    const result = await run({ path: 'win.txt', old_text: 'one\ntwo\n', new_text: 'one\n2\n2b\n' });
    expect(result.output).toMatchObject({ applied_with: ['crlf'], note: 'applied with: crlf' });
    const after = await fs.readFile(file);
    expect(after.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(after.subarray(3).toString()).toBe('one\r\n2\r\n2b\r\nthree\r\nlast');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o751);
  });

  it('refuses when the buffer has unsaved changes, and when permission is denied', async () => {
    const ctx = makeContext(root);
    ctx.editor.buffers.set(path.join(root, 'a.ts'), 'edited');
    expect((await run({ path: 'a.ts', old_text: 'a', new_text: 'b' }, ctx)).output.error_kind).toBe(
      'unsaved_buffer',
    );
    const denied = makeContext(root);
    denied.editor.decision = { deny: 'not now' };
    const result = await run({ path: 'a.ts', old_text: 'const b = 2;', new_text: 'x' }, denied);
    expect(result.output).toMatchObject({ error_kind: 'denied' });
    expect(String(result.output.error)).toContain('not now');
  });

  it('rejects binary files and paths outside the project', async () => {
    await fs.writeFile(path.join(root, 'bin'), Buffer.from([1, 0, 2]));
    expect((await run({ path: 'bin', old_text: 'a', new_text: 'b' })).output.error_kind).toBe('binary');
    expect((await run({ path: '../a.ts', old_text: 'a', new_text: 'b' })).output.error_kind).toBe(
      'outside_project',
    );
  });

  it('accepts the argument names other agents use', async () => {
    const result = await run({ file_path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 4;' });
    expect(result.ok).toBe(true);
  });
});
