import { DEFAULT_RULES, EDIT_TOOLS } from './defaults.js';
import { type PermissionSubject, resourceKind } from './request-subjects.js';
import { decide, type PermissionAction, type PermissionRule } from './rule.js';
import { escapePattern } from './rule-pattern.js';

/** Where a rule came from, weakest first; a later source overrides an earlier one. */
export const RULE_SOURCES = ['default', 'setup', 'project', 'session'] as const;

export type RuleSource = (typeof RULE_SOURCES)[number];

export interface SourcedRule extends PermissionRule {
  source: RuleSource;
}

/** false asks as the rules say; 'edits' lets file edits through; true lets all but denials through. */
export type AutoApprove = false | 'edits' | true;

/** The user's answer; the same shape as the tools' `PermissionDecision`. */
export type PermissionDecision = 'once' | 'always' | 'deny' | { deny: string };

/** Shows the prompt; `signal` aborts when the run stops, so the prompt can close itself. */
export type AskUser<R> = (request: R, signal: AbortSignal) => Promise<PermissionDecision>;

export interface CheckResult {
  allowed: boolean;
  /** For the model when not allowed: the user's reason, the blocking rule, or 'cancelled'. */
  reason?: string;
  /** The rule that decided without asking, or the session rule an "always" answer added. */
  rule?: SourcedRule;
}

export interface Evaluation {
  action: PermissionAction;
  rule?: SourcedRule;
  /** An "ask" turned into "allow" by the auto-approve switch. */
  autoApproved?: boolean;
}

export interface PermissionServiceOptions {
  /** Replaces the built-in defaults (tests). */
  defaults?: readonly PermissionRule[];
  setup?: readonly PermissionRule[];
  project?: readonly PermissionRule[];
  autoApprove?: AutoApprove;
}

export const CANCELLED = 'cancelled';

/**
 * Decides whether a tool may act: rules first, then the auto-approve switch, then the user.
 * Holds no Neovim or UI: the caller passes the prompt as a callback.
 */
export class PermissionService {
  private readonly layers: Record<RuleSource, SourcedRule[]> = {
    default: [],
    setup: [],
    project: [],
    session: [],
  };
  private auto: AutoApprove;

  constructor(options: PermissionServiceOptions = {}) {
    this.replace('default', options.defaults ?? DEFAULT_RULES);
    this.replace('setup', options.setup ?? []);
    this.replace('project', options.project ?? []);
    this.auto = options.autoApprove ?? false;
  }

  get autoApprove(): AutoApprove {
    return this.auto;
  }

  /** Shown in the status line while on. */
  setAutoApprove(mode: AutoApprove): void {
    this.auto = mode;
  }

  /** Replaces the rules of one configured source (setup() again, project config trusted or edited). */
  setRules(source: 'setup' | 'project', rules: readonly PermissionRule[]): void {
    this.replace(source, rules);
  }

  /** Adds a rule for the rest of the session; an identical rule is not added twice. */
  addSessionRule(rule: PermissionRule): SourcedRule {
    const sourced = sourcedRule(rule, 'session');
    const existing = this.layers.session.find((r) => sameRule(r, sourced));
    if (existing) return existing;
    this.layers.session.push(sourced);
    return sourced;
  }

  clearSession(): void {
    this.layers.session = [];
  }

  /** Every rule in force, weakest source first, each with its source. */
  rules(): SourcedRule[] {
    return RULE_SOURCES.flatMap((source) => this.layers[source].map((rule) => ({ ...rule })));
  }

  /** What would happen to a request now, without asking anyone. */
  evaluate(request: PermissionSubject): Evaluation {
    const verdict = decide(
      RULE_SOURCES.map((source) => ({ rules: this.layers[source] })),
      request,
    );
    const evaluation: Evaluation = { action: verdict.action };
    if (verdict.rule) evaluation.rule = { ...verdict.rule };
    if (
      verdict.action === 'ask' &&
      (this.auto === true || (this.auto === 'edits' && EDIT_TOOLS.has(request.tool)))
    ) {
      evaluation.action = 'allow';
      evaluation.autoApproved = true;
    }
    return evaluation;
  }

