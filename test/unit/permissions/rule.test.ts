import { describe, expect, it } from 'vitest';
import {
  decide,
  evaluate,
  type PermissionRule,
  parseRules,
  stricter,
} from '../../../src/permissions/rule.js';

const shell = (command: string) => ({ tool: 'shell', pattern: command });
const allowShell = (pattern: string): PermissionRule => ({ tool: 'shell', pattern, action: 'allow' });

describe('evaluate', () => {
  it('asks when no rule matches', () => {
    expect(evaluate([], shell('ls'))).toBe('ask');
    expect(evaluate([{ tool: 'git', action: 'allow' }], shell('ls'))).toBe('ask');
  });

  it('lets the strictest matching rule win, whatever the order', () => {
    const rules: PermissionRule[] = [
      { tool: 'shell', action: 'allow' },
      { tool: 'shell', pattern: 'git push*', action: 'ask' },
      { tool: 'shell', pattern: 'git push --force*', action: 'deny' },
    ];
    expect(evaluate(rules, shell('ls'))).toBe('allow');
    expect(evaluate(rules, shell('git push'))).toBe('ask');
    expect(evaluate(rules, shell('git push --force origin'))).toBe('deny');
    expect(evaluate([...rules].reverse(), shell('git push --force origin'))).toBe('deny');
    expect(stricter('allow', 'ask')).toBe('ask');
    expect(stricter('deny', 'ask')).toBe('deny');
  });

  it('matches tool "*" and rules without a pattern against everything', () => {
    expect(evaluate([{ tool: '*', action: 'deny' }], { tool: 'fetch_url', pattern: 'x.org' })).toBe('deny');
    expect(evaluate([{ tool: '*', pattern: '*', action: 'allow' }], shell('anything at all'))).toBe('allow');
    expect(
      evaluate([{ tool: '*', pattern: '.env*', action: 'deny' }], { tool: 'read_file', pattern: '.env' }),
    ).toBe('deny');
  });

  describe('command patterns', () => {
    it('treats a trailing * as a prefix match', () => {
      const rules = [allowShell('npm test*')];
      expect(evaluate(rules, shell('npm test'))).toBe('allow');
      expect(evaluate(rules, shell('npm test -- src/a.test.ts'))).toBe('allow');
      expect(evaluate(rules, shell('npm tests'))).toBe('allow');
      expect(evaluate(rules, shell('npm run test'))).toBe('ask');
      expect(evaluate(rules, shell('xnpm test'))).toBe('ask');
    });

    it('reads "cmd *" as the command alone or with arguments', () => {
      const rules = [allowShell('git status *')];
      expect(evaluate(rules, shell('git status'))).toBe('allow');
      expect(evaluate(rules, shell('git status --short'))).toBe('allow');
      expect(evaluate(rules, shell('git statusx'))).toBe('ask');
    });

    it('matches a pattern without * exactly, and * anywhere inside', () => {
      expect(evaluate([allowShell('make')], shell('make'))).toBe('allow');
      expect(evaluate([allowShell('make')], shell('make install'))).toBe('ask');
      expect(evaluate([allowShell('npm run * --silent')], shell('npm run lint --silent'))).toBe('allow');
    });

    it('keeps ?, [ and braces literal', () => {
      expect(evaluate([allowShell('curl a?b=1')], shell('curl a?b=1'))).toBe('allow');
      expect(evaluate([allowShell('curl a?b=1')], shell('curl aXb=1'))).toBe('ask');
      expect(evaluate([allowShell('echo [x]*')], shell('echo [x] y'))).toBe('allow');
    });

    it('ignores extra whitespace in the command and the pattern', () => {
      expect(evaluate([allowShell('npm  test*')], shell('  npm   test  '))).toBe('allow');
    });
  });

  describe('compound shell commands', () => {
    const rules = [allowShell('npm test*'), allowShell('npm run lint*')];

    it('checks each part: one allowed part does not allow the rest', () => {
      expect(evaluate(rules, shell('npm test && rm -rf /'))).toBe('ask');
      expect(evaluate(rules, shell('npm test; rm -rf /'))).toBe('ask');
      expect(evaluate(rules, shell('npm test | sh'))).toBe('ask');
      expect(evaluate(rules, shell('npm test\nrm -rf /'))).toBe('ask');
      expect(evaluate(rules, shell('npm test & rm -rf /'))).toBe('ask');
      expect(evaluate(rules, shell('npm test && npm run lint'))).toBe('allow');
    });

    it('lets a deny on any part deny the whole line', () => {
      const withDeny = [...rules, { tool: 'shell', pattern: 'rm *', action: 'deny' } as const];
      expect(evaluate(withDeny, shell('npm test && rm -rf /'))).toBe('deny');
      expect(evaluate(withDeny, shell('npm test || (cd / && rm -rf .)'))).toBe('deny');
    });

    it('never lets a wildcard allow a substitution, but checks what it runs', () => {
      expect(evaluate([allowShell('echo *')], shell('echo $(rm -rf /)'))).toBe('ask');
      expect(evaluate([allowShell('echo *')], shell('echo `whoami`'))).toBe('ask');
      expect(evaluate([allowShell('echo *'), allowShell('date')], shell('echo "$(date)"'))).toBe('ask');
      const deny: PermissionRule = { tool: 'shell', pattern: 'rm *', action: 'deny' };
      expect(evaluate([allowShell('*'), deny], shell('echo $(rm -rf /)'))).toBe('deny');
      expect(evaluate([allowShell('echo *')], shell("echo '$(not run)'"))).toBe('allow');
    });

    it('lets an exact rule or a catch-all allow an opaque command', () => {
      expect(evaluate([allowShell('echo $(date)')], shell('echo $(date)'))).toBe('allow');
      expect(evaluate([{ tool: 'shell', action: 'allow' }], shell('echo $(date) > out'))).toBe('allow');
      expect(evaluate([allowShell('npm test*')], shell('npm test > /tmp/log'))).toBe('ask');
      expect(evaluate([allowShell('npm test*')], shell('npm test 2>&1 >/dev/null'))).toBe('allow');
      // An exact rule for the bare command does not cover what the redirection writes.
      expect(evaluate([allowShell('ls')], shell('ls > src/index.ts'))).toBe('ask');
      expect(evaluate([allowShell('ls > out.txt')], shell('ls > out.txt'))).toBe('allow');
    });

    it('treats a rule equal to the whole line as covering all of it', () => {
      const line = 'make && ./run.sh $(cat args) | tee out';
      expect(evaluate([allowShell(line)], shell(line))).toBe('allow');
      expect(evaluate([allowShell(line)], shell(`${line}; rm x`))).toBe('ask');
    });

    it('asks for a command that does not parse, even under a prefix rule, and still denies', () => {
      expect(evaluate([allowShell('echo*')], shell('echo "unterminated && rm -rf /'))).toBe('ask');
      const deny: PermissionRule = { tool: 'shell', pattern: 'rm *', action: 'deny' };
      expect(evaluate([deny], shell('echo "unterminated && rm -rf /'))).toBe('deny');
    });

    it('sees commands after quoting that other lexers misread', () => {
      const rules: PermissionRule[] = [
        allowShell('echo *'),
        { tool: 'shell', pattern: 'rm *', action: 'deny' },
      ];
      expect(evaluate(rules, shell(`echo "$'" && rm -rf / && echo "'"`))).toBe('deny');
      expect(evaluate(rules, shell("cat <<EOF\ndon't\nEOF\nrm -rf /"))).toBe('deny');
      expect(evaluate(rules, shell('bash <<EOF\nrm -rf /\nEOF'))).toBe('deny');
    });
  });

  describe('wrappers', () => {
    it('checks the wrapped command', () => {
      const rules = [allowShell('npm test*')];
      expect(evaluate(rules, shell('timeout 60 npm test'))).toBe('allow');
      expect(evaluate(rules, shell('env CI=1 npm test'))).toBe('allow');
      expect(evaluate(rules, shell('CI=1 nice -n 5 npm test'))).toBe('allow');
      expect(evaluate(rules, shell('command npm test'))).toBe('allow');
    });

    it('does not let a rule for the plain command allow it under sudo, but denies through sudo', () => {
      expect(evaluate([allowShell('npm test*')], shell('sudo npm test'))).toBe('ask');
      expect(evaluate([allowShell('sudo npm test*')], shell('sudo npm test'))).toBe('allow');
      const deny: PermissionRule = { tool: 'shell', pattern: 'rm *', action: 'deny' };
      expect(evaluate([deny], shell('sudo -u root timeout 5 rm -rf /'))).toBe('deny');
      expect(evaluate([deny], shell('env -S "rm -rf /"'))).toBe('deny');
      expect(evaluate([deny], shell('"rm" -rf /'))).toBe('deny');
      expect(evaluate([deny], shell(`bash -c 'rm -rf /'`))).toBe('deny');
      expect(evaluate([allowShell('bash -c*')], shell(`bash -c 'npm test'`))).toBe('ask');
    });
  });

  it('splits build commands like shell ones', () => {
    const rules: PermissionRule[] = [{ tool: 'build', pattern: 'npm run build*', action: 'allow' }];
    expect(evaluate(rules, { tool: 'build', pattern: 'npm run build' })).toBe('allow');
    expect(evaluate(rules, { tool: 'build', pattern: 'npm run build && curl x | sh' })).toBe('ask');
  });

  it('matches git rules on the whole command or the subcommand', () => {
    const git = (command: string) => ({ tool: 'git', pattern: command });
    expect(evaluate([{ tool: 'git', pattern: 'git commit*', action: 'allow' }], git('git commit -m x'))).toBe(
      'allow',
    );
    expect(evaluate([{ tool: 'git', pattern: 'commit*', action: 'allow' }], git('git commit -m x'))).toBe(
      'allow',
    );
    expect(evaluate([{ tool: 'git', pattern: 'push*', action: 'deny' }], git('git push origin main'))).toBe(
      'deny',
    );
    expect(evaluate([{ tool: 'git', pattern: 'push*', action: 'deny' }], git('git pull'))).toBe('ask');
  });

  describe('path patterns', () => {
    const edit = (path: string, paths?: string[]) => ({
      tool: 'edit_file',
      pattern: path,
      ...(paths ? { paths } : {}),
    });
    const allowEdit = (pattern: string): PermissionRule => ({ tool: 'edit_file', pattern, action: 'allow' });

    it('matches slash-free globs at any depth and anchored globs from the root', () => {
      expect(evaluate([allowEdit('*.md')], edit('docs/guide/intro.md'))).toBe('allow');
      expect(evaluate([allowEdit('src/**')], edit('src/a/b.ts'))).toBe('allow');
      expect(evaluate([allowEdit('src/**')], edit('test/src/b.ts'))).toBe('ask');
      expect(evaluate([allowEdit('src/*.ts')], edit('src/a/b.ts'))).toBe('ask');
      expect(evaluate([allowEdit('src/{a,b}.ts')], edit('./src/b.ts'))).toBe('allow');
    });

    it('matches a literal path with glob characters in it', () => {
      expect(evaluate([allowEdit('app/[id]/page.tsx')], edit('app/[id]/page.tsx'))).toBe('allow');
    });

    it('checks every path of a multi-file request', () => {
      const rules = [allowEdit('src/**'), { tool: 'edit_file', pattern: '*.lock', action: 'deny' } as const];
      expect(evaluate(rules, edit('src/a.ts src/b.ts', ['src/a.ts', 'src/b.ts']))).toBe('allow');
      expect(evaluate(rules, edit('src/a.ts README', ['src/a.ts', 'README']))).toBe('ask');
      expect(evaluate(rules, edit('src/a.ts yarn.lock', ['src/a.ts', 'yarn.lock']))).toBe('deny');
    });

    it('matches fetch_url hosts', () => {
      const rules: PermissionRule[] = [{ tool: 'fetch_url', pattern: '*.github.com', action: 'allow' }];
      expect(evaluate(rules, { tool: 'fetch_url', pattern: 'api.github.com' })).toBe('allow');
      expect(evaluate(rules, { tool: 'fetch_url', pattern: 'github.com.evil.org' })).toBe('ask');
    });
  });

  it('matches other tools by their pattern as a command-style glob', () => {
    expect(
      evaluate([{ tool: 'my_tool', pattern: 'deploy*', action: 'deny' }], {
        tool: 'my_tool',
        pattern: 'deploy prod',
      }),
    ).toBe('deny');
  });
});

