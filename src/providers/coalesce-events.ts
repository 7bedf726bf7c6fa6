/**
 * Folds consecutive text, reasoning and same-call argument deltas into one event. Tokens that
 * arrived in the same network read reach the UI together anyway; one event instead of hundreds
 * saves the per-event async hops between the adapter and the agent loop.
 */
import type { ProviderEvent } from './provider.js';

export function coalesceEvents(events: ProviderEvent[]): ProviderEvent[] {
  if (events.length < 2) return events;
  const out: ProviderEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if (last && last.type === event.type) {
      if (
        (last.type === 'text' || last.type === 'reasoning') &&
        (event.type === 'text' || event.type === 'reasoning')
      ) {
        out[out.length - 1] = { type: last.type, text: last.text + event.text };
        continue;
      }
      if (last.type === 'tool_call_delta' && event.type === 'tool_call_delta' && last.index === event.index) {
        out[out.length - 1] = {
          type: 'tool_call_delta',
          index: last.index,
          argumentsDelta: last.argumentsDelta + event.argumentsDelta,
        };
        continue;
      }
    }
    out.push(event);
  }
  return out;
}
