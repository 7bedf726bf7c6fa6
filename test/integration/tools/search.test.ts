import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/define-tool.js';
import { globTool } from '../../../src/tools/glob.js';
import { listFilesTool } from '../../../src/tools/list-files.js';
import { searchCodeTool } from '../../../src/tools/search-code.js';
import { makeContext, makeProject, removeProject } from '../../unit/tools/project.js';

function rgOnPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const rg = rgOnPath();
// Both engines always run: npm test and .ci/run install ripgrep, so a missing rg is a failure
// here rather than a half of the suite quietly not running.
const engines: Array<[string, string | false]> = [
  ['native', false],
  ['ripgrep', rg ?? 'rg'],
];

it('ripgrep is on PATH (the test setup installs it)', () => {
  expect(rg).toBeTruthy();
});

let root: string;
let outside: string;

beforeAll(async () => {
  root = await makeProject({
    '.gitignore': 'ignored.txt\nlogs/\n',
    'src/main.ts': 'export function main() {\n  return helper();\n}\n',
    'src/helper.ts': 'export function helper() {\n  return 42; // TODO answer\n}\n',
    'src/deep/inner.tsx': 'const Todo = () => null;\n',
    'README.md': '# Project\nTODO: write docs\n',
    'ignored.txt': 'TODO hidden by gitignore\n',
    'logs/app.log': 'TODO in logs\n',
    '.hidden/secret.ts': 'TODO hidden dir\n',
    'node_modules/pkg/index.js': 'TODO in deps\n',
    'dist/out.js': 'TODO in build output\n',
    'bin.dat': Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0, 1, 2]),
  });
  outside = await makeProject({ 'elsewhere.ts': 'TODO outside\n' });
  await fs.symlink(path.join(outside, 'elsewhere.ts'), path.join(root, 'src/link.ts'));
  const many = path.join(root, 'many');
  await fs.mkdir(many);
  for (let i = 0; i < 520; i++)
    await fs.writeFile(path.join(many, `f${String(i).padStart(3, '0')}.txt`), 'needle\n');
});
afterAll(async () => {
  await removeProject(root);
  await removeProject(outside);
});

describe.each(engines)('with the %s engine', (_name, rgPath) => {
  const call = (tool: Tool, args: Record<string, unknown>) => {
    const ctx = makeContext(root, { config: { rg_path: rgPath } });
    return tool.run(args, { ...ctx, mode: 'ask', tool: tool.name });
  };

  it('search_code finds sorted matches, skipping ignored, hidden, generated, binary and linked files', async () => {
    const result = await call(searchCodeTool, { pattern: 'TODO' });
    expect(result.output.matches).toEqual([
      { path: 'README.md', line: 2, text: 'TODO: write docs' },
      { path: 'src/helper.ts', line: 2, text: '  return 42; // TODO answer' },
    ]);
  });

  it('search_code can include ignored files when asked', async () => {
    const result = await call(searchCodeTool, {
      pattern: 'TODO',
      include_ignored: true,
      include: '*.{txt,js,ts,log}',
    });
    const paths = (result.output.matches as Array<{ path: string }>).map((m) => m.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '.hidden/secret.ts',
        'dist/out.js',
        'ignored.txt',
        'logs/app.log',
        'node_modules/pkg/index.js',
      ]),
    );
    expect(paths).not.toContain('src/link.ts');
  });

  it('search_code honours include, literal, case and path', async () => {
    const ts = await call(searchCodeTool, { pattern: 'return', include: '*.ts' });
    expect((ts.output.matches as unknown[]).length).toBe(2);
    const literal = await call(searchCodeTool, { pattern: 'return helper()', literal: true });
    expect(literal.output.matches).toEqual([{ path: 'src/main.ts', line: 2, text: '  return helper();' }]);
    const insensitive = await call(searchCodeTool, { pattern: 'todo', case: 'insensitive', path: 'src' });
    expect((insensitive.output.matches as Array<{ path: string }>).map((m) => m.path)).toEqual([
      'src/deep/inner.tsx',
      'src/helper.ts',
    ]);
    const sensitive = await call(searchCodeTool, { pattern: 'todo', path: 'src' });
    expect(sensitive.output.matches).toEqual([]);
    const oneFile = await call(searchCodeTool, { pattern: 'return', path: 'src/main.ts' });
    expect(oneFile.output.count).toBe(1);
  });

  it('search_code anchors ^ and $ to each line', async () => {
    const result = await call(searchCodeTool, { pattern: '^export function \\w+\\(\\) \\{$', path: 'src' });
    expect((result.output.matches as Array<{ path: string }>).map((m) => m.path)).toEqual([
      'src/helper.ts',
      'src/main.ts',
    ]);
  });

  it('search_code caps at 500 with truncation metadata', async () => {
    const result = await call(searchCodeTool, { pattern: 'needle' });
    expect(result.output).toMatchObject({ count: 520, truncated: true });
    const matches = result.output.matches as Array<{ path: string }>;
    expect(matches).toHaveLength(500);
    expect(matches[0]?.path).toBe('many/f000.txt');
    expect(matches[499]?.path).toBe('many/f499.txt');
  });

  it('search_code reports a bad regex and an escape attempt as errors', async () => {
    expect((await call(searchCodeTool, { pattern: '(unclosed' })).output.error_kind).toBe('invalid_pattern');
    expect((await call(searchCodeTool, { pattern: 'x', path: '..' })).output.error_kind).toBe(
      'outside_project',
    );
  });

  it('glob matches names at any depth and anchored paths, sorted', async () => {
    expect((await call(globTool, { pattern: '*.ts' })).output.files).toEqual([
      'src/helper.ts',
      'src/main.ts',
    ]);
    expect((await call(globTool, { pattern: 'src/**/*.{ts,tsx}' })).output.files).toEqual([
      'src/deep/inner.tsx',
      'src/helper.ts',
      'src/main.ts',
    ]);
    expect((await call(globTool, { pattern: '**/*.tsx', path: 'src' })).output.files).toEqual([
      'src/deep/inner.tsx',
    ]);
    const many = await call(globTool, { pattern: 'many/*.txt' });
    expect(many.output).toMatchObject({ count: 520, truncated: true });
  });
});

