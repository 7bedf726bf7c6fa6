import type { AssistantMessage } from '../../../src/history/types.js';
import type { ModelRequest, Provider, ProviderEvent, ToolSpec } from '../../../src/providers/provider.js';
import { ProviderError } from '../../../src/providers/provider-error.js';

export const TOOLS: ToolSpec[] = ['read_file', 'glob', 'search_code', 'shell'].map((name) => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: {}, additionalProperties: true },
}));

export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    system: 'You are a test.',
    messages: [{ role: 'user', id: 'u1', text: 'hi', createdAt: 0 }],
    tools: TOOLS,
    ...overrides,
  };
}

export interface StreamOutcome {
  events: ProviderEvent[];
  text: string;
  reasoning: string;
  message?: AssistantMessage;
  error?: ProviderError;
}

export async function runStream(
  provider: Provider,
  req: ModelRequest,
  signal = new AbortController().signal,
) {
  const out: StreamOutcome = { events: [], text: '', reasoning: '' };
  try {
    for await (const event of provider.stream(req, signal)) {
      out.events.push(event);
      if (event.type === 'text') out.text += event.text;
      if (event.type === 'reasoning') out.reasoning += event.text;
      if (event.type === 'done') out.message = event.message;
    }
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    out.error = err;
  }
  return out;
}

/** The value, or a test failure naming what was missing. */
export function must<T>(value: T | undefined | null, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`expected ${what}`);
  return value;
}
