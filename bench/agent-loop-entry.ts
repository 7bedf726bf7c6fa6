// Runs the real agent loop (provider, registry, history) for bench/agent-loop.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAgentLoop } from '../src/agent/agent-loop.js';
import { appendUser, createHistory } from '../src/history/index.js';
import { createProvider } from '../src/providers/create-provider.js';
import { createToolRegistry } from '../src/tools/all-tools.js';
import { ReadLedger } from '../src/tools/read-ledger.js';
import { createTodoStore } from '../src/tools/tool-context.js';

export async function runSteps(baseUrl: string, maxSteps: number): Promise<number> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-loop-bench-'));
  const history = createHistory();
  appendUser(history, 'go');
  const provider = createProvider('bench', { type: 'openai_compatible', base_url: baseUrl, api_key: 'k' });
  const registry = createToolRegistry();
  const noop = () => undefined;
  const start = performance.now();
  const completion = await runAgentLoop({
    id: 'bench',
    history,
    provider,
    model: 'm',
    mode: 'agent',
    system: 'bench',
    registry,
    context: {
      root,
      signal: new AbortController().signal,
      config: {},
      todos: createTodoStore(),
      reads: new ReadLedger(),
      editor: {
        bufferText: async () => undefined,
        diagnostics: async () => [],
        lsp: async () => undefined,
        fileChanged: noop,
        askPermission: async () => 'once',
        askUser: async () => '',
      },
    },
    sink: { started: noop, text: noop, reasoning: noop, notice: noop, tool: noop, done: noop },
    maxSteps: maxSteps + 1,
  });
  const elapsed = performance.now() - start;
  fs.rmSync(root, { recursive: true, force: true });
  if (completion.outcome !== 'done' || completion.steps !== maxSteps) {
    throw new Error(`the loop ended ${completion.outcome} after ${completion.steps} steps`);
  }
  return elapsed;
}
