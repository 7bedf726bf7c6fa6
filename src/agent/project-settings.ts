import type { HostConfig } from '../config/schema.js';
import type { ToolConfig } from '../tools/tool-context.js';

/**
 * The settings a run reads, with the trusted project config (`.agent/config.json`) winning over
 * setup(): it is the more specific of the two.
 */
export function projectNumber(config: HostConfig, key: string): number | undefined {
  const value = (config.project as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

export function projectString(config: HostConfig, key: string): string | undefined {
  const value = (config.project as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** The input-context budget: the setting, else 80% of the model's known window, else 32768. */
export function contextBudget(config: HostConfig, knownWindow: number): number {
  const configured = projectNumber(config, 'context_budget') ?? config.context_budget;
  if (configured) return configured;
  return knownWindow > 0 ? Math.floor(knownWindow * 0.8) : 32768;
}

export function keepTurns(config: HostConfig): number {
  return projectNumber(config, 'keep_turns') ?? config.keep_turns;
}

/** The project's own build and test commands for the `build` tool. */
export function toolConfig(config: HostConfig): ToolConfig {
  const build = projectString(config, 'build_command');
  const test = projectString(config, 'test_command');
  return { ...(build ? { build_command: build } : {}), ...(test ? { test_command: test } : {}) };
}
