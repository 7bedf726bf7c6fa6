import type { ToolResult } from '../tools/define-tool.js';
import type { CheckRun } from './run-sink.js';

// Commands that build or test the project: only these count as checks in the completion entry,
// so a run never claims "tests passed" because it ran `ls`.
const CHECK_COMMAND =
  /(^|[\s;&|(])((npm|pnpm|yarn|bun)\s+(run\s+)?(test|build|check|lint|typecheck)|npx\s+(tsc|vitest|jest|eslint|biome)|tsc\b|vitest\b|jest\b|pytest\b|python3?\s+-m\s+(pytest|unittest)|cargo\s+(test|build|check|clippy)|go\s+(test|build|vet)|make\b|ctest\b|mvn\s+\S*(test|verify|package)|gradle\w*\s+\S*(test|build)|dotnet\s+(test|build)|mix\s+test|rspec\b|ruff\b|mypy\b)/;

/** The check a tool call performed, if it was one (the build tool always is). */
export function checkFromResult(result: ToolResult): CheckRun | undefined {
  const out = result.output as Record<string, unknown>;
  const command = typeof out.command === 'string' ? out.command : undefined;
  if (!command || !('exit_code' in out)) return undefined;
  if (result.tool !== 'build' && !CHECK_COMMAND.test(command)) return undefined;
  const exit = typeof out.exit_code === 'number' ? out.exit_code : null;
  return { command, exit_code: exit, passed: exit === 0 };
}