describe('a configured rg that does not exist', () => {
  it('falls back to the native engine', async () => {
    const ctx = makeContext(root, { config: { rg_path: '/nonexistent/rg' } });
    const search = await searchCodeTool.run(
      { pattern: 'TODO', path: 'src' },
      { ...ctx, mode: 'ask', tool: 'search_code' },
    );
    expect(search.output.count).toBe(1);
    const glob = await globTool.run({ pattern: '*.tsx' }, { ...ctx, mode: 'ask', tool: 'glob' });
    expect(glob.output.files).toEqual(['src/deep/inner.tsx']);
  });
});

describe('list_files', () => {
  const call = (args: Record<string, unknown>) => {
    const ctx = makeContext(root);
    return listFilesTool.run(args, { ...ctx, mode: 'ask', tool: 'list_files' });
  };

  it('lists files recursively, sorted, with links listed but not followed', async () => {
    const result = await call({ path: 'src' });
    expect(result.output.files).toEqual([
      'src/deep/inner.tsx',
      'src/helper.ts',
      'src/link.ts',
      'src/main.ts',
    ]);
  });

  it('filters by extension, lists one level, and caps at 500', async () => {
    expect((await call({ extension: 'md' })).output.files).toEqual(['README.md']);
    expect((await call({ path: 'src', recursive: false, extension: '.ts' })).output.files).toEqual([
      'src/helper.ts',
      'src/link.ts',
      'src/main.ts',
    ]);
    expect((await call({})).output).toMatchObject({ count: 526, truncated: true });
  });

  it('says when folders were too deep to list', async () => {
    const deep = path.join(root, 'deep', ...Array.from({ length: 13 }, (_, i) => `d${i}`));
    await fs.mkdir(deep, { recursive: true });
    await fs.writeFile(path.join(deep, 'bottom.txt'), 'x');
    const result = await call({ path: 'deep' });
    expect(result.output).toMatchObject({ files: [], depth_limited: true });
    await fs.rm(path.join(root, 'deep'), { recursive: true });
  });

  it('shows ignored entries only when asked, and refuses a file path', async () => {
    const all = await call({ include_ignored: true, extension: 'js' });
    expect(all.output.files).toEqual(['dist/out.js', 'node_modules/pkg/index.js']);
    expect((await call({ path: 'README.md' })).output.error_kind).toBe('not_a_directory');
  });
});
