import { describe, expect, it } from 'vitest';
import { holdBackMarkup } from '../../../src/providers/text-stream-filter.js';
import {
  parseTextToolCalls,
  renderTextCall,
  textToolsPrompt,
} from '../../../src/providers/text-tool-calls.js';

const NAMES = ['read_file', 'edit_file', 'shell'];

describe('text fallback tool calls', () => {
  it.each([
    [
      'tool_call tags',
      'Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>',
    ],
    ['fenced JSON', 'Reading.\n```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```'],
    ['bare JSON', 'Reading. {"name": "read_file", "arguments": {"path": "a.ts"}}'],
    ['function= JSON', 'Reading.\n<function=read_file>{"path": "a.ts"}</function>'],
    [
      'function= parameters',
      'Reading.\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>',
    ],
    ['XML style', 'Reading.\n<read_file><path>a.ts</path></read_file>'],
    [
      'arguments as a JSON string',
      'Reading.\n<tool_call>{"name":"read_file","arguments":"{\\"path\\":\\"a.ts\\"}"}</tool_call>',
    ],
  ])('recognises %s and strips the markup', (_form, reply) => {
    const parsed = parseTextToolCalls(reply, NAMES);
    expect(parsed.calls).toEqual([{ name: 'read_file', arguments: { path: 'a.ts' } }]);
    expect(parsed.text).toBe('Reading.');
  });

  it('finds several calls in order and keeps typed XML values', () => {
    const reply =
      '<tool_call>{"name":"shell","arguments":{"command":"ls"}}</tool_call> then <edit_file><path>x</path><count>3</count></edit_file>';
    const parsed = parseTextToolCalls(reply, NAMES);
    expect(parsed.calls).toEqual([
      { name: 'shell', arguments: { command: 'ls' } },
      { name: 'edit_file', arguments: { path: 'x', count: 3 } },
    ]);
    expect(parsed.text).toBe('then');
  });

  it('leaves ordinary JSON and code blocks alone', () => {
    const reply = 'Config:\n```json\n{"name": "my-package", "version": "1.0.0"}\n```\nand {"a": 1}.';
    const parsed = parseTextToolCalls(reply, NAMES);
    expect(parsed.calls).toEqual([]);
    expect(parsed.text).toBe(reply);
  });

  it('stays linear on long replies full of braces', () => {
    const code = 'function f() { if (x) { return { a: 1 }; } '.repeat(3000);
    const started = performance.now();
    const parsed = parseTextToolCalls(`${code}\n{"name": "shell", "arguments": {"command": "ls"}}`, NAMES);
    expect(parsed.calls).toEqual([{ name: 'shell', arguments: { command: 'ls' } }]);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('turns an unparseable call into an error the model can correct', () => {
    const parsed = parseTextToolCalls(
      '<tool_call>{"name": "shell", "arguments": {"command": "ls"</tool_call>',
      NAMES,
    );
    expect(parsed.calls).toHaveLength(1);
    expect(parsed.calls[0]?.name).toBe('shell');
    expect(parsed.calls[0]?.invalid).toMatch(/Could not parse the tool call as JSON.*<tool_call>/);
  });

  it('describes the tools and round-trips its own format', () => {
    const prompt = textToolsPrompt([
      { name: 'shell', description: 'Run a command.', parameters: { type: 'object' } },
    ]);
    expect(prompt).toContain('### shell');
    expect(prompt).toContain('<tool_call>');
    const rendered = renderTextCall('shell', { command: 'ls' });
    expect(parseTextToolCalls(rendered, NAMES).calls).toEqual([
      { name: 'shell', arguments: { command: 'ls' } },
    ]);
  });

  it('holds back live text once markup starts, even split across chunks', () => {
    const filter = holdBackMarkup();
    const pieces = ['Let me ', 'look.\n<to', 'ol_call>{"name":', '"shell"}</tool_call>'];
    expect(pieces.map((p) => filter.push(p)).join('')).toBe('Let me look.\n');
  });
});
