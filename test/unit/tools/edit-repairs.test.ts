import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

const PY = 'class A:\n    def run(self):\n        if ok:\n            return 1\n        return 0\n';

let root: string;
beforeEach(async () => {
  root = await makeProject({ 'app.py': PY });
});
afterEach(() => removeProject(root));

const write = (rel: string, content: string | Buffer) => fs.writeFile(path.join(root, rel), content);
const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');

function edit(args: Record<string, unknown>, ctx = makeContext(root)) {
  return editFileTool.run(args, { ...ctx, mode: 'agent', tool: 'edit_file' });
}
function patch(text: string, ctx = makeContext(root)) {
  return applyPatchTool.run({ patch: text }, { ...ctx, mode: 'agent', tool: 'apply_patch' });
}

describe('edit_file repairs', () => {
  it('matches LF text in a CRLF file across trailing blanks, writing CRLF', async () => {
    await write('w.txt', 'one  \r\ntwo\r\nthree\r\n');
    const result = await edit({ path: 'w.txt', old_text: 'one\ntwo\n', new_text: 'one\nTWO\nextra\n' });
    expect(result.output).toMatchObject({ applied_with: ['crlf', 'trailing_whitespace'] });
    expect(await read('w.txt')).toBe('one  \r\nTWO\r\nextra\r\nthree\r\n');
  });

  it('matches CRLF text from a Windows client in an LF file, writing LF and saying so', async () => {
    await write('u.txt', 'one\ntwo\nthree\n');
    const result = await edit({ path: 'u.txt', old_text: 'one\r\ntwo', new_text: 'one\r\nTWO' });
    expect(result.output).toMatchObject({ applied_with: ['crlf'] });
    expect(await read('u.txt')).toBe('one\nTWO\nthree\n');
  });

  it('keeps a missing final newline that old_text and new_text both assumed', async () => {
    await write('n.txt', 'a\nfoo');
    expect((await edit({ path: 'n.txt', old_text: 'foo\n', new_text: 'bar\nbaz\n' })).ok).toBe(true);
    expect(await read('n.txt')).toBe('a\nbar\nbaz');
    // Asked for explicitly (old_text without the newline), a final newline is added.
    expect((await edit({ path: 'n.txt', old_text: 'baz', new_text: 'baz\n' })).ok).toBe(true);
    expect(await read('n.txt')).toBe('a\nbar\nbaz\n');
  });

  it('keeps a BOM the model never saw, and matches when the model copied it', async () => {
    await write('bom.txt', Buffer.from('\ufeffkey = 1\nother = 2\n'));
    expect((await edit({ path: 'bom.txt', old_text: 'key = 1', new_text: 'key = 3' })).ok).toBe(true);
    const copied = await edit({ path: 'bom.txt', old_text: '\ufeffkey = 3', new_text: '\ufeffkey = 4' });
    expect(copied.output).toMatchObject({ applied_with: ['bom'] });
    expect((await fs.readFile(path.join(root, 'bom.txt'))).toString('utf8')).toBe(
      '\ufeffkey = 4\nother = 2\n',
    );
  });

  it('forgives trailing blanks the model dropped and keeps them on unchanged lines', async () => {
    await write('t.js', 'let a = 1;   \nlet b = 2;\t\nlet c = 3;\n');
    const result = await edit({
      path: 't.js',
      old_text: 'let a = 1;\nlet b = 2;',
      new_text: 'let a = 1;\nlet b = 20;',
    });
    expect(result.output).toMatchObject({
      applied_with: ['trailing_whitespace'],
      note: 'applied with: trailing_whitespace',
    });
    expect(await read('t.js')).toBe('let a = 1;   \nlet b = 20;\nlet c = 3;\n');
  });

  it('re-indents a block the model outdented as a whole', async () => {
    const result = await edit({
      path: 'app.py',
      old_text: 'if ok:\n    return 1\nreturn 0',
      new_text: 'if ok:\n    log()\n    return 1\nreturn 0',
    });
    expect(result.output).toMatchObject({ applied_with: ['indentation'], line: 3 });
    expect(await read('app.py')).toBe(
      'class A:\n    def run(self):\n        if ok:\n            log()\n            return 1\n        return 0\n',
    );
  });

  it('re-indents a block the model indented too far', async () => {
    await write('y.yml', 'a:\n  b: 1\nc: 2\n');
    const result = await edit({
      path: 'y.yml',
      old_text: '    a:\n      b: 1\n',
      new_text: '    a:\n      b: 1\n      d: 4\n',
    });
    expect(result.output).toMatchObject({ applied_with: ['indentation'] });
    expect(await read('y.yml')).toBe('a:\n  b: 1\n  d: 4\nc: 2\n');
  });

  it('matches typographic quotes, dashes and nbsp written as ASCII, inserting the new text as written', async () => {
    await write('doc.md', 'Title \u2014 “quoted”\u00a0text\nnext line\n');
    const partial = await edit({ path: 'doc.md', old_text: '"quoted" text', new_text: '"cited" text' });
    expect(partial.output).toMatchObject({ applied_with: ['typography'] });
    expect(await read('doc.md')).toBe('Title \u2014 "cited" text\nnext line\n');
    await write('doc.md', 'it\u2019s here\nand \u2018this\u2019 stays\n');
    const lines = await edit({
      path: 'doc.md',
      old_text: "it's here\nand 'this' stays\n",
      new_text: "it's gone\nand 'this' stays\n",
    });
    expect(lines.output).toMatchObject({ applied_with: ['typography'] });
    // The line the model did not change keeps the file's own quotes.
    expect(await read('doc.md')).toBe("it's gone\nand \u2018this\u2019 stays\n");
  });

  it('reports nothing when the text matched exactly', async () => {
    const result = await edit({ path: 'app.py', old_text: 'return 0', new_text: 'return -1' });
    expect(result.ok).toBe(true);
    expect(result.output.applied_with).toBeUndefined();
  });
});

