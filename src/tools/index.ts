/** The tools layer's public surface, for the agent loop and the host. */
export { ALL_TOOLS, createToolRegistry } from './all-tools.js';
export { defineTool, type Tool, type ToolOutput, type ToolResult, type ToolSpec } from './define-tool.js';
export type {
  DiagnosticSeverity,
  Editor,
  EditorDiagnostic,
  LspAction,
  LspLocation,
  LspRequest,
  LspResponse,
  LspSymbol,
  PermissionDecision,
  PermissionRequest,
} from './editor.js';
export { ReadLedger } from './read-ledger.js';
export { type ToolListing, ToolRegistry } from './registry.js';
export {
  createTodoStore,
  type Mode,
  type TodoItem,
  type TodoStatus,
  type TodoStore,
  type ToolCallContext,
  type ToolConfig,
  type ToolContext,
} from './tool-context.js';
export { fail, isFailure, ToolError, type ToolErrorKind, type ToolFailure } from './tool-error.js';