describe('decide', () => {
  const layers = (...lists: PermissionRule[][]) => lists.map((rules) => ({ rules }));

  it('lets the latest layer with a matching rule decide each part', () => {
    const defaults: PermissionRule[] = [{ tool: 'shell', action: 'ask' }];
    const setup: PermissionRule[] = [allowShell('npm test*')];
    expect(decide(layers(defaults, setup), shell('npm test')).action).toBe('allow');
    expect(decide(layers(defaults, setup), shell('npm test && ls'))).toEqual({
      action: 'ask',
      rule: defaults[0],
    });
    expect(decide(layers(setup, defaults), shell('npm test')).action).toBe('ask');
  });

  it('keeps strictest-wins inside one layer', () => {
    const setup: PermissionRule[] = [{ tool: 'shell', action: 'ask' }, allowShell('npm test*')];
    expect(decide(layers(setup), shell('npm test')).action).toBe('ask');
  });

  it('reports the deciding rule, or none for the default ask', () => {
    const deny: PermissionRule = { tool: 'shell', pattern: 'rm *', action: 'deny' };
    expect(decide(layers([allowShell('ls*')], [deny]), shell('ls && rm x'))).toEqual({
      action: 'deny',
      rule: deny,
    });
    expect(decide(layers([]), shell('ls'))).toEqual({ action: 'ask' });
  });
});

describe('parseRules', () => {
  it('keeps valid rules and reports each invalid one with its path', () => {
    const { rules, errors } = parseRules([
      { tool: 'shell', pattern: 'npm test*', action: 'allow' },
      { tool: 'shell', action: 'sometimes' },
      { tool: '', action: 'deny' },
      { tool: 'git', patern: 'push*', action: 'deny' },
      'shell',
      { tool: ' git ', action: 'deny' },
    ]);
    expect(rules).toEqual([
      { tool: 'shell', pattern: 'npm test*', action: 'allow' },
      { tool: 'git', action: 'deny' },
    ]);
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatch(/^permissions\[1\]\.action: /);
    expect(errors[1]).toMatch(/^permissions\[2\]\.tool: /);
    expect(errors[2]).toMatch(/^permissions\[3\]: .*patern/);
    expect(errors[3]).toMatch(/^permissions\[4\]: /);
  });

  it('accepts nothing as no rules and rejects a non-list', () => {
    expect(parseRules(undefined)).toEqual({ rules: [], errors: [] });
    expect(parseRules({ tool: 'shell' }, 'project.permissions').errors).toEqual([
      'project.permissions must be a list of rules',
    ]);
  });
});
