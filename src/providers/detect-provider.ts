/**
 * First run without configuration: pick a provider from what this machine offers.
 * Order: `AGENT_NVIM_BASE_URL` (an OpenAI-compatible endpoint, used by tests and benchmarks),
 * then `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `OPENROUTER_API_KEY`, then a local Ollama (11434),
 * llama.cpp (8080) or LM Studio (1234) answering on 127.0.0.1, probed in parallel with a short
 * timeout. A local server counts only when it lists at least one model.
 */
import type { ProviderConfig } from './provider-config.js';

export interface DetectedProvider {
  id: string;
  config: ProviderConfig;
  model: string;
}

/** GETs JSON from a URL; undefined when nothing answers in time. Injectable for tests. */
export type Probe = (url: string, timeoutMs: number) => Promise<unknown>;

export const httpProbe: Probe = async (url, timeoutMs) => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok ? await res.json() : undefined;
  } catch {
    return undefined;
  }
};

const PROBE_TIMEOUT_MS = 400;

function firstId(body: unknown, list: 'data' | 'models', key: 'id' | 'name' | 'model'): string | undefined {
  const items = (body as Record<string, unknown> | undefined)?.[list];
  if (!Array.isArray(items)) return undefined;
  for (const item of items) {
    const id = (item as Record<string, unknown> | undefined)?.[key];
    if (typeof id === 'string' && id) return id;
  }
  return undefined;
}

const LOCAL_SERVERS: Array<{
  id: string;
  type: ProviderConfig['type'];
  baseUrl: string;
  probeUrl: string;
  pick: (body: unknown) => string | undefined;
}> = [
  {
    id: 'ollama',
    type: 'ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    probeUrl: 'http://127.0.0.1:11434/api/tags',
    pick: (b) => firstId(b, 'models', 'name') ?? firstId(b, 'models', 'model'),
  },
  {
    id: 'llamacpp',
    type: 'llamacpp',
    baseUrl: 'http://127.0.0.1:8080/v1',
    probeUrl: 'http://127.0.0.1:8080/v1/models',
    pick: (b) => firstId(b, 'data', 'id') ?? firstId(b, 'models', 'model'),
  },
  {
    id: 'lmstudio',
    type: 'lmstudio',
    baseUrl: 'http://127.0.0.1:1234/v1',
    probeUrl: 'http://127.0.0.1:1234/v1/models',
    pick: (b) => firstId(b, 'data', 'id'),
  },
];

export async function detectProvider(
  env: NodeJS.ProcessEnv = process.env,
  probe: Probe = httpProbe,
): Promise<DetectedProvider | undefined> {
  const wanted = env.AGENT_NVIM_MODEL || undefined;
  const baseUrl = env.AGENT_NVIM_BASE_URL;
  if (baseUrl) {
    const config: ProviderConfig = { type: 'openai_compatible', base_url: baseUrl.replace(/\/+$/, '') };
    if (env.AGENT_NVIM_API_KEY) config.api_key = env.AGENT_NVIM_API_KEY;
    const model =
      wanted ?? firstId(await probe(`${config.base_url}/models`, 2000), 'data', 'id') ?? 'default';
    return { id: 'env', config, model };
  }
  if (env.ANTHROPIC_API_KEY) {
    return { id: 'anthropic', config: { type: 'anthropic' }, model: wanted ?? 'claude-sonnet-4-5' };
  }
  if (env.OPENAI_API_KEY) return { id: 'openai', config: { type: 'openai' }, model: wanted ?? 'gpt-4.1' };
  if (env.OPENROUTER_API_KEY) {
    return {
      id: 'openrouter',
      config: { type: 'openrouter' },
      model: wanted ?? 'anthropic/claude-sonnet-4.5',
    };
  }
  const answers = await Promise.all(LOCAL_SERVERS.map((s) => probe(s.probeUrl, PROBE_TIMEOUT_MS)));
  for (const [i, server] of LOCAL_SERVERS.entries()) {
    const model = answers[i] === undefined ? undefined : server.pick(answers[i]);
    if (model) {
      return {
        id: server.id,
        config: { type: server.type, base_url: server.baseUrl },
        model: wanted ?? model,
      };
    }
  }
  return undefined;
}
