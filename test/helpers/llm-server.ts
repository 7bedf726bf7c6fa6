/**
 * Scripted LLM server: speaks the OpenAI chat-completions and Anthropic Messages streaming wire
 * formats on 127.0.0.1, replays a scenario turn by turn and records every request.
 *
 * Tests: `await using server = await startLlmServer(scenario)`, then point the real SDK at
 * `server.url` (OpenAI, ends in /v1) or `server.anthropicUrl`. Standalone (Neovim tests, benches):
 * `node test/helpers/llm-server-cli.mjs [scenario.json]` prints `{"url", "anthropicUrl", "port"}`.
 * Control routes: `GET /__requests`, `POST /__scenario` (replace), `POST /__turns` (append),
 * `POST /__reset` (forget requests).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TITLE_SYSTEM } from '../../src/agent/session-title-model.js';
import { normalizeScenario, type Scenario, type ScriptedResponse } from './llm-scenario.js';
import { anthropicError, anthropicEvents, anthropicMessage, anthropicModels } from './llm-wire-anthropic.js';
import { openAiChunks, openAiCompletion, openAiError, openAiModels } from './llm-wire-openai.js';
import { responsesEvents } from './llm-wire-responses.js';

export type { RouteResponse, Scenario, ScriptedResponse, ScriptedToolCall } from './llm-scenario.js';

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body; the raw string when it is not JSON; undefined when empty. */
  body: unknown;
  /** Index of the scripted turn this request consumed, if any. */
  turn?: number;
  /** A session-title request, answered with `sessionTitle` without using a turn. */
  title?: boolean;
  /** Wall-clock ms (sub-ms precision) when the last byte of the answer was written. */
  lastByteAt?: number;
}

export interface LlmServer {
  /** Base URL for the openai SDK (`http://127.0.0.1:PORT/v1`). */
  url: string;
  /** Base URL for @anthropic-ai/sdk (`http://127.0.0.1:PORT`). */
  anthropicUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests that consumed a model turn (chat completions, messages, responses). */
  modelRequests(): RecordedRequest[];
  /** Append turns to the script. */
  push(...turns: ScriptedResponse[]): void;
  /** Replace the scenario (pending turns are dropped). */
  load(scenario: Scenario | ScriptedResponse[]): void;
  /** Turns not yet consumed. */
  remaining(): number;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface LlmServerOptions {
  port?: number;
  /** Called after each request is recorded (the CLI appends them to a file). */
  onRequest?: (request: RecordedRequest) => void;
  /**
   * Realistic usage: a turn without a scripted `usage.input` reports the request body's UTF-8
   * bytes divided by this, rounded up, as its input tokens (instead of the placeholder 10). A
   * real tokenizer counts about 4 bytes per token; below 3 the server counts more than the
   * host's bytes/3 estimate, above 3 fewer.
   */
  bytesPerInputToken?: number;
  /**
   * What the host's session-title requests (recognised by their system prompt) are answered
   * with, outside the script, so a scenario need not know when the host asks. Default
   * `Scripted session title`; a scripted response to fail or delay it.
   */
  sessionTitle?: string | ScriptedResponse;
}

type Wire = 'openai' | 'anthropic' | 'responses';

const MODEL_ROUTES: Record<string, Wire> = {
  '/v1/chat/completions': 'openai',
  '/chat/completions': 'openai',
  '/v1/messages': 'anthropic',
  '/v1/responses': 'responses',
};

export function loadScenarioFile(path: string): Scenario {
  return normalizeScenario(JSON.parse(readFileSync(path, 'utf8')) as Scenario);
}

export async function startLlmServer(
  input?: Scenario | ScriptedResponse[] | Scenario[] | string,
  options: LlmServerOptions = {},
): Promise<LlmServer> {
  let scenario = typeof input === 'string' ? loadScenarioFile(input) : normalizeScenario(input);
  let turnIndex = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `llm-server: ${String(err)}` } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    // Separate writes must reach the client as separate TCP segments for split-event tests.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    const pathname = path.split('?')[0] ?? '/';
    const body = parseBody(raw);
    const method = req.method ?? 'GET';

