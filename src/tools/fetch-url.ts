import { z } from 'zod';
import { htmlToText } from '../util/html-to-text.js';
import { defineTool } from './define-tool.js';
import { requestPermission } from './permission.js';
import { fail } from './tool-error.js';

const MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024;
const MAX_TEXT_CHARS = 100_000;
const TIMEOUT_MS = 30_000;

export const fetchUrlTool = defineTool({
  name: 'fetch_url',
  aliases: ['fetch', 'web_fetch', 'read_url'],
  description: [
    'Fetch an http(s) URL and return its main text (HTML is reduced to readable Markdown-like text;',
    'JSON and plain text come back as they are), at most 100k characters. For documentation and',
    "references; needs the user's permission.",
  ].join(' '),
  schema: z.object({
    url: z.string().min(1).describe('An http:// or https:// URL.'),
  }),
  argAliases: { uri: 'url', link: 'url' },
  modes: ['agent'],
  mutates: false,
  async execute(args, ctx) {
    let url: URL;
    try {
      url = new URL(args.url);
    } catch {
      return fail('invalid_args', `"${args.url}" is not a valid URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return fail('invalid_args', 'Only http:// and https:// URLs can be fetched.');
    }
    const denied = await requestPermission(ctx, { pattern: url.host, summary: `Fetch ${url.href}` });
    if (denied) return denied;
    let response: Response;
    try {
      response = await fetch(url, {
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)]),
        redirect: 'follow',
        headers: { accept: 'text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5' },
      });
    } catch (err) {
      if (ctx.signal.aborted) return fail('cancelled', 'The user stopped the fetch.');
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      return fail('http', `Fetching ${url.href} failed: ${cause ?? (err as Error).message}`);
    }
    if (!response.ok) {
      return fail('http', `${url.href} answered ${response.status} ${response.statusText}.`, {
        status: response.status,
      });
    }
    const type = response.headers.get('content-type') ?? '';
    if (!/text|json|xml|javascript/i.test(type) && type !== '') {
      await response.body?.cancel();
      return fail('unsupported', `${url.href} is ${type}, not text.`);
    }
    const { bytes, cut } = await readCapped(response);
    const raw = new TextDecoder('utf-8').decode(bytes);
    const page =
      /html/i.test(type) || /^\s*<(!doctype html|html)/i.test(raw) ? htmlToText(raw) : { text: raw };
    const result: Record<string, unknown> = {
      url: response.url || url.href,
      status: response.status,
      content_type: type,
      ...(page.title ? { title: page.title } : {}),
      text: page.text.slice(0, MAX_TEXT_CHARS),
    };
    if (cut || page.text.length > MAX_TEXT_CHARS) result.truncated = true;
    return result;
  },
});

async function readCapped(response: Response): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), cut: false };
    chunks.push(value);
    total += value.length;
    if (total >= MAX_DOWNLOAD_BYTES) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks).subarray(0, MAX_DOWNLOAD_BYTES), cut: true };
    }
  }
}
