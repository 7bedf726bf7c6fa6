import { resultOf, type Tool, type ToolResult } from './define-tool.js';
import type { Mode, PatchDialect, ToolContext } from './tool-context.js';
import { fail } from './tool-error.js';

export interface ToolListing {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

const MODE_NAMES: Record<Mode, string> = { ask: 'Ask', plan: 'Plan', agent: 'Agent' };

/** Looks tools up by name or alias and runs them; every outcome is a `ToolResult`, never a throw. */
export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      for (const key of [tool.name, ...tool.aliases]) {
        const existing = this.byName.get(key);
        if (existing)
          throw new Error(`Tool name "${key}" is used by both ${existing.name} and ${tool.name}.`);
        this.byName.set(key, tool);
      }
    }
  }

  get(nameOrAlias: string): Tool | undefined {
    return this.byName.get(nameOrAlias) ?? this.byName.get(nameOrAlias.trim().toLowerCase());
  }

  /** Canonical tools, registration order. */
  all(): Tool[] {
    return [...new Set(this.byName.values())];
  }

  /** The tools offered to the model in a mode, with their JSON Schemas. */
  list(mode: Mode, dialect: PatchDialect = 'unified'): ToolListing[] {
    return this.all()
      .filter((tool) => tool.modes.includes(mode))
      .map((tool) => ({
        name: tool.name,
        description: tool.describe(dialect),
        parameters: tool.parameters(),
      }));
  }

  async call(name: string, rawArgs: unknown, ctx: ToolContext, mode: Mode): Promise<ToolResult> {
    const started = performance.now();
    const tool = this.get(name);
    if (!tool) {
      const names = this.list(mode)
        .map((t) => t.name)
        .join(', ');
      return resultOf(
        name,
        fail('unknown_tool', `There is no tool named "${name}". Available tools: ${names}.`),
        started,
        4096,
      );
    }
    if (!tool.modes.includes(mode)) {
      const where = tool.modes.map((m) => MODE_NAMES[m]).join(' or ');
      return resultOf(
        tool.name,
        fail(
          'not_available',
          `${tool.name} is not available in ${MODE_NAMES[mode]} mode (only in ${where} mode).`,
        ),
        started,
        4096,
      );
    }
    return tool.run(rawArgs, { ...ctx, mode, tool: tool.name });
  }
}
