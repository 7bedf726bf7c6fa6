import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import { makeContext, makeProject, removeProject } from './project.js';

let root: string;
beforeEach(async () => {
  root = await makeProject({
    'a.txt': 'one\ntwo\nthree\nfour\nfive\n',
    'b.txt': 'alpha\nbeta\ngamma\n',
    'old.txt': 'bye\n',
  });
});
afterEach(() => removeProject(root));

const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');

function run(patch: string, ctx = makeContext(root)) {
  return applyPatchTool.run({ patch }, { ...ctx, mode: 'agent', tool: 'apply_patch' });
}

describe('apply_patch', () => {
  it('updates, creates and deletes several files in one call', async () => {
    const ctx = makeContext(root);
    const result = await run(
      [
        'diff --git a/a.txt b/a.txt',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '--- /dev/null',
        '+++ b/new/file.txt',
        '@@ -0,0 +1,2 @@',
        '+hello',
        '+world',
        '--- a/old.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-bye',
        '',
      ].join('\n'),
      ctx,
    );
    expect(result.ok).toBe(true);
    expect(result.changed_paths).toEqual(['a.txt', 'new/file.txt', 'old.txt']);
    expect(await read('a.txt')).toBe('one\nTWO\nthree\nfour\nfive\n');
    expect(await read('new/file.txt')).toBe('hello\nworld\n');
    await expect(fs.access(path.join(root, 'old.txt'))).rejects.toThrow();
    expect(ctx.editor.changed).toHaveLength(3);
    expect(ctx.editor.permissions).toHaveLength(1);
  });

  it('writes nothing when any hunk of any file does not match', async () => {
    const result = await run(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,2 +1,2 @@',
        ' one',
        '-two',
        '+2',
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -2,1 +2,1 @@',
        '-BETA',
        '+delta',
        '',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'no_match', path: 'b.txt', line: 2 });
    expect(await read('a.txt')).toBe('one\ntwo\nthree\nfour\nfive\n');
    expect(await read('b.txt')).toBe('alpha\nbeta\ngamma\n');
  });

  it('finds a hunk whose header line is off, and says how far', async () => {
    const result = await run(
      ['--- a/a.txt', '+++ b/a.txt', '@@ -1,2 +1,2 @@', ' four', '-five', '+5', ''].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('a.txt')).toBe('one\ntwo\nthree\nfour\n5\n');
    expect(result.output.files).toEqual([
      {
        path: 'a.txt',
        action: 'updated',
        hunks: 1,
        hunks_moved: [{ line: 4, offset: 3 }],
        applied_with: ['line_numbers'],
      },
    ]);
    expect(result.output.note).toBe('applied with: line_numbers');
  });

  it('keeps CRLF endings, the BOM and a missing final newline', async () => {
    const file = path.join(root, 'win.txt');
    await fs.writeFile(file, Buffer.from('\ufeffa\r\nb\r\nc', 'utf8'));
    const result = await run(
      [
        '--- a/win.txt',
        '+++ b/win.txt',
        '@@ -1,3 +1,4 @@',
        ' a',
        '-b',
        '+B',
        '+b2',
        ' c',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect((await fs.readFile(file)).toString('utf8')).toBe('\ufeffa\r\nB\r\nb2\r\nc');
  });

  it('adds and removes the final newline when the markers say so', async () => {
    await run(
      [
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -3 +3 @@',
        '-gamma',
        '+gamma',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    expect(await read('b.txt')).toBe('alpha\nbeta\ngamma');
    await run(
      [
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -3 +3,2 @@',
        '-gamma',
        '\\ No newline at end of file',
        '+gamma',
        '+delta',
        '',
      ].join('\n'),
    );
    expect(await read('b.txt')).toBe('alpha\nbeta\ngamma\ndelta\n');
  });

  it('reports error kinds for parse errors, renames, quoted paths, existing and missing files', async () => {
    const kind = async (patch: string) => (await run(patch)).output.error_kind;
    expect(await kind('just some text')).toBe('parse');
    expect(await kind('--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\nstray text\n')).toBe('parse');
    expect(await kind('--- a/a.txt\n+++ b/z.txt\n@@ -1 +1 @@\n-one\n+1\n')).toBe('parse');
    expect(await kind('--- "a/a b.txt"\n+++ "b/a b.txt"\n@@ -1 +1 @@\n-x\n+y\n')).toBe('parse');
    expect(await kind('--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n')).toBe('exists');
    expect(await kind('--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n')).toBe('missing_file');
    expect(await kind('--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-x\n+y\n')).toBe('outside_project');
    expect(await read('a.txt')).toBe('one\ntwo\nthree\nfour\nfive\n');
  });

  it('applies two sections for the same file in order', async () => {
    const result = await run(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1 +1 @@',
        '-one',
        '+ONE',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -5 +5 @@',
        '-five',
        '+FIVE',
        '',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('a.txt')).toBe('ONE\ntwo\nthree\nfour\nFIVE\n');
  });

  it('says which files were already changed when a write fails mid-way', async () => {
    await fs.writeFile(path.join(root, 'blocker'), 'a file where a folder is needed');
    const result = await run(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1 +1 @@',
        '-one',
        '+ONE',
        '--- /dev/null',
        '+++ b/blocker/x.txt',
        '@@ -0,0 +1 @@',
        '+x',
        '',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({
      error_kind: 'io',
      path: 'blocker/x.txt',
      changed_paths: ['a.txt'],
    });
    expect(String(result.output.error)).toContain('already changed: a.txt');
  });

  it('refuses a moved hunk that fits equally well above and below', async () => {
    await fs.writeFile(path.join(root, 'rep.txt'), 'x\nend\nmid\nmid\nx\nend\n');
    const result = await run(
      ['--- a/rep.txt', '+++ b/rep.txt', '@@ -3,2 +3,2 @@', ' x', '-end', '+END', ''].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'ambiguous', lines: [1, 5] });
  });
});