describe('apply_patch repairs', () => {
  it('recounts wrong hunk counts', async () => {
    const result = await patch(
      [
        '--- a/app.py',
        '+++ b/app.py',
        '@@ -4,9 +4,12 @@',
        '             return 1',
        '-        return 0',
        '+        return 2',
        '',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ applied_with: ['hunk_counts'] });
    expect(await read('app.py')).toBe(PY.replace('return 0', 'return 2'));
  });

  it('accepts @@ ... @@ without numbers and a blank context line that lost its space', async () => {
    await write('c.py', 'def f():\n    a = 1\n\n    return a\n');
    const result = await patch(
      [
        '--- a/c.py',
        '+++ b/c.py',
        '@@ ... @@',
        '     a = 1',
        '',
        '-    return a',
        '+    return a + 1',
        '',
      ].join('\n'),
    );
    expect(result.output.applied_with).toEqual(expect.arrayContaining(['hunk_header', 'blank_context']));
    expect(await read('c.py')).toBe('def f():\n    a = 1\n\n    return a + 1\n');
  });

  it('takes the nearest match to a wrong line number', async () => {
    await write('r.txt', 'x\nend\n1\n2\n3\n4\n5\nx\nend\n');
    const result = await patch(
      ['--- a/r.txt', '+++ b/r.txt', '@@ -6,2 +6,2 @@', ' x', '-end', '+END', ''].join('\n'),
    );
    expect(result.output.files).toMatchObject([{ hunks_moved: [{ line: 8, offset: 2 }] }]);
    expect(await read('r.txt')).toBe('x\nend\n1\n2\n3\n4\n5\nx\nEND\n');
  });

  it('forgives CRLF, trailing blanks, typography and indentation in hunks, keeping context bytes', async () => {
    await write('w.py', 'def f():\r\n    s = \u201chi\u201d  \r\n    return s\r\n');
    const ctx = makeContext(root);
    const result = await patch(
      [
        '*** Begin Patch',
        '*** Update File: w.py',
        '@@ def f():',
        ' s = "hi"',
        '-return s',
        '+return s.upper()',
        '*** End Patch',
      ].join('\n'),
      ctx,
    );
    // The user approves what will be written, re-indented, not the model's text.
    expect(ctx.editor.permissions[0]?.diff).toContain('+    return s.upper()');
    expect(result.output.applied_with).toEqual(
      expect.arrayContaining(['indentation', 'trailing_whitespace', 'typography', 'crlf']),
    );
    expect(await read('w.py')).toBe('def f():\r\n    s = \u201chi\u201d  \r\n    return s.upper()\r\n');
  });

  it('keeps the BOM and the file mode of a patched file', async () => {
    await write('m.sh', Buffer.from('\ufeff#!/bin/sh\necho a\n'));
    await fs.chmod(path.join(root, 'm.sh'), 0o755);
    const result = await patch(
      ['--- a/m.sh', '+++ b/m.sh', '@@ -2 +2 @@', '-echo a', '+echo b', ''].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect((await fs.readFile(path.join(root, 'm.sh'))).toString('utf8')).toBe('\ufeff#!/bin/sh\necho b\n');
    expect((await fs.stat(path.join(root, 'm.sh'))).mode & 0o777).toBe(0o755);
  });
});
