import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../src/tools/all-tools.js';
import { makeContext, makeProject, removeProject } from '../../unit/tools/project.js';

/** The edit tools reached the way the loop reaches them: by the names and argument shapes models use. */
let root: string;
beforeEach(async () => {
  root = await makeProject({
    'src/app.py': 'def main():\r\n    print(\u201chi\u201d)\r\n',
    'notes.md': 'a\n',
  });
});
afterEach(() => removeProject(root));

const registry = createToolRegistry();
const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');

describe('edit tools through the registry', () => {
  it('takes a Codex-style apply_patch call with its patch under "input"', async () => {
    const ctx = makeContext(root);
    const result = await registry.call(
      'apply_patch',
      JSON.stringify({
        input: [
          '*** Begin Patch',
          '*** Update File: src/app.py',
          '@@ def main():',
          '-print("hi")',
          '+print("hello")',
          '*** Add File: src/__init__.py',
          '+',
          '*** End Patch',
        ].join('\n'),
      }),
      ctx,
      'agent',
    );
    expect(result.ok).toBe(true);
    expect(result.changed_paths).toEqual(['src/app.py', 'src/__init__.py']);
    expect(await read('src/app.py')).toBe('def main():\r\n    print("hello")\r\n');
    expect(await read('src/__init__.py')).toBe('\n');
    expect(JSON.parse(result.content).note).toBe('applied with: indentation, typography, crlf');
    expect(ctx.editor.changed).toEqual([path.join(root, 'src/app.py'), path.join(root, 'src/__init__.py')]);
  });

  it('takes a str_replace call and refuses, unchanged, one whose text is not there', async () => {
    const ctx = makeContext(root);
    const ok = await registry.call(
      'str_replace',
      { path: 'notes.md', old_str: 'a', new_str: 'b' },
      ctx,
      'agent',
    );
    expect(ok.ok).toBe(true);
    const refused = await registry.call(
      'edit',
      { path: 'notes.md', old_text: 'zzz', new_text: 'y' },
      ctx,
      'agent',
    );
    expect(refused.output).toMatchObject({ error_kind: 'no_match', path: 'notes.md' });
    expect(refused.changed_paths).toEqual([]);
    expect(await read('notes.md')).toBe('b\n');
  });
});
