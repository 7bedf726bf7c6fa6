import { describe, expect, it } from 'vitest';
import { escapePattern, literalOf, patternRegExp } from '../../../src/permissions/rule-pattern.js';

const command = (pattern: string, text: string) => patternRegExp(pattern, 'command').test(text);
const path = (pattern: string, text: string) => patternRegExp(pattern, 'path').test(text);

describe('command patterns', () => {
  it('read * as any text, spaces and slashes included', () => {
    expect(command('npm test*', 'npm test -- src/a b.ts')).toBe(true);
    expect(command('npm * --silent', 'npm run lint --silent')).toBe(true);
    expect(command('npm test*', 'npm run test')).toBe(false);
  });

  it('read a trailing " *" as optional arguments', () => {
    expect(command('git push *', 'git push')).toBe(true);
    expect(command('git push *', 'git push origin')).toBe(true);
    expect(command('git push *', 'git pushy')).toBe(false);
  });

  it('read \\* as a literal star and \\\\ as a literal backslash', () => {
    expect(command('rm \\*.tmp', 'rm *.tmp')).toBe(true);
    expect(command('rm \\*.tmp', 'rm -rf / x.tmp')).toBe(false);
    expect(command('echo a\\\\*', 'echo a\\ and more')).toBe(true);
    expect(command('find . -exec rm {} \\;', 'find . -exec rm {} \\;')).toBe(true);
  });

  it('keep every other character literal', () => {
    expect(command('curl a?b=[1]', 'curl a?b=[1]')).toBe(true);
    expect(command('curl a?b=[1]', 'curl aXb=1')).toBe(false);
    expect(command('echo $(x)', 'echo $(x)')).toBe(true);
  });
});

describe('path patterns', () => {
  it('match slash-free globs at any depth and a leading / at the root only', () => {
    expect(path('README.md', 'docs/README.md')).toBe(true);
    expect(path('/README.md', 'docs/README.md')).toBe(false);
    expect(path('/README.md', 'README.md')).toBe(true);
  });

  it('honour escapes', () => {
    expect(path('app/\\[id\\]/page.tsx', 'app/[id]/page.tsx')).toBe(true);
    expect(path('app/\\[id\\]/page.tsx', 'app/i/page.tsx')).toBe(false);
  });
});

describe('literalOf', () => {
  it('resolves escapes in a pattern without wildcards', () => {
    expect(literalOf('rm \\*.tmp', 'command')).toBe('rm *.tmp');
    expect(literalOf('make && make test', 'command')).toBe('make && make test');
    expect(literalOf('app/\\[id\\]/x', 'path')).toBe('app/[id]/x');
    expect(literalOf('a?b', 'command')).toBe('a?b');
  });

  it('returns undefined for a pattern with wildcards', () => {
    expect(literalOf('npm test*', 'command')).toBeUndefined();
    expect(literalOf('src/*.ts', 'path')).toBeUndefined();
    expect(literalOf('a?b', 'path')).toBeUndefined();
    expect(literalOf('{a,b}', 'path')).toBeUndefined();
  });
});

describe('escapePattern', () => {
  const samples = [
    'rm *.tmp',
    'find . -name \\*.ts -exec rm {} \\;',
    'echo "a\\\\*b" ?[x]{y}',
    'src/[id]/{page}.tsx',
    'weird\\path*?',
    'plain',
  ];

  it('gives a pattern that matches exactly the text it came from', () => {
    for (const style of ['command', 'path'] as const) {
      for (const text of samples) {
        const pattern = escapePattern(text, style);
        expect(literalOf(pattern, style), `${style}: ${text}`).toBe(text);
        if (style === 'command') expect(command(pattern, text), text).toBe(true);
      }
    }
    expect(path(escapePattern('src/[id]/{page}.tsx', 'path'), 'src/[id]/{page}.tsx')).toBe(true);
    expect(path(escapePattern('src/*.ts', 'path'), 'src/a.ts')).toBe(false);
  });
});
