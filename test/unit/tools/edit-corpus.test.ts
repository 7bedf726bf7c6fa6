import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

/**
 * Edit calls in the shapes models send them: each case has the files before, the call, and
 * either the files after (byte-exact) or the refusal, after which every file must be untouched.
 */
interface Case {
  name: string;
  files: Record<string, string>;
  tool: 'edit_file' | 'apply_patch';
  args: Record<string, unknown>;
  after?: Record<string, string | null>;
  refuse?: string;
}

const PY =
  'class Greeter:\n    def greet(self, name):\n        print("hi", name)\n        return name\n\n    def bye(self):\n        print("bye")\n';
const GO = 'package main\n\nfunc main() {\n\tx := 1\n\tif x > 0 {\n\t\tprintln(x)\n\t}\n}\n';
const TS =
  'export function sum(a: number, b: number) {\n  return a + b;\n}\n\nexport function sub(a: number, b: number) {\n  return a - b;\n}\n';
const patchOf = (...lines: string[]) => ({ patch: `${lines.join('\n')}\n` });

const CASES: Case[] = [
  {
    name: 'str_replace with old_string/new_string names',
    files: { 'm.ts': TS },
    tool: 'edit_file',
    args: { file_path: 'm.ts', old_string: '  return a - b;', new_string: '  return a - b - 0;' },
    after: { 'm.ts': TS.replace('a - b;', 'a - b - 0;') },
  },
  {
    name: 'Begin Patch with a method anchor',
    files: { 'g.py': PY },
    tool: 'apply_patch',
    args: patchOf(
      '*** Begin Patch',
      '*** Update File: g.py',
      '@@     def bye(self):',
      '-        print("bye")',
      '+        print("goodbye")',
      '*** End Patch',
    ),
    after: { 'g.py': PY.replace('"bye"', '"goodbye"') },
  },
  {
    name: 'Begin Patch with two chunks and an added file',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf(
      '*** Begin Patch',
      '*** Update File: m.ts',
      '@@ export function sum(a: number, b: number) {',
      '-  return a + b;',
      '+  return b + a;',
      '@@ export function sub(a: number, b: number) {',
      '-  return a - b;',
      '+  return -(b - a);',
      '*** Add File: m.test.ts',
      "+import { sum } from './m';",
      '+',
      '+test(sum);',
      '*** End Patch',
    ),
    after: {
      'm.ts': TS.replace('a + b', 'b + a').replace('a - b;', '-(b - a);'),
      'm.test.ts': "import { sum } from './m';\n\ntest(sum);\n",
    },
  },
  {
    name: 'outdented old_text and new_text for a method body',
    files: { 'g.py': PY },
    tool: 'edit_file',
    args: {
      path: 'g.py',
      old_text: 'print("hi", name)\nreturn name',
      new_text: 'print("hello", name)\nreturn name.upper()',
    },
    after: { 'g.py': PY.replace('"hi"', '"hello"').replace('return name\n', 'return name.upper()\n') },
  },
  {
    name: 'over-indented old_text and new_text',
    files: { 'm.ts': TS },
    tool: 'edit_file',
    args: {
      path: 'm.ts',
      old_text: '      return a + b;\n    }',
      new_text: '      return a + b + 0;\n    }',
    },
    after: { 'm.ts': TS.replace('a + b;', 'a + b + 0;') },
  },
  {
    name: 'unified diff without prefixes and with wrong line numbers',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf(
      '--- m.ts',
      '+++ m.ts',
      '@@ -1,3 +1,3 @@',
      ' export function sub(a: number, b: number) {',
      '-  return a - b;',
      '+  return a - b + 1;',
      ' }',
    ),
    after: { 'm.ts': TS.replace('a - b;', 'a - b + 1;') },
  },
  {
    name: 'unified diff in a Markdown fence',
    files: { 'main.go': GO },
    tool: 'apply_patch',
    args: patchOf(
      '```diff',
      '--- a/main.go',
      '+++ b/main.go',
      '@@ -4,1 +4,1 @@',
      '-\tx := 1',
      '+\tx := 2',
      '```',
    ),
    after: { 'main.go': GO.replace('x := 1', 'x := 2') },
  },
  {
    name: 'hunk counts that do not add up',
    files: { 'main.go': GO },
    tool: 'apply_patch',
    args: patchOf(
      '--- a/main.go',
      '+++ b/main.go',
      '@@ -5,2 +5,7 @@',
      ' \tif x > 0 {',
      '-\t\tprintln(x)',
      '+\t\tprintln(x, x)',
    ),
    after: { 'main.go': GO.replace('println(x)', 'println(x, x)') },
  },
  {
    name: 'bare @@ @@ header and a context line without its space',
    files: { 'g.py': PY },
    tool: 'apply_patch',
    args: patchOf(
      '--- a/g.py',
      '+++ b/g.py',
      '@@ @@',
      '         return name',
      '',
      '-    def bye(self):',
      '+    def farewell(self):',
    ),
    after: { 'g.py': PY.replace('def bye', 'def farewell') },
  },
  {
    name: 'CRLF file, LF old_text',
    files: { 'w.txt': 'a\r\nb\r\nc\r\n' },
    tool: 'edit_file',
    args: { path: 'w.txt', old_text: 'a\nb\n', new_text: 'a\nB\nb2\n' },
    after: { 'w.txt': 'a\r\nB\r\nb2\r\nc\r\n' },
  },
  {
    name: 'CRLF file, Begin Patch',
    files: { 'w.txt': 'a\r\nb\r\nc\r\n' },
    tool: 'apply_patch',
    args: patchOf('*** Begin Patch', '*** Update File: w.txt', ' a', '-b', '+B', '*** End Patch'),
    after: { 'w.txt': 'a\r\nB\r\nc\r\n' },
  },
  {
    name: 'BOM the model never saw',
    files: { 'b.cs': '\ufeffusing System;\nclass A {}\n' },
    tool: 'apply_patch',
    args: patchOf('*** Begin Patch', '*** Update File: b.cs', '-class A {}', '+class B {}', '*** End Patch'),
    after: { 'b.cs': '\ufeffusing System;\nclass B {}\n' },
  },
  {
    name: 'trailing blanks dropped from context',
    files: { 'r.md': '# Title  \nBody text \nEnd\n' },
    tool: 'edit_file',
    args: { path: 'r.md', old_text: '# Title\nBody text\n', new_text: '# Title\nNew body\n' },
    after: { 'r.md': '# Title  \nNew body\nEnd\n' },
  },
  {
    name: 'curly quotes in prose retyped as ASCII',
    files: { 'r.md': 'He said \u201cno\u201d and left.\n' },
    tool: 'edit_file',
    args: { path: 'r.md', old_text: 'He said "no" and left.', new_text: 'He said "yes" and stayed.' },
    after: { 'r.md': 'He said "yes" and stayed.\n' },
  },
  {
    name: 'en dash and non-breaking space retyped as ASCII',
    files: { 'c.js': '// pages 1\u20133\u00a0only\nrun();\n' },
    tool: 'edit_file',
    args: { path: 'c.js', old_text: '// pages 1-3 only\nrun();', new_text: '// pages 1-3 only\nrun(3);' },
    after: { 'c.js': '// pages 1\u20133\u00a0only\nrun(3);\n' },
  },
  {
    name: 'tab-indented Go, exact',
    files: { 'main.go': GO },
    tool: 'edit_file',
    args: { path: 'main.go', old_text: '\t\tprintln(x)', new_text: '\t\tprintln("x =", x)' },
    after: { 'main.go': GO.replace('println(x)', 'println("x =", x)') },
  },
  {
    name: 'replace_all rename',
    files: { 'm.ts': TS },
    tool: 'edit_file',
    args: {
      path: 'm.ts',
      old_text: 'a: number, b: number',
      new_text: 'x: number, y: number',
      replace_all: true,
    },
    after: { 'm.ts': TS.replaceAll('a: number, b: number', 'x: number, y: number') },
  },
  {
    name: 'deleting lines with an empty new_text',
    files: { 'g.py': PY },
    tool: 'edit_file',
    args: { path: 'g.py', old_text: '\n    def bye(self):\n        print("bye")\n', new_text: '' },
    after: { 'g.py': PY.replace('\n    def bye(self):\n        print("bye")\n', '') },
  },
  {
    name: 'git diff creating one file and deleting another',
    files: { 'old.txt': 'x\n', 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf(
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      'index 587be6b..0000000',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-x',
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1 @@',
      '+y',
    ),
    after: { 'old.txt': null, 'new.txt': 'y\n', 'm.ts': TS },
  },
  {
    name: 'Begin Patch delete and End of File append',
    files: { 'old.txt': 'x\n', 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf(
      '*** Begin Patch',
      '*** Delete File: old.txt',
      '*** Update File: m.ts',
      ' }',
      '+',
      '+export const zero = 0;',
      '*** End of File',
      '*** End Patch',
    ),
    after: { 'old.txt': null, 'm.ts': `${TS}\nexport const zero = 0;\n` },
  },
  {
    name: 'git hunk with a function heading after @@',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf(
      '--- a/m.ts',
      '+++ b/m.ts',
      '@@ -5,3 +5,3 @@ export function sum(a: number, b: number) {',
      ' export function sub(a: number, b: number) {',
      '-  return a - b;',
      '+  return b - a;',
      ' }',
    ),
    after: { 'm.ts': TS.replace('a - b;', 'b - a;') },
  },
  {
    name: 'removing the final newline with the marker',
    files: { 'n.txt': 'a\nb\n' },
    tool: 'apply_patch',
    args: patchOf('--- a/n.txt', '+++ b/n.txt', '@@ -2 +2 @@', '-b', '+b', '\\ No newline at end of file'),
    after: { 'n.txt': 'a\nb' },
  },
  // Refusals: nothing may change.
  {
    name: 'first and last lines match, middle differs (edit)',
    files: { 'm.ts': TS },
    tool: 'edit_file',
    args: {
      path: 'm.ts',
      old_text: 'export function sum(a: number, b: number) {\n  return a * b;\n}',
      new_text: 'x',
    },
    refuse: 'no_match',
  },
  {
    name: 'first and last lines match, middle differs (Begin Patch)',
    files: { 'g.py': PY },
    tool: 'apply_patch',
    args: patchOf(
      '*** Begin Patch',
      '*** Update File: g.py',
      '     def greet(self, name):',
      '-        print("hello", name)',
      '+        pass',
      '         return name',
      '*** End Patch',
    ),
    refuse: 'no_match',
  },
  {
    name: 'two identical blocks (edit)',
    files: { 'd.txt': 'x = 1\ny = 2\n\nx = 1\ny = 2\n' },
    tool: 'edit_file',
    args: { path: 'd.txt', old_text: 'x = 1\ny = 2', new_text: 'x = 3\ny = 2' },
    refuse: 'ambiguous',
  },
  {
    name: 'two blocks identical after normalising (edit)',
    files: { 'd.txt': 'x = 1 \n\n  x = 1\n' },
    tool: 'edit_file',
    args: { path: 'd.txt', old_text: '\tx = 1\n', new_text: '\tx = 2\n' },
    refuse: 'ambiguous',
  },
  {
    name: 'Begin Patch chunk without anchor that fits twice',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf('*** Begin Patch', '*** Update File: m.ts', '@@', '-}', '+};', '*** End Patch'),
    refuse: 'ambiguous',
  },
  {
    name: 'stale context in a unified diff',
    files: { 'm.ts': TS, 'g.py': PY },
    tool: 'apply_patch',
    args: patchOf(
      '--- a/g.py',
      '+++ b/g.py',
      '@@ -7 +7 @@',
      '-        print("bye")',
      '+        print("ciao")',
      '--- a/m.ts',
      '+++ b/m.ts',
      '@@ -2 +2 @@',
      '-  return a + b + c;',
      '+  return 0;',
    ),
    refuse: 'no_match',
  },
  {
    name: 'add over an existing file',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf('*** Begin Patch', '*** Add File: m.ts', '+x', '*** End Patch'),
    refuse: 'exists',
  },
  {
    name: 'update of a missing file',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf('--- a/nope.ts', '+++ b/nope.ts', '@@ -1 +1 @@', '-a', '+b'),
    refuse: 'missing_file',
  },
  {
    name: 'rename in a unified diff',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf('diff --git a/m.ts b/n.ts', 'similarity index 100%', 'rename from m.ts', 'rename to n.ts'),
    refuse: 'parse',
  },
  {
    name: 'Move to in a Begin Patch',
    files: { 'm.ts': TS },
    tool: 'apply_patch',
    args: patchOf('*** Begin Patch', '*** Update File: m.ts', '*** Move to: n.ts', '*** End Patch'),
    refuse: 'parse',
  },
  {
    name: 'a line the file never had',
    files: { 'g.py': PY },
    tool: 'edit_file',
    args: {
      path: 'g.py',
      old_text: '    def greet(self, name):\n        """Say hi."""\n        print("hi", name)',
      new_text: 'x',
    },
    refuse: 'no_match',
  },
  {
    name: 'relative indentation differs',
    files: { 'g.py': PY },
    tool: 'edit_file',
    args: { path: 'g.py', old_text: 'def bye(self):\nprint("bye")', new_text: 'def bye(self):\n    pass' },
    refuse: 'no_match',
  },
  {
    name: 'line-number prefixes copied from read_file',
    files: { 'm.ts': TS },
    tool: 'edit_file',
    args: { path: 'm.ts', old_text: '2\t  return a + b;', new_text: '2\t  return 0;' },
    refuse: 'no_match',
  },
  {
    name: 'moved hunk equally near two places',
    files: { 'r.txt': 'k\nv\n-\n-\nk\nv\n' },
    tool: 'apply_patch',
    args: patchOf('--- a/r.txt', '+++ b/r.txt', '@@ -3,2 +3,2 @@', ' k', '-v', '+V'),
    refuse: 'ambiguous',
  },
  {
    name: 'a later file fails after an earlier one fits (Begin Patch)',
    files: { 'm.ts': TS, 'g.py': PY },
    tool: 'apply_patch',
    args: patchOf(
      '*** Begin Patch',
      '*** Update File: m.ts',
      '-  return a + b;',
      '+  return 0;',
      '*** Update File: g.py',
      '-        print("ciao")',
      '+        pass',
      '*** End Patch',
    ),
    refuse: 'no_match',
  },
];

let root: string | undefined;
afterEach(async () => {
  if (root) await removeProject(root);
  root = undefined;
});

describe('edit corpus', () => {
  it.each(CASES)('$name', async (c) => {
    root = await makeProject(c.files);
    const ctx = { ...makeContext(root), mode: 'agent' as const, tool: c.tool };
    const tool = c.tool === 'edit_file' ? editFileTool : applyPatchTool;
    const result = await tool.run(c.args, ctx);
    if (c.refuse) {
      expect(result.output.error_kind).toBe(c.refuse);
      for (const [rel, content] of Object.entries(c.files)) {
        expect(await fs.readFile(path.join(root, rel), 'utf8')).toBe(content);
      }
      expect(result.changed_paths).toEqual([]);
      return;
    }
    expect(result.output.error).toBeUndefined();
    for (const [rel, content] of Object.entries(c.after ?? {})) {
      const abs = path.join(root, rel);
      if (content === null) await expect(fs.access(abs)).rejects.toThrow();
      else expect(await fs.readFile(abs, 'utf8')).toBe(content);
    }
  });

  it('holds at least a third refusals', () => {
    expect(CASES.filter((c) => c.refuse).length * 3).toBeGreaterThanOrEqual(CASES.length);
  });
});
