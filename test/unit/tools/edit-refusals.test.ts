import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

const JS = [
  'function setup() {',
  '  init();',
  '  load();',
  '  start();',
  '}',
  '',
  'function other() {',
  '  init();  ',
  '}',
  '',
].join('\n');

let root: string;
beforeEach(async () => {
  root = await makeProject({ 'a.js': JS });
});
afterEach(() => removeProject(root));

const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');

function edit(args: Record<string, unknown>, ctx = makeContext(root)) {
  return editFileTool.run(args, { ...ctx, mode: 'agent', tool: 'edit_file' });
}
function patch(text: string, ctx = makeContext(root)) {
  return applyPatchTool.run({ patch: text }, { ...ctx, mode: 'agent', tool: 'apply_patch' });
}

describe('edit_file refusals', () => {
  it('never applies a block whose first and last lines match but whose middle differs', async () => {
    const ctx = makeContext(root);
    const result = await edit(
      {
        path: 'a.js',
        old_text: 'function setup() {\n  init();\n  boot();\n}',
        new_text: 'function setup() {}',
      },
      ctx,
    );
    expect(result.output).toMatchObject({ error_kind: 'no_match', path: 'a.js', line: 1 });
    expect(result.output.closest).toContain('3\t  load();');
    expect(result.output.differences).toEqual(
      expect.arrayContaining([expect.stringContaining('"boot();"'), expect.stringContaining('"load();"')]),
    );
    expect(ctx.editor.permissions).toHaveLength(0);
    expect(await read('a.js')).toBe(JS);
  });

  it('refuses a match that is ambiguous only after normalising, listing the lines', async () => {
    // As a substring both lines hold it; as whole lines, line 8 only fits once its trailing
    // blanks are forgiven, and the indentation level forgives both at once.
    const result = await edit({ path: 'a.js', old_text: 'init();', new_text: 'boot();' });
    expect(result.output).toMatchObject({ error_kind: 'ambiguous', lines: [2, 8] });
    const shifted = await edit({ path: 'a.js', old_text: '    init();\n', new_text: '    boot();\n' });
    expect(shifted.output).toMatchObject({ error_kind: 'ambiguous', lines: [2, 8] });
    expect(String(shifted.output.error)).toContain('indentation');
    expect(await read('a.js')).toBe(JS);
  });

  it('applies a normalised match to every place with replace_all', async () => {
    const result = await edit({
      path: 'a.js',
      old_text: '    init();\n',
      new_text: '    boot();\n',
      replace_all: true,
    });
    expect(result.output).toMatchObject({
      replacements: 2,
      applied_with: ['indentation', 'trailing_whitespace'],
    });
    expect(await read('a.js')).toBe(
      JS.replace('  init();\n', '  boot();\n').replace('  init();  \n', '  boot();\n'),
    );
  });

  it('points out read_file line numbers copied into old_text', async () => {
    const result = await edit({ path: 'a.js', old_text: '2\t  init();\n3\t  load();', new_text: 'x' });
    expect(result.output.error_kind).toBe('no_match');
    expect(String(result.output.error)).toContain('line-number prefixes');
  });

  it('does not match a block whose relative indentation differs', async () => {
    const result = await edit({ path: 'a.js', old_text: 'function other() {\ninit();\n}', new_text: 'x' });
    expect(result.output.error_kind).toBe('no_match');
    expect(await read('a.js')).toBe(JS);
  });

  it('says what differs when nothing matches', async () => {
    const result = await edit({ path: 'a.js', old_text: '  load();\n  begin();', new_text: 'x' });
    expect(result.output).toMatchObject({ error_kind: 'no_match', line: 3 });
    expect(result.output.differences).toEqual([
      'line 4: the file has "start();", which your text does not',
      'before line 5: your text has "begin();", which the file does not',
    ]);
  });
});

describe('apply_patch refusals', () => {
  it('refuses a hunk whose first and last context lines match but whose middle differs', async () => {
    const result = await patch(
      [
        '--- a/a.js',
        '+++ b/a.js',
        '@@ -1,4 +1,4 @@',
        ' function setup() {',
        '   init();',
        '-  boot();',
        '+  go();',
        ' }',
        '',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'no_match', path: 'a.js', line: 1, hunk: 1 });
    expect(result.output.closest).toContain('1\tfunction setup() {');
    expect(await read('a.js')).toBe(JS);
  });

  it('refuses stale context in the OpenAI format and names the anchor that is not there', async () => {
    const stale = await patch(
      [
        '*** Begin Patch',
        '*** Update File: a.js',
        '@@ function setup() {',
        '-  stop();',
        '+  halt();',
        '*** End Patch',
      ].join('\n'),
    );
    expect(stale.output).toMatchObject({ error_kind: 'no_match', path: 'a.js' });
    const anchor = await patch(
      [
        '*** Begin Patch',
        '*** Update File: a.js',
        '@@ function gone() {',
        '-  init();',
        '+  x();',
        '*** End Patch',
      ].join('\n'),
    );
    expect(anchor.output).toMatchObject({ error_kind: 'no_match', path: 'a.js' });
    expect(String(anchor.output.error)).toContain('function gone()');
    expect(await read('a.js')).toBe(JS);
  });

  it('refuses an anchored hunk that fits after two occurrences of its anchor', async () => {
    await fs.writeFile(path.join(root, 'd.py'), 'def f():\n    x = 1\n\ndef f():\n    x = 1\n');
    const result = await patch(
      [
        '*** Begin Patch',
        '*** Update File: d.py',
        '@@ def f():',
        '-    x = 1',
        '+    x = 2',
        '*** End Patch',
      ].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'ambiguous', lines: [2, 5] });
  });

  it('refuses a unified hunk without numbers that fits twice', async () => {
    const result = await patch(['--- a/a.js', '+++ b/a.js', '@@', '-}', '+};', ''].join('\n'));
    expect(result.output).toMatchObject({ error_kind: 'ambiguous', lines: [5, 9] });
    expect(await read('a.js')).toBe(JS);
  });

  it('prefers the one exact place over places that only fit after normalising', async () => {
    const result = await patch(['--- a/a.js', '+++ b/a.js', '@@', '-  init();', '+  boot();', ''].join('\n'));
    expect(result.ok).toBe(true);
    expect(await read('a.js')).toBe(JS.replace('  init();\n', '  boot();\n'));
  });

  it('refuses a unified hunk that only adds lines and says nowhere where', async () => {
    const result = await patch(['--- a/a.js', '+++ b/a.js', '@@ @@', '+extra();', ''].join('\n'));
    expect(result.output).toMatchObject({ error_kind: 'parse', path: 'a.js', line: 3 });
    expect(await read('a.js')).toBe(JS);
  });

  it('refuses to delete a file whose content differs', async () => {
    const result = await patch(
      ['--- a/a.js', '+++ /dev/null', '@@ -1 +0,0 @@', '-nothing like it', ''].join('\n'),
    );
    expect(result.output).toMatchObject({ error_kind: 'no_match', path: 'a.js' });
    expect(await read('a.js')).toBe(JS);
  });
});
