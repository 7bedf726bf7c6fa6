/**
 * What the tools need from the editor, without importing Neovim: `src/nvim/` implements it for
 * the real host and unit tests pass a fake. Paths are absolute; lines and columns are 1-based.
 */
export interface Editor {
  /** Text of the buffer for this file when it has unsaved changes, else undefined. */
  bufferText(absPath: string): Promise<string | undefined>;
  /** Live diagnostics (`vim.diagnostic`) for one file, or for every loaded buffer. */
  diagnostics(absPath?: string): Promise<EditorDiagnostic[]>;
  /** Answer from the attached language servers; undefined when no server handles the file. */
  lsp(request: LspRequest): Promise<LspResponse | undefined>;
  /** A tool committed a change to this file; the editor reloads unmodified buffers showing it. */
  fileChanged(absPath: string): void | Promise<void>;
  /** Asks the permission service (rules first, then the user); resolves when decided. */
  askPermission(request: PermissionRequest): Promise<PermissionDecision>;
  /** Shows a question with options; resolves to one of them or to free text. */
  askUser(question: string, options: string[]): Promise<string>;
}

export type DiagnosticSeverity = 'error' | 'warning' | 'info' | 'hint';

export interface EditorDiagnostic {
  path: string;
  line: number;
  col: number;
  severity: DiagnosticSeverity;
  message: string;
  source?: string;
  code?: string | number;
}

export type LspAction = 'definition' | 'references' | 'hover' | 'document_symbols' | 'workspace_symbols';

export interface LspRequest {
  action: LspAction;
  path?: string;
  line?: number;
  col?: number;
  query?: string;
}

export interface LspLocation {
  path: string;
  line: number;
  col: number;
  end_line?: number;
  end_col?: number;
  text?: string;
}

export interface LspSymbol {
  name: string;
  kind: string;
  path: string;
  line: number;
  col: number;
  container?: string;
}

export type LspResponse =
  | { action: 'definition' | 'references'; locations: LspLocation[] }
  | { action: 'hover'; contents: string }
  | { action: 'document_symbols' | 'workspace_symbols'; symbols: LspSymbol[] };

/**
 * Shape shared with `src/permissions/`: `pattern` is what an "always" rule would match
 * (the command, a path), `summary` the one line shown in the prompt, `diff` the change for edits.
 */
export interface PermissionRequest {
  tool: string;
  pattern: string;
  summary: string;
  diff?: string;
  paths?: string[];
}

export type PermissionDecision = 'once' | 'always' | 'deny' | { deny: string };
