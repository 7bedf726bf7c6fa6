/**
 * Server-sent events from a fetch body, delivered as one batch per network read. The SDK's own
 * iterator yields one event per async step; batching lets the adapter fold a read's worth of
 * tokens into a single UI event, which is what keeps provider overhead near a bare SDK loop.
 * Follows the SSE spec's line rules: LF, CR or CRLF endings (a CR split from its LF across reads
 * included), comments, `event:`/`data:` fields, multi-line data, and a line cut off at the end
 * of the body dropped.
 */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private heldCr = false;
  private data: string[] = [];
  private event: string | undefined;

  /** Decodes one read; multi-byte characters split across reads are completed by the decoder. */
  push(bytes: Uint8Array): SseMessage[] {
    return this.feed(this.decoder.decode(bytes, { stream: true }));
  }

  /**
   * End of body. A line cut off mid-way is dropped; an event whose lines all arrived but whose
   * closing blank line did not (some servers end with `data: [DONE]\n`) is still delivered.
   */
  end(): SseMessage[] {
    const out = this.feed(this.decoder.decode());
    if (this.heldCr) {
      this.heldCr = false;
      out.push(...this.feed('\n'));
    }
    this.buffer = '';
    if (this.data.length) out.push({ event: this.event, data: this.data.join('\n') });
    this.data = [];
    this.event = undefined;
    return out;
  }

  private feed(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.heldCr) {
      text = `\r${text}`;
      this.heldCr = false;
    }
    // A CR at the end may be the first half of a CRLF: decide when the next read arrives.
    if (text.endsWith('\r')) {
      this.heldCr = true;
      text = text.slice(0, -1);
    }
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    this.buffer += text;
    const out: SseMessage[] = [];
    let start = 0;
    for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n', start)) {
      this.line(this.buffer.slice(start, nl), out);
      start = nl + 1;
    }
    this.buffer = start === 0 ? this.buffer : this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.data.length || this.event !== undefined) {
        out.push({ event: this.event, data: this.data.join('\n') });
      }
      this.data = [];
      this.event = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

/** The body as batches of events, one per network read, then whatever `end()` completes. */
export async function* sseBatches(
  body: AsyncIterable<Uint8Array>,
  onRead?: () => void,
): AsyncGenerator<SseMessage[]> {
  const parser = new SseParser();
  for await (const bytes of body) {
    onRead?.();
    const batch = parser.push(bytes);
    if (batch.length) yield batch;
  }
  const rest = parser.end();
  if (rest.length) yield rest;
}
