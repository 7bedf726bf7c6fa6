import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../../src/permissions/defaults.js';
import { evaluate } from '../../../src/permissions/rule.js';

const check = (tool: string, pattern: string, paths?: string[]) =>
  evaluate(DEFAULT_RULES, { tool, pattern, ...(paths ? { paths } : {}) });

describe('default rules', () => {
  it('allow reads, searches and listings inside the project', () => {
    expect(check('read_file', 'src/index.ts')).toBe('allow');
    expect(check('list_files', '.')).toBe('allow');
    expect(check('glob', '**/*.ts')).toBe('allow');
    expect(check('search_code', 'TODO')).toBe('allow');
  });

  it('ask before reading .env files at any depth', () => {
    expect(check('read_file', '.env')).toBe('ask');
    expect(check('read_file', '.env.local')).toBe('ask');
    expect(check('read_file', 'config/.env.production')).toBe('ask');
    expect(check('read_file', 'src/env.ts')).toBe('allow');
  });

  it('allow diagnostics, lsp, todo, ask_user and plan files', () => {
    for (const tool of ['diagnostics', 'lsp', 'todo', 'ask_user'])
      expect(check(tool, ''), tool).toBe('allow');
    expect(check('create_plan_file', '.agent/plans/add-login.md')).toBe('allow');
  });

  it('allow read-only git and ask for everything else git does', () => {
    expect(check('git', 'git status')).toBe('allow');
    expect(check('git', 'git diff --stat HEAD~1')).toBe('allow');
    expect(check('git', 'git log --oneline -5')).toBe('allow');
    expect(check('git', 'git diff --output=patch.txt')).toBe('ask');
    expect(check('git', 'git commit -m x')).toBe('ask');
    expect(check('git', 'git push')).toBe('ask');
    expect(check('git', 'git branch -D main')).toBe('ask');
    expect(check('git', 'git statusx')).toBe('ask');
  });

  it('ask for writes, patches, shell, build and fetches', () => {
    expect(check('write_file', 'a.ts')).toBe('ask');
    expect(check('edit_file', 'a.ts')).toBe('ask');
    expect(check('apply_patch', 'a.ts b.ts', ['a.ts', 'b.ts'])).toBe('ask');
    expect(check('shell', 'ls')).toBe('ask');
    expect(check('build', 'npm run build')).toBe('ask');
    expect(check('fetch_url', 'example.org')).toBe('ask');
  });

  it('ask for tools they do not know', () => {
    expect(check('some_new_tool', 'x')).toBe('ask');
  });

  it('are frozen so no caller can change them for everyone', () => {
    expect(Object.isFrozen(DEFAULT_RULES)).toBe(true);
  });
});
