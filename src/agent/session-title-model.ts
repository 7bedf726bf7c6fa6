/**
 * A session's title from the model, after its first completed turn. The heuristic title from the
 * first prompt is there at once; this only refines it. It is one small request with tools off
 * and a tiny output limit, and it never holds up or fails a run: the caller starts it in the
 * background and only logs what goes wrong.
 */
import { localId } from '../history/conversation.js';
import type { Provider } from '../providers/provider.js';

/** Output cap of the title request: six words and some slack for a stray quote or reasoning. */
export const TITLE_MAX_TOKENS = 32;
/** A title that has not arrived by then is not worth waiting for. */
export const TITLE_TIMEOUT_MS = 15_000;
const MAX_WORDS = 6;
const MAX_CHARS = 60;
/** How much of the first exchange the title request carries. */
const PROMPT_CHARS = 2000;
const ANSWER_CHARS = 1000;

export const TITLE_SYSTEM =
  'You name coding sessions. Reply with a title of at most six words for the conversation below: plain words, no quotes, no final punctuation, nothing else.';

export async function titleFromModel(input: {
  provider: Provider;
  model: string;
  prompt: string;
  answer: string;
  signal: AbortSignal;
}): Promise<string | undefined> {
  const text = [
    `User:\n${input.prompt.slice(0, PROMPT_CHARS)}`,
    input.answer ? `Agent:\n${input.answer.slice(0, ANSWER_CHARS)}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  let reply = '';
  for await (const event of input.provider.stream(
    {
      model: input.model,
      system: TITLE_SYSTEM,
      messages: [{ role: 'user', id: localId('msg_'), text, createdAt: Date.now() }],
      tools: [],
      maxTokens: TITLE_MAX_TOKENS,
    },
    input.signal,
  )) {
    if (event.type === 'done') reply = event.message.text;
  }
  return cleanTitle(reply);
}

/** The title in a model's reply: its first line without quotes, labels or Markdown, six words. */
export function cleanTitle(reply: string): string | undefined {
  const line = reply
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return undefined;
  const words = line
    .replace(/^(session\s+)?title\s*:\s*/i, '')
    // Curly quotes as escapes: esbuild keeps a regex's characters as written, and one non-ASCII
    // character makes V8 hold the whole bundle's source as two-byte strings (megabytes of RSS).
    .replace(/[`*_#"\u201C\u201D\u2018\u2019]/g, '')
    .replace(/^'+|'+$/g, '')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, MAX_WORDS);
  const title = words
    .join(' ')
    .slice(0, MAX_CHARS)
    .replace(/[\s.,;:!?-]+$/, '');
  return title || undefined;
}
