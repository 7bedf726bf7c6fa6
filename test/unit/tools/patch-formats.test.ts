import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import { parsePatchText } from '../../../src/tools/patch-formats/parse-patch.js';
import { makeContext, makeProject, removeProject } from './project.js';

const PY =
  'class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n';

let root: string;
beforeEach(async () => {
  root = await makeProject({
    'a.txt': 'one\ntwo\nthree\nfour\nfive\n',
    'b.txt': 'alpha\nbeta\ngamma\n',
    'old.txt': 'bye\n',
    'app.py': PY,
  });
});
afterEach(() => removeProject(root));

const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');
const untouched = async () => {
  expect(await read('a.txt')).toBe('one\ntwo\nthree\nfour\nfive\n');
  expect(await read('b.txt')).toBe('alpha\nbeta\ngamma\n');
  expect(await read('old.txt')).toBe('bye\n');
  expect(await read('app.py')).toBe(PY);
};

function run(patch: string, ctx = makeContext(root)) {
  return applyPatchTool.run({ patch }, { ...ctx, mode: 'agent', tool: 'apply_patch' });
}

describe('apply_patch: OpenAI patch format', () => {
  it('updates, adds and deletes files in one call', async () => {
    const ctx = makeContext(root);
    const result = await run(
      [
        '*** Begin Patch',
        '*** Update File: a.txt',
        '@@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '*** Add File: new/notes.md',
        '+# Notes',
        '+',
        '+body',
        '*** Delete File: old.txt',
        '*** End Patch',
      ].join('\n'),
      ctx,
    );
    expect(result.ok).toBe(true);
    expect(result.output.format).toBe('openai');
    expect(result.changed_paths).toEqual(['a.txt', 'new/notes.md', 'old.txt']);
    expect(await read('a.txt')).toBe('one\nTWO\nthree\nfour\nfive\n');
    expect(await read('new/notes.md')).toBe('# Notes\n\nbody\n');
    await expect(fs.access(path.join(root, 'old.txt'))).rejects.toThrow();
    expect(ctx.editor.changed).toHaveLength(3);
    expect(ctx.editor.permissions).toHaveLength(1);
  });

  it('uses @@ anchors to pick the place, stacked anchors included', async () => {
    const result = await run(
      [
        '*** Begin Patch',
        '*** Update File: app.py',
        '@@ class B:',
        '     def run(self):',
        '-        return 1',
        '+        return 2',
        '*** End Patch',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('app.py')).toBe(PY.replace(/return 1\n$/, 'return 2\n'));
    const stacked = await run(
      [
        '*** Begin Patch',
        '*** Update File: app.py',
        '@@ class A:',
        '@@     def run(self):',
        '-        return 1',
        '+        return 0',
        '*** End Patch',
      ].join('\n'),
    );
    expect(stacked.ok).toBe(true);
    expect(await read('app.py')).toBe(
      'class A:\n    def run(self):\n        return 0\n\nclass B:\n    def run(self):\n        return 2\n',
    );
  });

  it('refuses a hunk without anchor that fits two places, listing both', async () => {
    const result = await run(
      [
        '*** Begin Patch',
        '*** Update File: app.py',
        '@@',
        '-        return 1',
        '+        return 3',
        '*** End Patch',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'ambiguous', path: 'app.py', lines: [3, 7] });
    await untouched();
  });

  it('reads unified "@@ -l,n +l,n @@" and "@@ @@" headers as line numbers and nothing, not anchors', async () => {
    const hunk = (header: string) =>
      run(
        ['*** Begin Patch', '*** Update File: app.py', header, '-        return 1', '+        return 5'].join(
          '\n',
        ),
      );
    // Without numbers the hunk must still fit one place only.
    expect((await hunk('@@ @@')).output).toMatchObject({ error_kind: 'ambiguous', lines: [3, 7] });
    await untouched();
    // The numbers pick the nearer of the two places, as in a unified diff.
    const numbered = await hunk('@@ -7,1 +7,1 @@ class B:');
    expect(numbered.output).toMatchObject({ applied_with: ['hunk_header'] });
    expect(await read('app.py')).toBe(PY.replace(/return 1\n$/, 'return 5\n'));
    const bare = await run(
      [
        '*** Begin Patch',
        '*** Update File: a.txt',
        '@@ @@',
        ' two',
        '-three',
        '+THREE',
        '*** End Patch',
      ].join('\n'),
    );
    expect(bare.ok).toBe(true);
    expect(await read('a.txt')).toBe('one\ntwo\nTHREE\nfour\nfive\n');
  });

  it('pins a hunk to the end of the file with *** End of File, and appends pure additions', async () => {
    await fs.writeFile(path.join(root, 'rep.txt'), 'x\ny\nx\n');
    const result = await run(
      [
        '*** Begin Patch',
        '*** Update File: rep.txt',
        '@@',
        '-x',
        '+X',
        '*** End of File',
        '*** End Patch',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('rep.txt')).toBe('x\ny\nX\n');
    const appended = await run(
      ['*** Begin Patch', '*** Update File: b.txt', '+delta', '*** End Patch'].join('\n'),
    );
    expect(appended.ok).toBe(true);
    expect(await read('b.txt')).toBe('alpha\nbeta\ngamma\ndelta\n');
  });

  it('is all-or-nothing across files', async () => {
    const result = await run(
      [
        '*** Begin Patch',
        '*** Update File: a.txt',
        '-one',
        '+ONE',
        '*** Add File: c.txt',
        '+new',
        '*** Update File: b.txt',
        '-BETA',
        '+delta',
        '*** End Patch',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'no_match', path: 'b.txt' });
    await untouched();
    await expect(fs.access(path.join(root, 'c.txt'))).rejects.toThrow();
  });

  it('keeps error kinds: missing file, add over an existing file, delete of a missing one, moves, stray lines', async () => {
    const kind = async (body: string[]) =>
      (await run(['*** Begin Patch', ...body, '*** End Patch'].join('\n'))).output;
    expect(await kind(['*** Update File: nope.txt', '-x', '+y'])).toMatchObject({
      error_kind: 'missing_file',
      path: 'nope.txt',
      line: 2,
    });
    expect(await kind(['*** Add File: a.txt', '+x'])).toMatchObject({ error_kind: 'exists', path: 'a.txt' });
    expect(await kind(['*** Delete File: nope.txt'])).toMatchObject({ error_kind: 'missing_file' });
    expect(await kind(['*** Update File: a.txt', '*** Move to: z.txt', '-one', '+1'])).toMatchObject({
      error_kind: 'parse',
      line: 3,
    });
    expect(await kind(['*** Update File: a.txt', '-one', 'stray'])).toMatchObject({
      error_kind: 'parse',
      line: 4,
    });
    expect(await kind(['*** Add File: c.txt', 'no plus'])).toMatchObject({ error_kind: 'parse' });
    expect(await kind(['*** Update File: ../x.txt', '-x', '+y'])).toMatchObject({
      error_kind: 'outside_project',
    });
    await untouched();
  });

  it('works without the Begin/End lines and inside a Markdown fence', async () => {
    const result = await run(
      ['```diff', '*** Update File: b.txt', ' alpha', '-beta', '+BETA', '```', ''].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('b.txt')).toBe('alpha\nBETA\ngamma\n');
  });
});

describe('apply_patch: unified diffs', () => {
  it('accepts paths without a/ b/ prefixes, with diff -u timestamps', async () => {
    const result = await run(
      [
        '--- b.txt\t2024-01-01 10:00:00.000000000 +0000',
        '+++ b.txt\t2024-01-01 10:05:00.000000000 +0000',
        '@@ -1,3 +1,3 @@',
        ' alpha',
        '-beta',
        '+BETA',
        ' gamma',
        '',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(result.output.format).toBe('unified');
    expect(await read('b.txt')).toBe('alpha\nBETA\ngamma\n');
  });

  it('accepts git diffs with index lines, and creates an empty file from a bare git header', async () => {
    const result = await run(
      [
        'diff --git a/b.txt b/b.txt',
        'index 1234567..89abcde 100644',
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -3 +3 @@',
        '-gamma',
        '+GAMMA',
        'diff --git a/empty.txt b/empty.txt',
        'new file mode 100644',
        'index 0000000..e69de29',
        '',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('b.txt')).toBe('alpha\nbeta\nGAMMA\n');
    expect(await read('empty.txt')).toBe('');
  });

  it('is all-or-nothing across files, a delete and a create included', async () => {
    const result = await run(
      [
        '--- a/old.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-bye',
        '--- /dev/null',
        '+++ b/c.txt',
        '@@ -0,0 +1 @@',
        '+c',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -2 +2 @@',
        '-TWO',
        '+2',
        '',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'no_match', path: 'a.txt', line: 2 });
    await untouched();
    await expect(fs.access(path.join(root, 'c.txt'))).rejects.toThrow();
  });

  it('reads a removed "-- comment" line as a hunk line, not a file header', async () => {
    await fs.writeFile(path.join(root, 'q.sql'), 'select 1;\n-- old note\n+++ plus line\n');
    const result = await run(
      [
        '--- a/q.sql',
        '+++ b/q.sql',
        '@@ -1,3 +1,2 @@',
        ' select 1;',
        '--- old note',
        '++++ plus line',
        '-+++ plus line',
        '',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await read('q.sql')).toBe('select 1;\n+++ plus line\n');
  });

  it('parses both formats into the same model', () => {
    const unified = parsePatchText('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n');
    const openai = parsePatchText('*** Begin Patch\n*** Update File: x\n@@\n-a\n+b\n*** End Patch\n');
    expect(unified.files[0]?.hunks[0]?.ops).toEqual(openai.files[0]?.hunks[0]?.ops);
    expect(unified.files[0]?.path).toBe('x');
    expect(openai.files[0]?.path).toBe('x');
  });
});

describe('apply_patch: unified slips around file headers', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeProject({ 'a.txt': 'one\ntwo\n', 'b.txt': 'alpha\nbeta\n' });
  });
  afterEach(() => removeProject(dir));
  const apply = (text: string) =>
    applyPatchTool.run({ patch: text }, { ...makeContext(dir), mode: 'agent', tool: 'apply_patch' });

  it('still sees the next file header after a hunk whose counts promise too many lines', async () => {
    const result = await apply(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,9 +1,9 @@',
        '-one',
        '+ONE',
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -2 +2 @@',
        '-beta',
        '+BETA',
        '',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    expect(await fs.readFile(path.join(dir, 'a.txt'), 'utf8')).toBe('ONE\ntwo\n');
    expect(await fs.readFile(path.join(dir, 'b.txt'), 'utf8')).toBe('alpha\nBETA\n');
  });

  it('takes the path from a lone diff --git line, and refuses hunks with no file at all', async () => {
    const result = await apply(['diff --git a/a.txt b/a.txt', '@@ -2 +2 @@', '-two', '+TWO', ''].join('\n'));
    expect(result.ok).toBe(true);
    expect(await fs.readFile(path.join(dir, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    expect((await apply('@@ -1 +1 @@\n-one\n+1\n')).output).toMatchObject({ error_kind: 'parse', line: 1 });
  });
});

describe('apply_patch: OpenAI markers inside content', () => {
  it('treats an indented marker as a context line', async () => {
    const dir = await makeProject({ 'n.md': 'intro\n*** End of File\nbody\n' });
    try {
      const result = await applyPatchTool.run(
        {
          patch: [
            '*** Begin Patch',
            '*** Update File: n.md',
            ' *** End of File',
            '-body',
            '+BODY',
            '*** End Patch',
          ].join('\n'),
        },
        { ...makeContext(dir), mode: 'agent', tool: 'apply_patch' },
      );
      expect(result.ok).toBe(true);
      expect(await fs.readFile(path.join(dir, 'n.md'), 'utf8')).toBe('intro\n*** End of File\nBODY\n');
    } finally {
      await removeProject(dir);
    }
  });
});
