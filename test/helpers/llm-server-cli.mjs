#!/usr/bin/env node
// Standalone scripted LLM server for Neovim tests and benchmarks.
//
//   node test/helpers/llm-server-cli.mjs [scenario.json] [--port N] [--requests FILE]
//
// Prints one JSON line on stdout: {"url","anthropicUrl","port"}; then serves until SIGTERM/SIGINT
// or until stdin closes when started with --stdin-lifetime. Requests are available at
// GET /__requests and, with --requests FILE, appended to FILE as JSON lines.
// The implementation is test/helpers/llm-server.ts; esbuild bundles it to a temp file because
// Node 20 cannot load TypeScript directly.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
let scenarioPath;
let port = 0;
let requestsFile;
let stdinLifetime = false;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--port') port = Number(args[++i]);
  else if (arg === '--requests') requestsFile = args[++i];
  else if (arg === '--stdin-lifetime') stdinLifetime = true;
  else scenarioPath = arg;
}

const dir = mkdtempSync(join(tmpdir(), 'llm-server-'));
const outfile = join(dir, 'llm-server.mjs');
await build({
  entryPoints: [join(here, 'llm-server.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile,
  logLevel: 'error',
});
const { startLlmServer } = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true, force: true });

const server = await startLlmServer(scenarioPath, {
  port,
  onRequest: requestsFile
    ? (request) => appendFileSync(requestsFile, `${JSON.stringify(request)}\n`)
    : undefined,
});
process.stdout.write(
  `${JSON.stringify({ url: server.url, anthropicUrl: server.anthropicUrl, port: server.port })}\n`,
);

const stop = () => {
  server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (stdinLifetime) {
  process.stdin.resume();
  process.stdin.on('end', stop);
}
