import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedSince, snapshotBefore } from '../../../src/tools/changed-files.js';
import { makeProject, removeProject } from '../../unit/tools/project.js';

let root: string;
beforeEach(async () => {
  const files: Record<string, string> = {
    'keep.txt': 'k',
    'same-size.txt': 'aaaa',
    'dir/a.txt': 'a',
    'dir/sub/b.txt': 'b',
    '.git/HEAD': 'ref',
    '.agent/plans/p.md': 'p',
    'node_modules/x/index.js': 'x',
  };
  for (let i = 0; i < 40; i++) files[`pkg${i}/m/f.txt`] = String(i);
  root = await makeProject(files);
  await fs.mkdir(path.join(root, 'pkg1/empty'));
  await fs.symlink(path.join(root, 'keep.txt'), path.join(root, 'link.txt'));
  await sleep(60);
});
afterEach(() => removeProject(root));

const write = (rel: string, text: string) => fs.writeFile(path.join(root, rel), text);

describe('changed-files snapshot', () => {
  it('reports nothing for a no-op', async () => {
    const before = await snapshotBefore(root);
    expect(await changedSince(before)).toEqual([]);
  });

  it('reports same-size rewrites even with the old mtime restored, and whole deleted folders', async () => {
    const before = await snapshotBefore(root);
    const old = await fs.stat(path.join(root, 'same-size.txt'));
    await write('same-size.txt', 'bbbb');
    await fs.utimes(path.join(root, 'same-size.txt'), old.atime, old.mtime);
    await fs.rm(path.join(root, 'dir'), { recursive: true });
    await write('pkg7/m/new.txt', 'n');
    expect(await changedSince(before)).toEqual([
      'dir/a.txt',
      'dir/sub/b.txt',
      'pkg7/m/new.txt',
      'same-size.txt',
    ]);
  });

  it('sees edits deep in folders whose own listing did not change, and entries in folders that did', async () => {
    const before = await snapshotBefore(root);
    await write('pkg3/m/f.txt', 'X');
    await fs.rm(path.join(root, 'pkg5/m/f.txt'));
    await write('pkg1/empty/first.txt', 'f');
    await fs.mkdir(path.join(root, 'pkg2/m/new/deeper'), { recursive: true });
    await write('pkg2/m/new/deeper/n.txt', 'n');
    await fs.rm(path.join(root, 'pkg9/m/f.txt'));
    await fs.mkdir(path.join(root, 'pkg9/m/f.txt'));
    await write('pkg9/m/f.txt/inner.txt', 'i');
    expect(await changedSince(before)).toEqual([
      'pkg1/empty/first.txt',
      'pkg2/m/new/deeper/n.txt',
      'pkg3/m/f.txt',
      'pkg5/m/f.txt',
      'pkg9/m/f.txt',
      'pkg9/m/f.txt/inner.txt',
    ]);
  });

  it('ignores .git, .agent, generated folders and symlinks', async () => {
    const before = await snapshotBefore(root);
    await write('.git/HEAD', 'other');
    await write('.agent/plans/p.md', 'other');
    await write('node_modules/x/index.js', 'other');
    await fs.rm(path.join(root, 'link.txt'));
    await fs.symlink(path.join(root, 'dir/a.txt'), path.join(root, 'link.txt'));
    expect(await changedSince(before)).toEqual([]);
  });
});
