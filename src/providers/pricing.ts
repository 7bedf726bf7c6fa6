/**
 * Cost of a usage record. Unknown prices give `undefined` so the UI can show "unknown" rather
 * than a misleading $0.00.
 */
import type { Message, Usage } from '../history/types.js';
import type { Price } from './model-table.js';
import type { ModelOptions } from './provider-config.js';

export function priceFromOptions(options: ModelOptions): Price | undefined {
  if (!options.price) return undefined;
  const p: Price = { input: options.price.input, output: options.price.output };
  if (options.price.cache_read !== undefined) p.cacheRead = options.price.cache_read;
  if (options.price.cache_write !== undefined) p.cacheWrite = options.price.cache_write;
  return p;
}

/** OpenRouter's `/models` prices are USD per token as strings. */
export function priceFromOpenRouter(pricing: unknown): Price | undefined {
  if (!pricing || typeof pricing !== 'object') return undefined;
  const p = pricing as Record<string, unknown>;
  const perM = (v: unknown) => {
    const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : Number.NaN;
    return Number.isFinite(n) && n >= 0 ? n * 1e6 : undefined;
  };
  const input = perM(p.prompt);
  const output = perM(p.completion);
  if (input === undefined || output === undefined) return undefined;
  const price: Price = { input, output };
  const read = perM(p.input_cache_read);
  const write = perM(p.input_cache_write);
  if (read !== undefined) price.cacheRead = read;
  if (write !== undefined) price.cacheWrite = write;
  return price;
}

/** USD; cache tokens fall back to the input price when the table has no cache price. */
export function costOf(usage: Usage, price: Price | undefined): number | undefined {
  if (!price) return undefined;
  const perM =
    usage.input * price.input +
    usage.output * price.output +
    usage.cacheRead * (price.cacheRead ?? price.input) +
    usage.cacheWrite * (price.cacheWrite ?? price.input);
  return perM / 1e6;
}

/** Sum of costs; unknown as soon as one part is unknown. */
export function addCosts(costs: Array<number | undefined>): number | undefined {
  let total = 0;
  for (const c of costs) {
    if (c === undefined) return undefined;
    total += c;
  }
  return total;
}

/**
 * Cost of every assistant message in a list (a turn or a whole session), each priced by the
 * provider and model that produced it. Unknown as soon as one message's price is unknown.
 */
export async function costOfMessages(
  messages: readonly Message[],
  priceOf: (providerId: string, model: string) => Promise<Price | undefined>,
): Promise<number | undefined> {
  const costs: Array<number | undefined> = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.usage) continue;
    costs.push(costOf(m.usage, await priceOf(m.provider, m.model)));
  }
  return addCosts(costs);
}