  /**
   * Resolves once decided: by a rule, by auto-approve, or by the user through `ask`. An "always"
   * answer adds a session rule for exactly the request's pattern. If `signal` aborts first, it
   * resolves at once with reason 'cancelled' and ignores a later answer.
   */
  async check<R extends PermissionSubject>(
    request: R,
    ask: AskUser<R>,
    signal: AbortSignal,
  ): Promise<CheckResult> {
    if (signal.aborted) return { allowed: false, reason: CANCELLED };
    const evaluation = this.evaluate(request);
    if (evaluation.action === 'deny') {
      const result: CheckResult = { allowed: false, reason: denialReason(evaluation.rule) };
      if (evaluation.rule) result.rule = evaluation.rule;
      return result;
    }
    if (evaluation.action === 'allow') {
      return evaluation.rule && !evaluation.autoApproved
        ? { allowed: true, rule: evaluation.rule }
        : { allowed: true };
    }
    return new Promise<CheckResult>((resolve) => {
      let settled = false;
      const settle = (result: CheckResult) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () => settle({ allowed: false, reason: CANCELLED });
      signal.addEventListener('abort', onAbort, { once: true });
      let answer: Promise<PermissionDecision>;
      try {
        answer = ask(request, signal);
      } catch (err) {
        answer = Promise.reject(err);
      }
      answer.then(
        (decision) => {
          // A late answer after a cancel must not leave an "always" rule behind.
          if (!settled) settle(this.apply(request, decision));
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          settle({
            allowed: false,
            reason: `The permission prompt failed (${message}); the action was not run.`,
          });
        },
      );
    });
  }

  private apply(request: PermissionSubject, decision: PermissionDecision): CheckResult {
    if (decision === 'once') return { allowed: true };
    if (decision === 'always') return { allowed: true, rule: this.addSessionRule(alwaysRuleFor(request)) };
    if (typeof decision === 'object' && decision !== null && typeof decision.deny === 'string') {
      const reason = decision.deny.trim();
      return reason ? { allowed: false, reason } : { allowed: false };
    }
    return { allowed: false };
  }

  private replace(source: RuleSource, rules: readonly PermissionRule[]): void {
    this.layers[source] = rules.map((rule) => sourcedRule(rule, source));
  }
}

/**
 * The rule an "always" answer records: allow exactly this command, path or host for this tool.
 * The request's pattern is escaped so it stays exact: "always" for `rm *.tmp` must not later
 * allow `rm -rf / x.tmp`, and for `README.md` must not cover `docs/README.md`.
 */
export function alwaysRuleFor(request: PermissionSubject): PermissionRule {
  const text = request.pattern.trim();
  if (text === '') return { tool: request.tool, action: 'allow' };
  const kind = resourceKind(request.tool);
  if (kind === 'command')
    return { tool: request.tool, pattern: escapePattern(text, 'command'), action: 'allow' };
  let pattern = escapePattern(text, 'path');
  const singlePath = !request.paths || request.paths.length <= 1;
  if (kind === 'path' && singlePath && !pattern.includes('/')) pattern = `/${pattern}`;
  return { tool: request.tool, pattern, action: 'allow' };
}

/**
 * JSON to merge into `.agent/config.json` so the rules outlive the session. The host writes it
 * (or shows it) when the user chooses to save an "always" answer.
 */
export function projectConfigSnippet(rules: PermissionRule | readonly PermissionRule[]): string {
  const list = (Array.isArray(rules) ? rules : [rules]) as readonly PermissionRule[];
  const plain = list.map(({ tool, pattern, action }) =>
    pattern === undefined ? { tool, action } : { tool, pattern, action },
  );
  return JSON.stringify({ permissions: plain }, null, 2);
}

/** Adapts a result to the decision shape `Editor.askPermission` returns to the tools. */
export function decisionOf(result: CheckResult): PermissionDecision {
  if (result.allowed) return 'once';
  return result.reason ? { deny: result.reason } : 'deny';
}

/** One line naming a rule, for reasons and logs: `shell "rm *" (setup)`. */
export function describeRule(rule: SourcedRule): string {
  const pattern = rule.pattern === undefined ? '' : ` ${JSON.stringify(rule.pattern)}`;
  return `${rule.tool}${pattern} (${rule.source})`;
}

function denialReason(rule: SourcedRule | undefined): string {
  const which = rule ? `the permission rule ${describeRule(rule)}` : 'a permission rule';
  return `Blocked by ${which}. Do not retry it; ask the user if it is needed.`;
}

function sourcedRule(rule: PermissionRule, source: RuleSource): SourcedRule {
  const { tool, pattern, action } = rule;
  return pattern === undefined ? { tool, action, source } : { tool, pattern, action, source };
}

function sameRule(a: PermissionRule, b: PermissionRule): boolean {
  return a.tool === b.tool && a.pattern === b.pattern && a.action === b.action;
}
