#!/usr/bin/env node
// Provider overhead: our chat-completions and Anthropic adapters (raw SSE, tolerant accumulator,
// commit rules, message building) against bare `openai` / `@anthropic-ai/sdk` loops reading the
// same scripted stream.
// Figures: CPU per streamed token (client process only: the scripted server runs in a child
// process) and the time from the server's last byte to the committed message. Target <= 1.1x.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { importTs, median, root } from './lib.mjs';

const TEXT_TOKENS = 3000;
const ARG_CHARS = 12_000;
const ROUNDS = Number(process.env.AGENT_BENCH_ROUNDS ?? 15);
const WARMUP = 3;

const turn = {
  text: 'tok '.repeat(TEXT_TOKENS),
  chunkSize: 4,
  toolCalls: [
    { id: 'call_1', name: 'write_file', arguments: { path: 'a.txt', content: 'x'.repeat(ARG_CHARS) } },
  ],
  usage: { input: 1000, output: 4000 },
};
const tokens = TEXT_TOKENS + Math.ceil((ARG_CHARS + 40) / 4) + 3;
const tools = [{ name: 'write_file', description: 'Write a file.', parameters: { type: 'object' } }];

const server = spawn(process.execPath, [path.join(root, 'test/helpers/llm-server-cli.mjs')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const first = await new Promise((resolve) =>
  readline.createInterface({ input: server.stdout }).once('line', resolve),
);
const { url } = JSON.parse(first);
const control = url.replace(/\/v1$/, '');

const { default: OpenAI } = await import('openai');
const { default: Anthropic } = await import('@anthropic-ai/sdk');
const { createProvider } = await importTs('src/providers/create-provider.ts');

const client = new OpenAI({ baseURL: url, apiKey: 'bench', maxRetries: 0 });
const provider = createProvider('bench', { type: 'openai_compatible', base_url: url, api_key: 'bench' });
const anthropic = new Anthropic({ baseURL: control, apiKey: 'bench', maxRetries: 0 });
const claude = createProvider('claude', { type: 'anthropic', base_url: control, api_key: 'bench' });

const now = () => performance.timeOrigin + performance.now();

async function bareSdk() {
  const stream = await client.chat.completions.create({
    model: 'bench',
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
    ],
    tools: tools.map((t) => ({ type: 'function', function: t })),
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) text += delta.content;
    for (const tc of delta?.tool_calls ?? []) {
      calls[tc.index] ??= { id: tc.id, name: tc.function?.name, args: '' };
      calls[tc.index].args += tc.function?.arguments ?? '';
    }
  }
  const parsed = calls.map((c) => JSON.parse(c.args));
  if (!text || parsed.length !== 1) throw new Error('bare loop lost data');
}

async function bareAnthropic() {
  const stream = await anthropic.messages.create({
    model: 'bench',
    max_tokens: 8192,
    system: 'sys',
    messages: [{ role: 'user', content: 'go' }],
    tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
    stream: true,
  });
  let text = '';
  const json = [];
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
      json[event.index] = (json[event.index] ?? '') + event.delta.partial_json;
    }
  }
  const parsed = json.filter(Boolean).map((j) => JSON.parse(j));
  if (!text || parsed.length !== 1) throw new Error('bare Anthropic loop lost data');
}

async function ourProvider(p = provider) {
  const req = {
    model: 'bench',
    system: 'sys',
    messages: [{ role: 'user', id: 'u', text: 'go', createdAt: 0 }],
    tools,
  };
  let done;
  for await (const event of p.stream(req, new AbortController().signal)) {
    if (event.type === 'done') done = event.message;
  }
  if (!done?.text || done.toolCalls.length !== 1) throw new Error('provider lost data');
}

async function measure(fn) {
  await fetch(`${control}/__turns`, { method: 'POST', body: JSON.stringify(turn) });
  const cpu = process.cpuUsage();
  const start = now();
  await fn();
  const committedAt = now();
  const used = process.cpuUsage(cpu);
  const requests = await (await fetch(`${control}/__requests`)).json();
  const last = requests.filter((r) => r.turn !== undefined).at(-1);
  return {
    wall: committedAt - start,
    cpuUs: used.user + used.system,
    latency: committedAt - last.lastByteAt,
  };
}

const pairs = {
  chat: { bare: bareSdk, ours: () => ourProvider(provider) },
  anthropic: { bare: bareAnthropic, ours: () => ourProvider(claude) },
};
const results = { chat: { bare: [], ours: [] }, anthropic: { bare: [], ours: [] } };
for (const api of Object.keys(pairs)) {
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    // Alternate the order so neither side always runs on a warmer process.
    const order = i % 2 ? ['ours', 'bare'] : ['bare', 'ours'];
    for (const name of order) {
      const r = await measure(pairs[api][name]);
      if (i >= WARMUP) results[api][name].push(r);
    }
  }
}
server.kill('SIGTERM');

const figure = (api, name, key) => median(results[api][name].map((r) => r[key]));
const line = (label, ours, bare, unit, target) => {
  const ratio = ours / bare;
  const verdict = target === undefined ? '' : ratio <= target ? ' (meets target)' : ' (MISSES target)';
  process.stdout.write(
    `${label}: ${ours.toFixed(2)} ${unit} vs bare SDK loop ${bare.toFixed(2)} ${unit} -> ratio ${ratio.toFixed(3)}${target === undefined ? '' : `, target <= ${target}`}${verdict}\n`,
  );
};
process.stdout.write(
  `stream: ${tokens} chunks (${TEXT_TOKENS} text + one ${ARG_CHARS}-char tool call), ${ROUNDS} rounds, medians\n`,
);
for (const api of ['chat', 'anthropic']) {
  const label = api === 'chat' ? 'chat completions' : 'anthropic messages';
  line(
    `${label}: CPU per streamed token`,
    figure(api, 'ours', 'cpuUs') / tokens,
    figure(api, 'bare', 'cpuUs') / tokens,
    'µs',
    1.1,
  );
  line(
    `${label}: last byte -> committed message`,
    figure(api, 'ours', 'latency'),
    figure(api, 'bare', 'latency'),
    'ms',
    1.1,
  );
  line(`${label}: whole request`, figure(api, 'ours', 'wall'), figure(api, 'bare', 'wall'), 'ms');
}