    if (pathname.startsWith('/__')) return control(method, pathname, body, res);

    const record: RecordedRequest = { method, path, headers: flatHeaders(req), body };
    requests.push(record);
    const wire = method === 'POST' ? MODEL_ROUTES[pathname] : undefined;
    if (wire && raw.includes(TITLE_SYSTEM)) {
      record.title = true;
      options.onRequest?.(record);
      const title = options.sessionTitle ?? 'Scripted session title';
      const reply = typeof title === 'string' ? { text: title } : title;
      return respond(wire, reply, body as Record<string, unknown> | undefined, 0, req, res);
    }
    if (wire) {
      const turn = scenario.turns[turnIndex];
      record.turn = turnIndex;
      turnIndex++;
      options.onRequest?.(record);
      if (!turn) {
        const message = `llm-server: no scripted response left for request #${turnIndex}`;
        return sendJson(
          res,
          500,
          wire === 'anthropic' ? anthropicError(500, message) : openAiError(500, message),
        );
      }
      const counted = withInputTokens(turn, raw, options.bytesPerInputToken);
      await respond(wire, counted, body as Record<string, unknown> | undefined, record.turn + 1, req, res);
      record.lastByteAt = performance.timeOrigin + performance.now();
      return;
    }
    options.onRequest?.(record);

