/**
 * Coalesces streamed deltas into at most one flush per frame: a model emitting hundreds of tokens
 * a second must not cost Neovim hundreds of redraws a second.
 */
export interface StreamChunk {
  text: string;
  reasoning: string;
}

export class StreamBatcher {
  private pending = new Map<string, StreamChunk>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flushTo: (id: string, chunk: StreamChunk) => void,
    private readonly intervalMs = 30,
  ) {}

  push(id: string, delta: Partial<StreamChunk>): void {
    const chunk = this.pending.get(id) ?? { text: '', reasoning: '' };
    chunk.text += delta.text ?? '';
    chunk.reasoning += delta.reasoning ?? '';
    this.pending.set(id, chunk);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends whatever is pending now; called on a timer and before a run reports its end. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    for (const [id, chunk] of batch) {
      if (chunk.text || chunk.reasoning) this.flushTo(id, chunk);
    }
  }
}
