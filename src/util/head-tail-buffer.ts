/**
 * Collects a byte stream up to a cap, keeping the first and the last halves. Output that keeps
 * flowing past the cap is still consumed (so the writer never blocks on a full pipe) but only the
 * tail window is retained: build errors and test summaries tend to be at the end.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly cap: number) {}

  get totalBytes(): number {
    return this.total;
  }

  get omittedBytes(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headCap = Math.ceil(this.cap / 2);
    if (this.headBytes < headCap) {
      const take = Math.min(headCap - this.headBytes, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    const tailCap = this.cap - headCap;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > tailCap && this.tail.length > 0) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - tailCap;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  /** Decoded text; invalid UTF-8 becomes U+FFFD so the result always serialises to valid JSON. */
  text(): string {
    const decoder = new TextDecoder('utf-8');
    const head = decoder.decode(Buffer.concat(this.head));
    if (this.omittedBytes === 0) return head + decoder.decode(Buffer.concat(this.tail));
    const tail = new TextDecoder('utf-8').decode(Buffer.concat(this.tail));
    return `${head}\n[... ${this.omittedBytes} bytes omitted ...]\n${tail}`;
  }
}
