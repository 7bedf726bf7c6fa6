import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { confinePath } from '../../../src/tools/confine-path.js';
import { ToolError } from '../../../src/tools/tool-error.js';
import { makeProject, removeProject } from './project.js';

let root: string;
let outside: string;

beforeEach(async () => {
  root = await makeProject({ 'src/a.ts': 'a', 'README.md': 'r' });
  outside = await makeProject({ 'secret.txt': 's', 'dir/x.txt': 'x' });
});
afterEach(async () => {
  await removeProject(root);
  await removeProject(outside);
});

async function kindOf(input: string, allowMissing = false): Promise<string> {
  try {
    await confinePath(root, input, { allowMissing });
    return 'ok';
  } catch (err) {
    if (err instanceof ToolError) return err.kind;
    throw err;
  }
}

describe('confinePath', () => {
  it('accepts project-relative and absolute paths inside the root', async () => {
    const rel = await confinePath(root, 'src/a.ts');
    expect(rel.rel).toBe('src/a.ts');
    expect(rel.exists).toBe(true);
    expect((await confinePath(root, path.join(root, 'README.md'))).rel).toBe('README.md');
    expect((await confinePath(root, 'src/../README.md')).rel).toBe('README.md');
    expect((await confinePath(root, '.')).rel).toBe('.');
  });

  it('rejects .. and absolute paths that leave the root, telling the model what to use', async () => {
    await expect(confinePath(root, '../x')).rejects.toThrow(/relative to the project root/);
    expect(await kindOf('../x', true)).toBe('outside_project');
    expect(await kindOf('/etc/passwd')).toBe('outside_project');
    expect(await kindOf(path.join(outside, 'secret.txt'))).toBe('outside_project');
    expect(await kindOf('~/x', true)).toBe('outside_project');
  });

  it('rejects a symlinked file, dir or parent whose target leaves the root', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    await fs.symlink(path.join(outside, 'dir'), path.join(root, 'linkdir'));
    expect(await kindOf('link.txt')).toBe('outside_project');
    expect(await kindOf('linkdir')).toBe('outside_project');
    expect(await kindOf('linkdir/x.txt')).toBe('outside_project');
    // A file that does not exist yet under a symlinked parent: a write would land outside.
    expect(await kindOf('linkdir/new.txt', true)).toBe('outside_project');
    expect(await kindOf('linkdir/deeper/new.txt', true)).toBe('outside_project');
  });

  it('rejects a dangling symlink pointing outside', async () => {
    await fs.symlink(path.join(outside, 'nope.txt'), path.join(root, 'dangling'));
    expect(await kindOf('dangling', true)).toBe('outside_project');
  });

  it('follows symlinks that stay inside the project', async () => {
    await fs.symlink(path.join(root, 'src'), path.join(root, 'alias'));
    const target = await confinePath(root, 'alias/a.ts');
    expect(target.real).toBe(path.join(await fs.realpath(root), 'src/a.ts'));
  });

  it('rejects device files', async () => {
    await fs.symlink('/dev/null', path.join(root, 'null'));
    expect(await kindOf('null')).toBe('outside_project');
  });

  it('reports a missing path as not_found unless allowed', async () => {
    expect(await kindOf('nope.txt')).toBe('not_found');
    const missing = await confinePath(root, 'new/dir/file.txt', { allowMissing: true });
    expect(missing.exists).toBe(false);
    expect(missing.rel).toBe('new/dir/file.txt');
  });
});
