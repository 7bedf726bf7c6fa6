import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_TOOLS, createToolRegistry } from '../../../src/tools/all-tools.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { makeContext } from './project.js';

const ctx = makeContext('/nonexistent-project-root');

describe('tool registry', () => {
  const registry = createToolRegistry();

  it('offers the documented tool names', () => {
    expect(registry.all().map((t) => t.name)).toEqual([
      'read_file',
      'list_files',
      'glob',
      'search_code',
      'write_file',
      'edit_file',
      'apply_patch',
      'shell',
      'build',
      'git',
      'diagnostics',
      'lsp',
      'todo',
      'ask_user',
      'create_plan_file',
      'fetch_url',
    ]);
  });

  it('finds tools by alias', () => {
    expect(registry.get('grep')?.name).toBe('search_code');
    expect(registry.get('terminal')?.name).toBe('shell');
    expect(registry.get('plan')?.name).toBe('todo');
    expect(registry.get('Read_File')?.name).toBe('read_file');
  });

  it('lists per mode: nothing that edits files in Ask mode', () => {
    const ask = registry.list('ask').map((t) => t.name);
    expect(ask).not.toContain('write_file');
    expect(ask).not.toContain('shell');
    expect(ask).toContain('git');
    expect(registry.list('plan').map((t) => t.name)).toContain('create_plan_file');
    expect(registry.list('agent')).toHaveLength(ALL_TOOLS.length);
  });

  it('answers an unknown tool and a tool outside its mode with results, not exceptions', async () => {
    const unknown = await registry.call('frobnicate', {}, ctx, 'agent');
    expect(unknown).toMatchObject({ ok: false, output: { error_kind: 'unknown_tool' } });
    expect(String(unknown.output.error)).toContain('read_file');
    const outside = await registry.call('write_file', { path: 'a', content: '' }, ctx, 'ask');
    expect(outside.output).toMatchObject({ error_kind: 'not_available' });
    expect(String(outside.output.error)).toContain('not available in Ask mode');
  });

  it('turns wrong types, missing fields and bad JSON into invalid_args', async () => {
    const wrongType = await registry.call('read_file', { path: 42 }, ctx, 'ask');
    expect(wrongType.output.error_kind).toBe('invalid_args');
    expect(String(wrongType.output.error)).toContain('path');
    expect((await registry.call('edit_file', { path: 'a' }, ctx, 'agent')).output.error_kind).toBe(
      'invalid_args',
    );
    expect((await registry.call('read_file', '{"path": ', ctx, 'ask')).output.error_kind).toBe(
      'invalid_args',
    );
  });

  it('does not start a tool once the run is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await registry.call('todo', { items: [] }, { ...ctx, signal: controller.signal }, 'ask');
    expect(result.output.error_kind).toBe('cancelled');
  });

  it('accepts arguments as a JSON string', async () => {
    const result = await registry.call('todo', '{"items":[{"content":"x","status":"pending"}]}', ctx, 'ask');
    expect(result.ok).toBe(true);
  });

  it('rejects two tools claiming the same name', () => {
    const a = defineTool({
      name: 'a',
      aliases: ['x'],
      description: '',
      schema: z.object({}),
      modes: ['ask'],
      mutates: false,
      execute: async () => ({}),
    });
    const b = defineTool({
      name: 'x',
      description: '',
      schema: z.object({}),
      modes: ['ask'],
      mutates: false,
      execute: async () => ({}),
    });
    expect(() => new ToolRegistry([a, b])).toThrow(/used by both/);
  });

  it('caps oversized output, records duration, and turns unexpected throws into results', async () => {
    const big = defineTool({
      name: 'big',
      description: '',
      schema: z.object({}),
      modes: ['ask'],
      mutates: false,
      maxOutputBytes: 10_000,
      execute: async () => ({ text: 'x'.repeat(100_000), list: Array.from({ length: 5000 }, (_, i) => i) }),
    });
    const boom = defineTool({
      name: 'boom',
      description: '',
      schema: z.object({}),
      modes: ['ask'],
      mutates: false,
      execute: async () => {
        throw new TypeError('kaput');
      },
    });
    const reg = new ToolRegistry([big, boom]);
    const result = await reg.call('big', {}, ctx, 'ask');
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(10_000);
    expect(result.truncated).toBe(true);
    expect(result.output.output_truncated).toBe(true);
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await reg.call('boom', {}, ctx, 'ask')).output).toMatchObject({ error_kind: 'internal' });
  });

  it("leaves the user's time on a permission prompt out of a tool's duration", async () => {
    const asks = defineTool({
      name: 'asks',
      description: '',
      schema: z.object({}),
      modes: ['agent'],
      mutates: true,
      execute: async (_args, c) => ({
        decision: await c.editor.askPermission({ tool: 'asks', pattern: 'p', summary: 's' }),
      }),
    });
    const slowUser = makeContext('/nonexistent-project-root');
    slowUser.editor.askPermission = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return 'once';
    };
    const result = await new ToolRegistry([asks]).call('asks', {}, slowUser, 'agent');
    expect(result.output).toEqual({ decision: 'once' });
    expect(result.duration_ms).toBeLessThan(100);
  });

  it('pins every tool JSON Schema', () => {
    for (const tool of registry.all()) {
      expect({
        name: tool.name,
        aliases: tool.aliases,
        modes: tool.modes,
        parameters: tool.parameters(),
      }).toMatchSnapshot(tool.name);
    }
  });
});
