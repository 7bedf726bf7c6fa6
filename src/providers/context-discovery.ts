/**
 * Reads a model's context window from the server itself, per flavor:
 *   vLLM `max_model_len` / OpenRouter `context_length` / Anthropic `max_input_tokens` inline in
 *   the model list;
 *   LM Studio `GET /api/v1/models` (the loaded instance's `context_length`, else `max_context_length`);
 *   Ollama `POST /api/show` (`model_info["<arch>.context_length"]`; a `num_ctx` in the model's
 *   parameters wins, because it is what the runtime actually allocates);
 *   llama.cpp `GET /props` (`default_generation_settings.n_ctx`).
 * Any failure means unknown (0).
 */
import type { Flavor } from './flavors.js';

type Json = Record<string, unknown>;

function positive(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** The server root for native (non-/v1) routes. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * A `/v1/models` entry's inline context window. llama.cpp's `meta.n_ctx_train` is deliberately
 * ignored: it is the training length, not what the running server allocated (`/props`).
 */
export function contextFromModelEntry(entry: Json): number {
  const top = entry.top_provider as Json | undefined;
  return (
    positive(entry.max_model_len) ||
    positive(entry.context_length) ||
    positive(entry.context_window) ||
    positive(entry.max_input_tokens) ||
    positive(top?.context_length)
  );
}

export function contextFromLmStudio(body: unknown, model: string): number {
  const b = (body ?? {}) as Json;
  const list = (Array.isArray(b.models) ? b.models : Array.isArray(b.data) ? b.data : []) as Json[];
  const entry = list.find((m) => m.key === model || m.id === model || m.model_key === model);
  if (!entry) return 0;
  const instances = (Array.isArray(entry.loaded_instances) ? entry.loaded_instances : []) as Json[];
  for (const inst of instances) {
    const n = positive((inst.config as Json | undefined)?.context_length) || positive(inst.context_length);
    if (n) return n;
  }
  return positive(entry.loaded_context_length) || positive(entry.max_context_length);
}

export function contextFromOllamaShow(body: unknown): number {
  const b = (body ?? {}) as Json;
  const params = typeof b.parameters === 'string' ? b.parameters : '';
  const numCtx = /^\s*num_ctx\s+(\d+)/m.exec(params)?.[1];
  if (numCtx) return positive(numCtx);
  const info = (b.model_info ?? {}) as Json;
  const arch = info['general.architecture'];
  if (typeof arch === 'string' && positive(info[`${arch}.context_length`]))
    return positive(info[`${arch}.context_length`]);
  for (const [key, value] of Object.entries(info)) {
    if (key.endsWith('.context_length') && positive(value)) return positive(value);
  }
  return 0;
}

export function contextFromLlamaCppProps(body: unknown): number {
  const b = (body ?? {}) as Json;
  return positive((b.default_generation_settings as Json | undefined)?.n_ctx) || positive(b.n_ctx);
}

async function getJson(url: string, init: RequestInit, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(5000);
  const res = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  if (!res.ok) throw new Error(`${res.status}`);
  return res.json();
}

/** Native-route discovery for the local servers; 0 when the server does not say. */
export async function discoverNativeContext(
  flavor: Flavor,
  baseUrl: string,
  model: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<number> {
  const root = serverRoot(baseUrl);
  try {
    switch (flavor.contextSource) {
      case 'lmstudio':
        return contextFromLmStudio(await getJson(`${root}/api/v1/models`, { headers }, signal), model);
      case 'ollama':
        return contextFromOllamaShow(
          await getJson(
            `${root}/api/show`,
            {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ model }),
            },
            signal,
          ),
        );
      case 'llamacpp':
        return contextFromLlamaCppProps(await getJson(`${root}/props`, { headers }, signal));
      default:
        return 0;
    }
  } catch {
    return 0;
  }
}
