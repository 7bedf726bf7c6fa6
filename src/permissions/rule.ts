import { z } from 'zod';
import { type PermissionSubject, type Subject, subjectsOf } from './request-subjects.js';
import { literalOf, patternRegExp } from './rule-pattern.js';

export const PERMISSION_ACTIONS = ['allow', 'ask', 'deny'] as const;

export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

/**
 * `tool` is a canonical tool name or `*`. `pattern` matches the tool's resource: for shell and
 * build each simple command of the line (`*` matches any text, so `npm test*` is a prefix rule
 * and `npm test *` also matches plain `npm test`; `\\*` is a literal star); for git the command
 * with or without its leading `git`; for file tools a project-relative path glob (`src/**`,
 * `*.lock`, `.env*`, `/README.md` for the root one only); for fetch_url the host
 * (`*.github.com`). No pattern, or `*`, matches everything the tool does. See `rule-pattern.ts`.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  action: PermissionAction;
}

export const permissionRuleSchema = z
  .object({
    tool: z.string().trim().min(1).describe('Tool name, or * for every tool.'),
    pattern: z.string().trim().min(1).optional().describe('Command, path glob or host the rule covers.'),
    action: z.enum(PERMISSION_ACTIONS),
  })
  .strict();

/**
 * Validates user rules one by one, so a typo in one rule reports that rule and keeps the others.
 * Errors read `permissions[2].action: ...` (prefixed with `path`).
 */
export function parseRules(
  input: unknown,
  path = 'permissions',
): { rules: PermissionRule[]; errors: string[] } {
  if (input === undefined || input === null) return { rules: [], errors: [] };
  if (!Array.isArray(input)) return { rules: [], errors: [`${path} must be a list of rules`] };
  const rules: PermissionRule[] = [];
  const errors: string[] = [];
  input.forEach((item, index) => {
    const parsed = permissionRuleSchema.safeParse(item);
    if (parsed.success) {
      const { tool, pattern, action } = parsed.data;
      rules.push(pattern === undefined ? { tool, action } : { tool, pattern, action });
      return;
    }
    for (const issue of parsed.error.issues) {
      const where = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`));
      errors.push(`${path}[${index}]${where.join('')}: ${issue.message}`);
    }
  });
  return { rules, errors };
}

const SEVERITY: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: PermissionAction, b: PermissionAction): PermissionAction {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/** A list of rules from one source; later layers override earlier ones. */
export interface RuleLayer<R extends PermissionRule = PermissionRule> {
  rules: readonly R[];
}

export interface Verdict<R extends PermissionRule = PermissionRule> {
  action: PermissionAction;
  /** The rule that decided; absent when nothing matched and the answer is the default "ask". */
  rule?: R;
}

/** The strictest matching rule wins (deny > ask > allow); nothing matching means "ask". */
export function evaluate(rules: readonly PermissionRule[], request: PermissionSubject): PermissionAction {
  return decide([{ rules }], request).action;
}

/**
 * Each thing the request does (each simple command, each path) is decided by the latest layer
 * with a rule matching it, the strictest of that layer's matches; the request gets the strictest
 * of those. So a setup rule `npm test*: allow` overrides the built-in "shell asks", while
 * `npm test && rm -rf /` still asks for its second half.
 */
export function decide<R extends PermissionRule>(
  layers: readonly RuleLayer<R>[],
  request: PermissionSubject,
): Verdict<R> {
  const whole = request.pattern.trim();
  let result: Verdict<R> | undefined;
  for (const subject of subjectsOf(request)) {
    const verdict = decideSubject(layers, request.tool, subject, whole);
    if (!result || SEVERITY[verdict.action] > SEVERITY[result.action]) result = verdict;
    if (result.action === 'deny') break;
  }
  return result ?? { action: 'ask' };
}

function decideSubject<R extends PermissionRule>(
  layers: readonly RuleLayer<R>[],
  tool: string,
  subject: Subject,
  whole: string,
): Verdict<R> {
  for (let i = layers.length - 1; i >= 0; i--) {
    let best: R | undefined;
    for (const rule of (layers[i] as RuleLayer<R>).rules) {
      if (!ruleMatches(rule, tool, subject, whole)) continue;
      if (!best || SEVERITY[rule.action] > SEVERITY[best.action]) best = rule;
    }
    if (best) return { action: best.action, rule: best };
  }
  return { action: 'ask' };
}

/**
 * A literal pattern equal to the request's whole pattern covers all of it: that is how an
 * "always" answer to `make && make test` (recorded as that exact text) allows it next time.
 */
function ruleMatches(rule: PermissionRule, tool: string, subject: Subject, whole: string): boolean {
  if (rule.tool !== '*' && rule.tool !== tool) return false;
  const pattern = rule.pattern?.trim();
  if (pattern === undefined || pattern === '*') return true;
  const texts = rule.action === 'allow' ? subject.allowTexts : subject.texts;
  const literal = literalOf(pattern, subject.style);
  if (literal !== undefined && (literal === whole || texts.includes(literal))) return true;
  // A path written out unescaped still names itself: `app/[id]/page.tsx`.
  if (subject.style === 'path' && texts.includes(pattern)) return true;
  // A wildcard cannot vouch for code the text does not show; deny and ask rules still apply.
  if (rule.action === 'allow' && subject.opaque) return false;
  const regexp = patternRegExp(pattern, subject.style);
  return texts.some((text) => regexp.test(text));
}
