import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../src/tools/all-tools.js';
import { makeContext, makeProject, removeProject } from './project.js';

const registry = createToolRegistry();
let root: string;
beforeEach(async () => {
  root = await makeProject({ 'src/a.ts': 'x\n' });
});
afterEach(() => removeProject(root));

describe('todo', () => {
  it('replaces the whole list and counts statuses', async () => {
    const ctx = makeContext(root);
    await registry.call('todo', { items: [{ content: 'old', status: 'pending' }] }, ctx, 'agent');
    const result = await registry.call(
      'todo',
      {
        items: [
          { content: 'a', status: 'completed' },
          { content: 'b', status: 'in_progress' },
        ],
      },
      ctx,
      'agent',
    );
    expect(result.output).toMatchObject({ completed: 1, in_progress: 1, pending: 0 });
    expect(ctx.todos.get()).toEqual([
      { content: 'a', status: 'completed' },
      { content: 'b', status: 'in_progress' },
    ]);
    expect(
      (await registry.call('todo', { items: [{ content: 'a', status: 'done' }] }, ctx, 'agent')).ok,
    ).toBe(false);
  });
});

describe('ask_user', () => {
  it('waits for the answer and needs 2 to 5 options', async () => {
    const ctx = makeContext(root);
    ctx.editor.answers.push('my own words');
    const result = await registry.call('ask_user', { question: 'Which?', options: ['a', 'b'] }, ctx, 'plan');
    expect(result.output).toEqual({ answer: 'my own words', chose_option: false });
    const one = await registry.call('ask_user', { question: 'Which?', options: ['a'] }, ctx, 'plan');
    expect(one.output.error_kind).toBe('invalid_args');
  });
});

describe('create_plan_file', () => {
  it('writes Markdown into .agent/plans only', async () => {
    const ctx = makeContext(root);
    const result = await registry.call(
      'create_plan_file',
      { name: 'Add Login', content: '# Plan' },
      ctx,
      'plan',
    );
    expect(result.output).toMatchObject({
      path: '.agent/plans/add-login.md',
      changed_paths: ['.agent/plans/add-login.md'],
    });
    expect(await fs.readFile(path.join(root, '.agent/plans/add-login.md'), 'utf8')).toBe('# Plan\n');
    expect((await registry.call('create_plan_file', { name: 'x.txt', content: 'y' }, ctx, 'plan')).ok).toBe(
      false,
    );
    expect((await registry.call('create_plan_file', { name: '../x', content: 'y' }, ctx, 'plan')).ok).toBe(
      false,
    );
  });

  it('refuses a plans folder that is a symlink', async () => {
    const elsewhere = await makeProject();
    await fs.mkdir(path.join(root, '.agent'));
    await fs.symlink(elsewhere, path.join(root, '.agent/plans'));
    const result = await registry.call(
      'create_plan_file',
      { name: 'p', content: 'y' },
      makeContext(root),
      'plan',
    );
    expect(result.output.error_kind).toBe('outside_project');
    expect(await fs.readdir(elsewhere)).toEqual([]);
    await removeProject(elsewhere);
  });
});

describe('diagnostics and lsp', () => {
  it('passes through the editor, project-relative', async () => {
    const ctx = makeContext(root);
    ctx.editor.diagnostics = async () => [
      {
        path: path.join(root, 'src/a.ts'),
        line: 3,
        col: 1,
        severity: 'warning',
        message: 'unused',
        source: 'ts',
      },
      { path: path.join(root, 'src/a.ts'), line: 1, col: 1, severity: 'error', message: 'bad', source: 'ts' },
    ];
    const result = await registry.call('diagnostics', { path: 'src/a.ts' }, ctx, 'ask');
    expect(result.output.diagnostics).toEqual([
      { path: 'src/a.ts', line: 1, col: 1, severity: 'error', message: 'bad', source: 'ts' },
      { path: 'src/a.ts', line: 3, col: 1, severity: 'warning', message: 'unused', source: 'ts' },
    ]);
  });

  it('reports no_lsp when no server answers, and checks the arguments an action needs', async () => {
    const ctx = makeContext(root);
    expect(
      (await registry.call('lsp', { action: 'definition', path: 'src/a.ts', line: 1, col: 1 }, ctx, 'ask'))
        .output.error_kind,
    ).toBe('no_lsp');
    expect(
      (await registry.call('lsp', { action: 'hover', path: 'src/a.ts' }, ctx, 'ask')).output.error_kind,
    ).toBe('invalid_args');
    ctx.editor.lsp = async () => ({
      action: 'definition',
      locations: [{ path: path.join(root, 'src/a.ts'), line: 1, col: 1 }],
    });
    const found = await registry.call(
      'lsp',
      { action: 'definition', path: 'src/a.ts', line: 1, col: 1 },
      ctx,
      'ask',
    );
    expect(found.output).toMatchObject({ locations: [{ path: 'src/a.ts', line: 1, col: 1 }], count: 1 });
  });
});
