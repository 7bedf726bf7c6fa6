/**
 * What a provider knows about its models: the list ("browse": the server's models merged with
 * the user's own list), context windows (user override → built-in table → the server) and
 * prices (user override → the server's list → built-in table). The server's list is cached for
 * lookups and refreshed by `list()`; a failed answer is not cached so a server started later is
 * found.
 */
import type { Usage } from '../history/types.js';
import { contextFromModelEntry } from './context-discovery.js';
import { builtinContextWindow, builtinPrice, type Price } from './model-table.js';
import { costOf, priceFromOpenRouter, priceFromOptions } from './pricing.js';
import type { ModelInfo, ProviderType } from './provider.js';
import { configuredModels, modelOptions, type ProviderConfig } from './provider-config.js';

type Json = Record<string, unknown>;

export interface CatalogSource {
  /** Raw `/models` entries from the server. */
  list(signal?: AbortSignal): Promise<Json[]>;
  /** Server-specific context lookup beyond the list (LM Studio, Ollama, llama.cpp). */
  nativeContext?(model: string, signal?: AbortSignal): Promise<number>;
}

export class ModelCatalog {
  private entries: Promise<Json[]> | undefined;
  private readonly nativeCache = new Map<string, number>();

  constructor(
    private readonly type: ProviderType,
    private readonly config: ProviderConfig,
    private readonly source: CatalogSource,
  ) {}

  get defaultModel(): string | undefined {
    return this.config.default_model ?? configuredModels(this.config)[0];
  }

  private serverEntries(signal?: AbortSignal): Promise<Json[]> {
    if (!this.entries) {
      const pending = this.source.list(signal);
      this.entries = pending;
      pending.catch(() => {
        if (this.entries === pending) this.entries = undefined;
      });
    }
    return this.entries;
  }

  /** Always asks the server again: the picker should show models loaded since the last look. */
  async list(signal?: AbortSignal): Promise<ModelInfo[]> {
    this.entries = undefined;
    const mine = configuredModels(this.config);
    let server: Json[] = [];
    try {
      server = await this.serverEntries(signal);
    } catch (err) {
      // Without a server list the user's own list is still useful; with neither, say why.
      if (mine.length === 0) throw err;
    }
    const out = new Map<string, ModelInfo>();
    for (const id of mine) {
      out.set(id, {
        id,
        contextWindow: modelOptions(this.config, id).context_window ?? builtinContextWindow(id) ?? 0,
        configured: true,
      });
    }
    for (const entry of server) {
      const id = typeof entry.id === 'string' ? entry.id : undefined;
      if (!id || out.has(id)) continue;
      out.set(id, { id, contextWindow: builtinContextWindow(id) ?? contextFromModelEntry(entry) });
    }
    return [...out.values()];
  }

  async contextWindow(model: string, signal?: AbortSignal): Promise<number> {
    const override = modelOptions(this.config, model).context_window;
    if (override) return override;
    const builtin = builtinContextWindow(model);
    if (builtin) return builtin;
    try {
      const entry = (await this.serverEntries(signal)).find((e) => e.id === model);
      const inline = entry ? contextFromModelEntry(entry) : 0;
      if (inline) return inline;
    } catch {
      // fall through to the native route
    }
    if (!this.source.nativeContext) return 0;
    const cached = this.nativeCache.get(model);
    if (cached !== undefined) return cached;
    const found = await this.source.nativeContext(model, signal);
    if (found) this.nativeCache.set(model, found);
    return found;
  }

  /** Price per million tokens, or undefined when unknown. Uses only cached server data. */
  async price(model: string): Promise<Price | undefined> {
    const own = priceFromOptions(modelOptions(this.config, model));
    if (own) return own;
    if (this.type === 'openrouter') {
      try {
        const entry = (await this.serverEntries()).find((e) => e.id === model);
        const p = priceFromOpenRouter(entry?.pricing);
        if (p) return p;
      } catch {
        return undefined;
      }
    }
    return builtinPrice(this.type, model);
  }

  async cost(model: string, usage: Usage): Promise<number | undefined> {
    return costOf(usage, await this.price(model));
  }
}
