#!/usr/bin/env node
// Loop overhead per tool step: an instant scripted model asks for a no-op tool (todo) N times.
// Anchor: a bare loop over the same scripted stream through the same SDK (request, read the
// chunks, parse the call's arguments, send the next request). Target: under 5 ms per step more.
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { fmt, importTs, median } from './lib.mjs';

const STEPS = Number(process.env.AGENT_BENCH_STEPS ?? 100);
const ROUNDS = Number(process.env.AGENT_BENCH_RUNS ?? 5);
const { startLlmServer } = await importTs('test/helpers/llm-server.ts');
const agent = await importTs('bench/agent-loop-entry.ts');

const turn = (i) => ({
  toolCalls: [
    { id: `c${i}`, name: 'todo', arguments: { items: [{ content: `step ${i}`, status: 'in_progress' }] } },
  ],
  chunkSize: 64,
});
const script = () => [...Array.from({ length: STEPS - 1 }, (_, i) => turn(i)), { text: 'done' }];

async function bare(server) {
  const client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
  const messages = [{ role: 'user', content: 'go' }];
  const start = performance.now();
  for (let step = 0; step < STEPS; step++) {
    const stream = await client.chat.completions.create({ model: 'm', stream: true, messages });
    let args = '';
    let id;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta?.tool_calls?.[0];
      if (call?.id) id = call.id;
      if (call?.function?.arguments) args += call.function.arguments;
    }
    if (!id) break;
    JSON.parse(args);
    messages.push({
      role: 'assistant',
      tool_calls: [{ id, type: 'function', function: { name: 'todo', arguments: args } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: '{"ok":true}' });
  }
  return performance.now() - start;
}

const ours = [];
const anchors = [];
for (let r = 0; r < ROUNDS; r++) {
  {
    const server = await startLlmServer({ turns: script() });
    anchors.push(await bare(server));
    await server.close();
  }
  {
    const server = await startLlmServer({ turns: script() });
    ours.push(await agent.runSteps(server.url, STEPS));
    await server.close();
  }
}
const perStep = (median(ours) - median(anchors)) / STEPS;
process.stdout.write(
  `agent loop, ${STEPS} tool steps: ${fmt(median(ours))} vs bare SDK loop ${fmt(median(anchors))} -> ratio ${(median(ours) / median(anchors)).toFixed(3)}; overhead ${perStep.toFixed(2)} ms per step (target < 5 ms)${perStep < 5 ? ' (meets target)' : ' (MISSES target)'}\n`,
);
