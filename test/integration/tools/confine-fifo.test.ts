import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createToolRegistry } from '../../../src/tools/all-tools.js';
import { makeContext, makeProject, removeProject } from '../../unit/tools/project.js';

let root: string;
beforeEach(async () => {
  root = await makeProject();
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
});
afterEach(() => removeProject(root));

it('refuses a FIFO instead of blocking on it', async () => {
  const result = await createToolRegistry().call('read_file', { path: 'pipe' }, makeContext(root), 'ask');
  expect(result.output.error_kind).toBe('outside_project');
  const search = await createToolRegistry().call(
    'search_code',
    { pattern: 'x', path: 'pipe' },
    makeContext(root),
    'ask',
  );
  expect(search.output.error_kind).toBe('outside_project');
});
