export { scriptOf, type UnwrapStep, unwrapCommand } from './command-wrappers.js';
export { DEFAULT_RULES, EDIT_TOOLS } from './defaults.js';
export {
  type AskUser,
  type AutoApprove,
  alwaysRuleFor,
  CANCELLED,
  type CheckResult,
  decisionOf,
  describeRule,
  type Evaluation,
  type PermissionDecision,
  PermissionService,
  type PermissionServiceOptions,
  projectConfigSnippet,
  RULE_SOURCES,
  type RuleSource,
  type SourcedRule,
} from './permission-service.js';
export { type PermissionSubject, resourceKind, type Subject, subjectsOf } from './request-subjects.js';
export {
  decide,
  evaluate,
  PERMISSION_ACTIONS,
  type PermissionAction,
  type PermissionRule,
  parseRules,
  permissionRuleSchema,
  type RuleLayer,
  stricter,
  type Verdict,
} from './rule.js';
export { escapePattern, literalOf, type PatternStyle, patternRegExp } from './rule-pattern.js';
export { type CommandPart, splitShellCommand } from './shell-command.js';
