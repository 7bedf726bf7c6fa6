import { describe, expect, it } from 'vitest';
import { patchDialectFor } from '../../../src/agent/patch-dialect.js';
import { createToolRegistry } from '../../../src/tools/all-tools.js';

describe('the patch format each model family is told to write', () => {
  it('is the Begin Patch format for the OpenAI models trained on it, wherever they are served', () => {
    for (const model of [
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-5',
      'gpt-5-codex',
      'openai/gpt-5.1',
      'o3',
      'o4-mini',
    ]) {
      expect(patchDialectFor(model), model).toBe('openai');
    }
  });

  it('is the unified diff for every other family', () => {
    for (const model of [
      'claude-sonnet-4-5',
      'anthropic/claude-opus-4',
      'gemini-2.5-pro',
      'deepseek-chat',
      'qwen2.5-coder:7b',
      'gpt-4o',
      'llama3.1',
      'o1-preview-ish-local',
    ]) {
      expect(patchDialectFor(model), model).toBe('unified');
    }
  });

  it('changes the apply_patch description, and only that', () => {
    const registry = createToolRegistry();
    const unified = registry.list('agent', 'unified');
    const openai = registry.list('agent', 'openai');
    const patch = (list: typeof unified) => list.find((t) => t.name === 'apply_patch')?.description ?? '';
    expect(patch(unified)).toMatch(/^Apply a patch to one or more files\. Write a unified diff/);
    expect(patch(openai)).toMatch(/in the "\*\*\* Begin Patch" format/);
    expect(patch(openai)).toContain('*** End of File');
    for (const [i, tool] of unified.entries()) {
      if (tool.name !== 'apply_patch') expect(openai[i]).toEqual(tool);
    }
    expect(registry.list('agent')).toEqual(unified);
  });
});
