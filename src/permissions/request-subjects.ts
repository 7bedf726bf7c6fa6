import type { PatternStyle } from './rule-pattern.js';
import { splitShellCommand } from './shell-command.js';

/**
 * The part of a permission request that rules look at. Declared here rather than imported from
 * `src/tools/editor.ts` so this layer depends on nothing above it; the tools' `PermissionRequest`
 * fits it structurally.
 */
export interface PermissionSubject {
  tool: string;
  /** What an "always" rule would cover: the command, a project-relative path, a host. */
  pattern: string;
  /** Every project-relative path the action touches, when there are several (apply_patch). */
  paths?: string[];
}

/** One thing a request does, checked against the rules on its own; the strictest result wins. */
export interface Subject {
  /** How a rule's pattern is read: `*` spans anything in a command, one segment in a path. */
  style: PatternStyle;
  /** Texts deny and ask rules match. */
  texts: string[];
  /** Texts allow rules match; narrower than `texts` where unwrapping changed who runs it. */
  allowTexts: string[];
  /** Only an exact or catch-all allow rule covers it (see `CommandPart.opaque`). */
  opaque: boolean;
}

/** Tools whose pattern is a shell command line, split into its simple commands. */
const SHELL_TOOLS = new Set(['shell', 'build']);

/**
 * Tools whose pattern is a project-relative path (or, for fetch_url, a host), matched as a glob
 * where `*` stays within one path segment and a slash-free pattern matches at any depth.
 */
const PATH_TOOLS = new Set([
  'read_file',
  'list_files',
  'glob',
  'search_code',
  'write_file',
  'edit_file',
  'apply_patch',
  'create_plan_file',
  'fetch_url',
]);

/** What a tool's pattern names, which decides how rules read it and how "always" escapes it. */
export function resourceKind(tool: string): 'command' | 'path' | 'host' {
  if (tool === 'fetch_url') return 'host';
  return PATH_TOOLS.has(tool) ? 'path' : 'command';
}

export function subjectsOf(request: PermissionSubject): Subject[] {
  const pattern = request.pattern.trim();
  if (SHELL_TOOLS.has(request.tool)) {
    const parts = splitShellCommand(pattern);
    if (parts.length === 0) return [plain('command', pattern)];
    return parts.map((part) => ({
      style: 'command',
      texts: part.forms,
      // An opaque part is allowed only as written: its unwrapped words leave out what it hides.
      allowTexts: part.opaque ? [part.raw] : part.allowForms,
      opaque: part.opaque,
    }));
  }
  if (request.tool === 'git') {
    // Issue rules name either the whole command or just the subcommand: `git push*`, `push*`.
    const texts = /^git\s/.test(pattern) ? [pattern, pattern.replace(/^git\s+/, '')] : [pattern];
    return [{ style: 'command', texts, allowTexts: texts, opaque: false }];
  }
  if (PATH_TOOLS.has(request.tool)) {
    const paths = request.paths && request.paths.length > 0 ? request.paths : [pattern];
    return paths.map((p) => plain('path', normalizePath(p)));
  }
  return [plain('command', pattern)];
}

function plain(style: PatternStyle, text: string): Subject {
  return { style, texts: [text], allowTexts: [text], opaque: false };
}

function normalizePath(p: string): string {
  return p
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '');
}
