/**
 * Token usage arithmetic: per request (what the provider reported), per turn (the requests of
 * one user prompt) and per session (every assistant message in the history).
 */
import type { History, Usage } from './types.js';

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return { ...a };
  const sum: Usage = {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
  if (a.reasoning !== undefined || b.reasoning !== undefined)
    sum.reasoning = (a.reasoning ?? 0) + (b.reasoning ?? 0);
  return sum;
}

/** Usage of the last turn: every assistant message after the last user message. */
export function turnUsage(history: History): Usage {
  let total = emptyUsage();
  for (let i = history.messages.length - 1; i >= 0; i--) {
    const m = history.messages[i];
    if (!m || m.role === 'user') break;
    if (m.role === 'assistant') total = addUsage(total, m.usage);
  }
  return total;
}

export function sessionUsage(history: History): Usage {
  let total = emptyUsage();
  for (const m of history.messages) if (m.role === 'assistant') total = addUsage(total, m.usage);
  return total;
}
