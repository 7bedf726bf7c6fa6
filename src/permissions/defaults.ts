import { GIT_READ_ONLY_SUBCOMMANDS } from '../util/git-read-only.js';
import type { PermissionRule } from './rule.js';

/**
 * Built-in rules, the first and weakest source. Everything not listed asks (no match means ask),
 * which is why there is no "git: ask" rule: within one source the strictest match wins, so it
 * would outvote the read-only allows above.
 *
 * create_plan_file is allowed: it can only write Markdown under `.agent/plans/` (the tool refuses
 * any other name and a symlinked folder), and Plan mode exists to produce that file, so asking
 * each time would only add a click. File tools never reach outside the project whatever the
 * rules say (the tools confine paths), so "inside the project" needs no pattern here.
 */
export const DEFAULT_RULES: readonly PermissionRule[] = Object.freeze([
  { tool: 'read_file', action: 'allow' },
  { tool: 'read_file', pattern: '.env*', action: 'ask' },
  { tool: 'list_files', action: 'allow' },
  { tool: 'glob', action: 'allow' },
  { tool: 'search_code', action: 'allow' },
  { tool: 'diagnostics', action: 'allow' },
  { tool: 'lsp', action: 'allow' },
  { tool: 'todo', action: 'allow' },
  { tool: 'ask_user', action: 'allow' },
  { tool: 'create_plan_file', action: 'allow' },
  // Git subcommands that read. The git tool already runs them without asking; these rules say
  // the same in data, so `rules()` shows it and a user rule can override it. Subcommands whose
  // arguments often make them write (branch, tag, stash, config, remote) are left to the tool's
  // finer check and otherwise ask, as does `--output`, which makes diff and log write.
  ...GIT_READ_ONLY_SUBCOMMANDS.map(
    (sub): PermissionRule => ({ tool: 'git', pattern: `git ${sub} *`, action: 'allow' }),
  ),
  { tool: 'git', pattern: 'git * --output*', action: 'ask' },
  { tool: 'write_file', action: 'ask' },
  { tool: 'edit_file', action: 'ask' },
  { tool: 'apply_patch', action: 'ask' },
  { tool: 'shell', action: 'ask' },
  { tool: 'build', action: 'ask' },
  { tool: 'fetch_url', action: 'ask' },
] satisfies PermissionRule[]);

/**
 * Tools that only change project files, which "accept edits" lets through without asking.
 * create_plan_file is here too for when a user rule makes it ask.
 */
export const EDIT_TOOLS: ReadonlySet<string> = new Set([
  'write_file',
  'edit_file',
  'apply_patch',
  'create_plan_file',
]);
