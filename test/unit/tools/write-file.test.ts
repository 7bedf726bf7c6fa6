import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileTool } from '../../../src/tools/write-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

let root: string;
let outside: string;
beforeEach(async () => {
  root = await makeProject({ 'run.sh': '#!/bin/sh\n' });
  outside = await makeProject();
});
afterEach(async () => {
  await removeProject(root);
  await removeProject(outside);
});

function run(args: Record<string, unknown>, ctx = makeContext(root)) {
  return writeFileTool.run(args, { ...ctx, mode: 'agent', tool: 'write_file' });
}

describe('write_file', () => {
  it('creates parent folders and reports the new file', async () => {
    const result = await run({ path: 'a/b/c.txt', content: 'hi\n' });
    expect(result.output).toMatchObject({ created: true, changed_paths: ['a/b/c.txt'] });
    expect(await fs.readFile(path.join(root, 'a/b/c.txt'), 'utf8')).toBe('hi\n');
  });

  it('keeps the permissions of a file it replaces and leaves no temp file', async () => {
    await fs.chmod(path.join(root, 'run.sh'), 0o755);
    await run({ path: 'run.sh', content: '#!/bin/sh\necho hi\n' });
    expect((await fs.stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await fs.readdir(root)).toEqual(['run.sh']);
  });

  it('refuses to overwrite a file with unsaved changes in the editor', async () => {
    const ctx = makeContext(root);
    ctx.editor.buffers.set(path.join(root, 'run.sh'), 'unsaved');
    expect((await run({ path: 'run.sh', content: 'x' }, ctx)).output.error_kind).toBe('unsaved_buffer');
    expect(await fs.readFile(path.join(root, 'run.sh'), 'utf8')).toBe('#!/bin/sh\n');
  });

  it('will not write through a symlinked parent folder that leaves the project', async () => {
    await fs.symlink(outside, path.join(root, 'out'));
    const result = await run({ path: 'out/x.txt', content: 'x' });
    expect(result.output.error_kind).toBe('outside_project');
    expect(await fs.readdir(outside)).toEqual([]);
  });
});
