/**
 * The tools' JSON Schemas as the build computed them. Deriving them from the zod schemas takes
 * ~25 ms, all of it on the path from the first prompt to the first request, so the build runs
 * the same derivation (scripts/build.mjs) and bakes the result into the bundle. Unbundled
 * (tests, benches) there is none and each tool derives its own.
 */
declare const __AGENT_TOOL_SCHEMAS__: string | undefined;

let schemas: Record<string, Record<string, unknown>> | undefined;

export function buildTimeSchema(tool: string): Record<string, unknown> | undefined {
  if (typeof __AGENT_TOOL_SCHEMAS__ !== 'string') return undefined;
  schemas ??= JSON.parse(__AGENT_TOOL_SCHEMAS__) as Record<string, Record<string, unknown>>;
  return schemas[tool];
}
