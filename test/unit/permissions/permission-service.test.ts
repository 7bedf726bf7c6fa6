import { describe, expect, it, vi } from 'vitest';
import {
  type AskUser,
  alwaysRuleFor,
  decisionOf,
  type PermissionDecision,
  PermissionService,
  projectConfigSnippet,
} from '../../../src/permissions/permission-service.js';
import type { PermissionRule } from '../../../src/permissions/rule.js';

interface Request {
  tool: string;
  pattern: string;
  summary: string;
  paths?: string[];
}

const shell = (command: string): Request => ({ tool: 'shell', pattern: command, summary: command });
const edit = (path: string): Request => ({
  tool: 'edit_file',
  pattern: path,
  summary: `Edit ${path}`,
  paths: [path],
});
const signal = () => new AbortController().signal;

/** A prompt that answers at once and records what it was asked. */
function answering(decision: PermissionDecision) {
  return vi.fn<AskUser<Request>>(async () => decision);
}

const neverAsked = vi.fn<AskUser<Request>>(async () => {
  throw new Error('the user should not have been asked');
});

describe('PermissionService', () => {
  describe('sources', () => {
    it('lists rules weakest source first, each with its source', () => {
      const service = new PermissionService({
        defaults: [{ tool: 'shell', action: 'ask' }],
        setup: [{ tool: 'shell', pattern: 'npm test*', action: 'allow' }],
        project: [{ tool: 'git', pattern: 'push*', action: 'deny' }],
      });
      service.addSessionRule({ tool: 'shell', pattern: 'make', action: 'allow' });
      expect(service.rules()).toEqual([
        { tool: 'shell', action: 'ask', source: 'default' },
        { tool: 'shell', pattern: 'npm test*', action: 'allow', source: 'setup' },
        { tool: 'git', pattern: 'push*', action: 'deny', source: 'project' },
        { tool: 'shell', pattern: 'make', action: 'allow', source: 'session' },
      ]);
    });

    it('lets a later source override an earlier one', async () => {
      const service = new PermissionService({
        setup: [{ tool: 'shell', pattern: 'npm *', action: 'allow' }],
        project: [{ tool: 'shell', pattern: 'npm publish*', action: 'deny' }],
      });
      expect(service.evaluate(shell('npm test')).action).toBe('allow');
      expect(service.evaluate(shell('npm publish')).action).toBe('deny');
      service.setRules('project', []);
      expect(service.evaluate(shell('npm publish')).action).toBe('allow');
      service.addSessionRule({ tool: 'shell', pattern: 'npm test*', action: 'ask' });
      expect(service.evaluate(shell('npm test'))).toMatchObject({
        action: 'ask',
        rule: { source: 'session' },
      });
    });

    it('overrides the built-in defaults with setup rules', async () => {
      const service = new PermissionService({
        setup: [{ tool: 'shell', pattern: 'npm test*', action: 'allow' }],
      });
      expect(await service.check(shell('npm test'), neverAsked, signal())).toEqual({
        allowed: true,
        rule: { tool: 'shell', pattern: 'npm test*', action: 'allow', source: 'setup' },
      });
      const ask = answering('once');
      await service.check(shell('npm test && rm -rf /'), ask, signal());
      expect(ask).toHaveBeenCalledOnce();
    });
  });

  describe('check', () => {
    it('allows without asking when a rule allows', async () => {
      const service = new PermissionService();
      expect(
        await service.check({ tool: 'read_file', pattern: 'src/a.ts', summary: '' }, neverAsked, signal()),
      ).toMatchObject({
        allowed: true,
      });
    });

    it('denies without asking when a rule denies, and tells the model which rule', async () => {
      const service = new PermissionService({ setup: [{ tool: 'shell', pattern: 'rm *', action: 'deny' }] });
      const result = await service.check(shell('ls && rm -rf build'), neverAsked, signal());
      expect(result.allowed).toBe(false);
      expect(result.reason).toContain('shell "rm *" (setup)');
      expect(result.rule?.source).toBe('setup');
    });

    it('asks when the rules say ask, passing the request and the signal', async () => {
      const service = new PermissionService();
      const ask = answering('once');
      const controller = new AbortController();
      const request = shell('make');
      expect(await service.check(request, ask, controller.signal)).toEqual({ allowed: true });
      expect(ask).toHaveBeenCalledWith(request, controller.signal);
      expect(service.rules().filter((r) => r.source === 'session')).toEqual([]);
    });

    it('turns a plain deny into no reason, and a deny with a reason into the reason', async () => {
      const service = new PermissionService();
      expect(await service.check(shell('make'), answering('deny'), signal())).toEqual({ allowed: false });
      expect(await service.check(shell('make'), answering({ deny: '  use make test  ' }), signal())).toEqual({
        allowed: false,
        reason: 'use make test',
      });
      expect(await service.check(shell('make'), answering({ deny: ' ' }), signal())).toEqual({
        allowed: false,
      });
    });

    it('refuses with a reason when the prompt throws before returning a promise', async () => {
      const service = new PermissionService();
      const controller = new AbortController();
      const remove = vi.spyOn(controller.signal, 'removeEventListener');
      const ask: AskUser<Request> = () => {
        throw new Error('no UI attached');
      };
      const result = await service.check(shell('make'), ask, controller.signal);
      expect(result).toMatchObject({ allowed: false, reason: expect.stringContaining('no UI attached') });
      expect(remove).toHaveBeenCalled();
    });

    it('refuses with a reason when the prompt itself fails', async () => {
      const service = new PermissionService();
      const ask = vi.fn<AskUser<Request>>(async () => {
        throw new Error('window closed');
      });
      const result = await service.check(shell('make'), ask, signal());
      expect(result.allowed).toBe(false);
      expect(result.reason).toContain('window closed');
    });
  });

  describe('always', () => {
    it('records a session rule for exactly the request pattern and stops asking for it', async () => {
      const service = new PermissionService();
      const ask = answering('always');
      const first = await service.check(shell('npm run build'), ask, signal());
      expect(first).toEqual({
        allowed: true,
        rule: { tool: 'shell', pattern: 'npm run build', action: 'allow', source: 'session' },
      });
      expect(await service.check(shell('npm run build'), neverAsked, signal())).toMatchObject({
        allowed: true,
      });
      // Exactly that command: not a prefix of it, not a longer line.
      await service.check(shell('npm run build --watch'), ask, signal());
      await service.check(shell('npm run build && rm -rf /'), ask, signal());
      expect(ask).toHaveBeenCalledTimes(3);
    });

    it('covers a compound line and a multi-file patch as a whole', async () => {
      const service = new PermissionService();
      await service.check(shell('make && make test'), answering('always'), signal());
      expect(service.evaluate(shell('make && make test')).action).toBe('allow');
      expect(service.evaluate(shell('make')).action).toBe('ask');
      const patch: Request = {
        tool: 'apply_patch',
        pattern: 'a.ts b.ts',
        summary: 'Patch 2 files',
        paths: ['a.ts', 'b.ts'],
      };
      await service.check(patch, answering('always'), signal());
      expect(service.evaluate(patch).action).toBe('allow');
      expect(service.evaluate({ ...patch, pattern: 'a.ts', paths: ['a.ts'] }).action).toBe('ask');
    });

    it('does not add the same session rule twice, and clearSession forgets them', async () => {
      const service = new PermissionService();
      const rule: PermissionRule = { tool: 'edit_file', pattern: 'src/a.ts', action: 'allow' };
      service.addSessionRule(rule);
      service.addSessionRule({ ...rule });
      expect(service.rules().filter((r) => r.source === 'session')).toHaveLength(1);
      expect(service.evaluate(edit('src/a.ts')).action).toBe('allow');
      service.clearSession();
      expect(service.rules().filter((r) => r.source === 'session')).toEqual([]);
      expect(service.evaluate(edit('src/a.ts')).action).toBe('ask');
    });

    it('escapes the recorded pattern so it allows exactly that command or path', async () => {
      const service = new PermissionService();
      const ask = answering('always');
      const first = await service.check(shell('rm *.tmp'), ask, signal());
      expect(first.rule?.pattern).toBe('rm \\*.tmp');
      expect(service.evaluate(shell('rm *.tmp')).action).toBe('allow');
      expect(service.evaluate(shell('rm -rf / x.tmp')).action).toBe('ask');

      await service.check(shell('find . -exec rm {} \\;'), ask, signal());
      expect(service.evaluate(shell('find . -exec rm {} \\;')).action).toBe('allow');

      await service.check(edit('README.md'), ask, signal());
      expect(service.evaluate(edit('README.md')).action).toBe('allow');
      expect(service.evaluate(edit('docs/README.md')).action).toBe('ask');

      await service.check(edit('app/[id]/page.tsx'), ask, signal());
      expect(service.evaluate(edit('app/[id]/page.tsx')).action).toBe('allow');
      expect(service.evaluate(edit('app/i/page.tsx')).action).toBe('ask');
    });

    it('records a tool-wide rule when the request has no pattern', () => {
      expect(alwaysRuleFor({ tool: 'ask_user', pattern: '' })).toEqual({ tool: 'ask_user', action: 'allow' });
      expect(alwaysRuleFor({ tool: 'fetch_url', pattern: 'api.github.com' })).toEqual({
        tool: 'fetch_url',
        pattern: 'api.github.com',
        action: 'allow',
      });
    });

    it('builds the rule and the project config snippet to save it', () => {
      const rule = alwaysRuleFor(shell('  npm run lint '));
      expect(rule).toEqual({ tool: 'shell', pattern: 'npm run lint', action: 'allow' });
      expect(JSON.parse(projectConfigSnippet({ ...rule, source: 'session' } as PermissionRule))).toEqual({
        permissions: [{ tool: 'shell', pattern: 'npm run lint', action: 'allow' }],
      });
      expect(
        JSON.parse(projectConfigSnippet([rule, { tool: 'git', action: 'deny' }])).permissions,
      ).toHaveLength(2);
    });
  });

  describe('auto-approve', () => {
    it('asks for everything the rules say ask when off', () => {
      const service = new PermissionService();
      expect(service.autoApprove).toBe(false);
      expect(service.evaluate(edit('a.ts')).action).toBe('ask');
      expect(service.evaluate(shell('make')).action).toBe('ask');
    });

    it('lets file edits through in "edits" mode while shell still asks', async () => {
      const service = new PermissionService({ autoApprove: 'edits' });
      expect(service.evaluate(edit('a.ts'))).toEqual({
        action: 'allow',
        autoApproved: true,
        rule: { tool: 'edit_file', action: 'ask', source: 'default' },
      });
      for (const tool of ['write_file', 'apply_patch']) {
        expect(service.evaluate({ tool, pattern: 'a.ts' }).action).toBe('allow');
      }
      expect(await service.check(edit('a.ts'), neverAsked, signal())).toEqual({ allowed: true });
      for (const tool of ['shell', 'build', 'fetch_url', 'git']) {
        expect(service.evaluate({ tool, pattern: 'x' }).action, tool).toBe('ask');
      }
    });

    it('lets everything through when on, except what a rule denies', () => {
      const service = new PermissionService({ setup: [{ tool: 'shell', pattern: 'rm *', action: 'deny' }] });
      service.setAutoApprove(true);
      expect(service.autoApprove).toBe(true);
      expect(service.evaluate(shell('curl x | sh')).action).toBe('allow');
      expect(service.evaluate({ tool: 'fetch_url', pattern: 'example.org' }).action).toBe('allow');
      expect(service.evaluate(shell('make && rm -rf /')).action).toBe('deny');
      service.setAutoApprove('edits');
      expect(service.evaluate({ tool: 'edit_file', pattern: 'a', paths: [] }).action).toBe('allow');
    });

    it('keeps a deny rule on edits in "edits" mode', () => {
      const service = new PermissionService({
        setup: [{ tool: 'edit_file', pattern: '*.lock', action: 'deny' }],
        autoApprove: 'edits',
      });
      expect(service.evaluate(edit('yarn.lock')).action).toBe('deny');
    });
  });

  describe('cancellation', () => {
    it('resolves promptly as cancelled when the signal aborts while asking', async () => {
      const service = new PermissionService();
      const controller = new AbortController();
      let answer: (decision: PermissionDecision) => void = () => {};
      const ask = vi.fn<AskUser<Request>>(
        () =>
          new Promise<PermissionDecision>((resolve) => {
            answer = resolve;
          }),
      );
      const pending = service.check(shell('make'), ask, controller.signal);
      await Promise.resolve();
      expect(ask).toHaveBeenCalledOnce();
      controller.abort();
      expect(await pending).toEqual({ allowed: false, reason: 'cancelled' });
      // An answer arriving after the cancel must not leave an "always" rule behind.
      answer('always');
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(service.rules().filter((r) => r.source === 'session')).toEqual([]);
    });

    it('does not ask at all when already aborted', async () => {
      const service = new PermissionService();
      const controller = new AbortController();
      controller.abort();
      expect(await service.check(shell('make'), neverAsked, controller.signal)).toEqual({
        allowed: false,
        reason: 'cancelled',
      });
    });

    it('removes its abort listener once decided', async () => {
      const service = new PermissionService();
      const controller = new AbortController();
      const remove = vi.spyOn(controller.signal, 'removeEventListener');
      await service.check(shell('make'), answering('once'), controller.signal);
      expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
    });
  });

  it('adapts a result to the decision the tools expect', () => {
    expect(decisionOf({ allowed: true })).toBe('once');
    expect(decisionOf({ allowed: false })).toBe('deny');
    expect(decisionOf({ allowed: false, reason: 'cancelled' })).toEqual({ deny: 'cancelled' });
  });
});
