import { estimateTextTokens } from '../history/index.js';
import type { ToolListing, ToolRegistry } from '../tools/registry.js';
import type { Mode } from '../tools/tool-context.js';
import { patchDialectFor } from './patch-dialect.js';

export interface ModeTools {
  tools: ToolListing[];
  /** Estimated size of the declarations in tokens, for the budget. */
  tokens: number;
}

/**
 * The tools each mode offers, described for the patch format the model writes best, with their
 * JSON Schemas; built once per mode and dialect because serialising them is not free.
 */
export class ToolListings {
  private readonly cache = new Map<string, ModeTools>();

  constructor(private readonly registry: ToolRegistry) {}

  for(mode: Mode, model: string): ModeTools {
    const dialect = patchDialectFor(model);
    const key = `${mode}:${dialect}`;
    let listing = this.cache.get(key);
    if (!listing) {
      const tools = this.registry.list(mode, dialect);
      listing = { tools, tokens: estimateTextTokens(JSON.stringify(tools)) };
      this.cache.set(key, listing);
    }
    return listing;
  }
}