    const route = scenario.routes?.[`${method} ${pathname}`];
    if (route) {
      return sendJson(res, route.status ?? 200, route.body ?? {}, route.headers);
    }
    if (method === 'GET' && (pathname === '/v1/models' || pathname === '/models')) {
      const models = scenario.models ?? ['scripted-model'];
      const isAnthropic = 'anthropic-version' in req.headers;
      return sendJson(res, 200, isAnthropic ? anthropicModels(models) : openAiModels(models));
    }
    sendJson(res, 404, openAiError(404, `llm-server: no route for ${method} ${pathname}`));
  }

  function control(method: string, pathname: string, body: unknown, res: ServerResponse): void {
    if (pathname === '/__requests') {
      sendJson(res, 200, requests);
    } else if (method === 'POST' && pathname === '/__scenario') {
      scenario = normalizeScenario(body as Scenario);
      turnIndex = 0;
      sendJson(res, 200, { ok: true, turns: scenario.turns.length });
    } else if (method === 'POST' && pathname === '/__turns') {
      scenario.turns.push(...(Array.isArray(body) ? body : [body]));
      sendJson(res, 200, { ok: true, remaining: scenario.turns.length - turnIndex });
    } else if (method === 'POST' && pathname === '/__reset') {
      requests.length = 0;
      sendJson(res, 200, { ok: true });
    } else {
      sendJson(res, 404, { error: 'unknown control route' });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    modelRequests: () => requests.filter((r) => r.turn !== undefined),
    push: (...turns) => {
      scenario.turns.push(...turns);
    },
    load: (next) => {
      scenario = normalizeScenario(next);
      turnIndex = 0;
    },
    remaining: () => Math.max(0, scenario.turns.length - turnIndex),
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function respond(
  wire: Wire,
  turn: ScriptedResponse,
  body: Record<string, unknown> | undefined,
  seq: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const model = typeof body?.model === 'string' ? body.model : 'scripted-model';
  if (turn.status !== undefined && turn.status >= 400) {
    const message = typeof turn.body === 'string' ? turn.body : `scripted error ${turn.status}`;
    const payload =
      turn.body !== undefined && typeof turn.body !== 'string'
        ? turn.body
        : wire === 'anthropic'
          ? anthropicError(turn.status, message)
          : openAiError(turn.status, message);
    return sendJson(res, turn.status, payload, turn.headers);
  }
  if (body?.stream !== true && !turn.events && !turn.raw) {
    const payload = turn.body ?? nonStreamed(wire, turn, model, seq);
    return sendJson(res, turn.status ?? 200, payload, turn.headers);
  }

  const nl = turn.crlf ? '\r\n' : '\n';
  let frames: string[];
  if (turn.raw) {
    frames = turn.raw;
  } else if (wire === 'anthropic' || wire === 'responses') {
    // Both APIs name every event: `event: <type>` before its data.
    const events =
      turn.events ??
      (wire === 'anthropic' ? anthropicEvents(turn, model, seq) : responsesEvents(turn, model, seq));
    frames = events.map((e) => {
      const type = (e as { type?: unknown }).type;
      return `event: ${typeof type === 'string' ? type : 'message'}${nl}data: ${JSON.stringify(e)}${nl}${nl}`;
    });
  } else {
    const options = body?.stream_options as { include_usage?: boolean } | undefined;
    const events = turn.events ?? openAiChunks(turn, model, options?.include_usage === true, seq);
    frames = events.map((e) => `data: ${JSON.stringify(e)}${nl}${nl}`);
    if (turn.done !== false) frames.push(`data: [DONE]${nl}${nl}`);
  }
  if (turn.garbage) frames = withGarbage(frames, nl);

  res.writeHead(turn.status ?? 200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...(wire === 'anthropic' ? { 'request-id': `req_scripted_${seq}` } : { 'x-request-id': `req_${seq}` }),
    ...turn.headers,
  });
  res.flushHeaders();

  let gone = false;
  req.on('close', () => {
    gone = true;
  });
  res.on('close', () => {
    gone = true;
  });
  for (let i = 0; i < frames.length; i++) {
    if (gone) return;
    if (turn.cutAfter !== undefined && i >= turn.cutAfter) {
      cut(res);
      return;
    }
    if (turn.delayMs) await sleep(turn.delayMs);
    const frame = frames[i] ?? '';
    if (turn.splitBytes) {
      const bytes = Buffer.from(frame, 'utf8');
      for (let at = 0; at < bytes.length; at += turn.splitBytes) {
        res.write(bytes.subarray(at, at + turn.splitBytes));
        // A timer tick lets the kernel send each slice as its own segment.
        await sleep(1);
      }
    } else {
      res.write(frame);
    }
  }
  if (turn.cutAfter !== undefined && turn.cutAfter >= frames.length) {
    cut(res);
    return;
  }
  if (turn.hang) return;
  res.end();
}

function withInputTokens(turn: ScriptedResponse, raw: string, bytesPerToken: number | undefined) {
  if (!bytesPerToken || turn.usage?.input !== undefined) return turn;
  const input = Math.ceil(Buffer.byteLength(raw, 'utf8') / bytesPerToken);
  return { ...turn, usage: { ...turn.usage, input } };
}

/** The whole answer as one JSON body, for requests without `stream: true`. */
function nonStreamed(wire: Wire, turn: ScriptedResponse, model: string, seq: number): unknown {
  if (wire === 'anthropic') return anthropicMessage(turn, model, seq);
  if (wire === 'openai') return openAiCompletion(turn, model, seq);
  // The Responses API's final event carries the complete response object.
  const last = responsesEvents(turn, model, seq).at(-1) as { response?: unknown } | undefined;
  return last?.response;
}

/**
 * Closes the connection once what was written has been sent, without the final empty chunk: the
 * client sees the data, then a connection that ends mid-response (destroy() would drop the data).
 */
function cut(res: ServerResponse): void {
  res.socket?.destroySoon();
}

function withGarbage(frames: string[], nl: string): string[] {
  const junk = [
    `: keep-alive${nl}${nl}`,
    `:${nl}${nl}`,
    `this line has no field${nl}${nl}`,
    `retry: 1000${nl}${nl}`,
  ];
  const out: string[] = [junk[0] ?? ''];
  frames.forEach((frame, i) => {
    out.push(frame);
    out.push(junk[(i + 1) % junk.length] ?? '');
  });
  return out;
}

function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
