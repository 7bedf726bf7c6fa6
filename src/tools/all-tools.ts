import { applyPatchTool } from './apply-patch.js';
import { askUserTool } from './ask-user.js';
import { buildTool } from './build.js';
import { createPlanFileTool } from './create-plan-file.js';
import type { Tool } from './define-tool.js';
import { diagnosticsTool } from './diagnostics.js';
import { editFileTool } from './edit-file.js';
import { fetchUrlTool } from './fetch-url.js';
import { gitTool } from './git.js';
import { globTool } from './glob.js';
import { listFilesTool } from './list-files.js';
import { lspTool } from './lsp.js';
import { readFileTool } from './read-file.js';
import { ToolRegistry } from './registry.js';
import { searchCodeTool } from './search-code.js';
import { shellTool } from './shell.js';
import { todoTool } from './todo.js';
import { writeFileTool } from './write-file.js';

/** Every built-in tool, in the order they are offered to the model. */
export const ALL_TOOLS: readonly Tool[] = [
  readFileTool,
  listFilesTool,
  globTool,
  searchCodeTool,
  writeFileTool,
  editFileTool,
  applyPatchTool,
  shellTool,
  buildTool,
  gitTool,
  diagnosticsTool,
  lspTool,
  todoTool,
  askUserTool,
  createPlanFileTool,
  fetchUrlTool,
];

export function createToolRegistry(tools: readonly Tool[] = ALL_TOOLS): ToolRegistry {
  return new ToolRegistry(tools);
}
