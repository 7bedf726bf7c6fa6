import type { ModelCatalog } from './model-catalog.js';
import type { Price } from './model-table.js';
import type { ModelInfo } from './provider.js';
import { toProviderError } from './provider-error.js';

/**
 * What every provider answers from its model catalog (the server's list, context windows,
 * prices); subclasses only say how to reach the server and how to stream.
 */
export abstract class CatalogProvider {
  abstract readonly id: string;
  abstract readonly catalog: ModelCatalog;

  get defaultModel(): string | undefined {
    return this.catalog.defaultModel;
  }

  listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    return this.catalog.list(signal).catch((err: unknown) => {
      throw toProviderError(err, this.id, signal);
    });
  }

  contextWindow(model: string, signal?: AbortSignal): Promise<number> {
    return this.catalog.contextWindow(model, signal);
  }

  price(model: string): Promise<Price | undefined> {
    return this.catalog.price(model);
  }
}
