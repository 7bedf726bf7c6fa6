import { type HostConfig, splitModelRef } from '../config/schema.js';
import { createProvider } from '../providers/create-provider.js';
import { detectProvider, httpProbe, type Probe } from '../providers/detect-provider.js';
import type { Provider } from '../providers/provider.js';
import type { Logger } from '../util/logger.js';

export interface ResolvedModel {
  provider: Provider;
  model: string;
}

/**
 * Which provider and model a prompt goes to: the one named ("<provider>/<model>"), else the
 * configured default, else the first configured provider's default model, else what this
 * machine offers (detectProvider). Providers are built once per configuration; context windows
 * are discovered in the background and remembered.
 */
export class ModelResolver {
  private providers = new Map<string, Provider>();
  private detected: Promise<ResolvedModel | undefined> | undefined;
  private readonly windows = new Map<string, number>();
  private readonly discovering = new Set<string>();

  constructor(
    private config: HostConfig,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
  ) {}

  /** A new configuration: providers, detection and known windows start over. */
  reset(config: HostConfig): void {
    this.config = config;
    this.providers.clear();
    this.detected = undefined;
    this.windows.clear();
    this.discovering.clear();
  }

  async resolve(ref: string | undefined): Promise<ResolvedModel | undefined> {
    if (ref) {
      const parts = splitModelRef(ref);
      const entry = parts ? this.config.providers[parts.provider] : undefined;
      if (parts && !entry) {
        // A model of the provider found without configuration (picked from its list).
        const detected = await this.detect();
        if (detected?.provider.id === parts.provider)
          return { provider: detected.provider, model: parts.model };
      }
      if (!parts || !entry) {
        throw new Error(
          `The model "${ref}" names no configured provider; add it under setup({ providers = ... }).`,
        );
      }
      return { provider: this.provider(parts.provider, entry), model: parts.model };
    }
    for (const [id, entry] of Object.entries(this.config.providers)) {
      const provider = this.provider(id, entry);
      if (provider.defaultModel) return { provider, model: provider.defaultModel };
    }
    return this.detect();
  }

  /** A provider already built for this configuration, by id (for pricing past messages). */
  byId(id: string): Provider | undefined {
    return this.providers.get(id);
  }

  /**
   * The model's context window once discovered. Discovery may ask the server; callers do not
   * wait for it (0 until the answer is in).
   */
  knownWindow(target: ResolvedModel): number {
    const key = `${target.provider.id}/${target.model}`;
    const known = this.windows.get(key);
    if (known !== undefined) return known;
    if (!this.discovering.has(key)) {
      this.discovering.add(key);
      target.provider
        .contextWindow(target.model)
        .catch(() => 0)
        .then((w) => this.windows.set(key, w));
    }
    return 0;
  }

  /** Every model the configured (or detected) providers offer, for the model picker. */
  async listModels(): Promise<{ ref: string; context_window: number }[]> {
    const providers = Object.entries(this.config.providers).map(([id, entry]) => this.provider(id, entry));
    if (providers.length === 0) {
      const detected = await this.resolve(undefined).catch(() => undefined);
      if (detected) providers.push(detected.provider);
    }
    const lists = await Promise.all(
      providers.map(async (p) => {
        const models = await p.listModels(AbortSignal.timeout(5000)).catch((err: unknown) => {
          this.logger.warn(`listing models of ${p.id} failed:`, err instanceof Error ? err.message : err);
          return [];
        });
        return models.map((m) => ({ ref: `${p.id}/${m.id}`, context_window: m.contextWindow }));
      }),
    );
    return lists.flat();
  }

  private detect(): Promise<ResolvedModel | undefined> {
    this.detected ??= detectProvider(this.env, this.probe()).then((found) =>
      found ? { provider: createProvider(found.id, found.config, this.env), model: found.model } : undefined,
    );
    return this.detected;
  }

  /** AGENT_NVIM_NO_PROBE keeps tests from finding a developer's local model server by accident. */
  private probe(): Probe {
    if (!this.env.AGENT_NVIM_NO_PROBE) return httpProbe;
    const allowed = this.env.AGENT_NVIM_BASE_URL;
    return async (url, timeoutMs) =>
      allowed && url.startsWith(allowed) ? httpProbe(url, timeoutMs) : undefined;
  }

  private provider(id: string, entry: HostConfig['providers'][string]): Provider {
    let provider = this.providers.get(id);
    if (!provider) {
      provider = createProvider(id, entry, this.env);
      this.providers.set(id, provider);
    }
    return provider;
  }
}
