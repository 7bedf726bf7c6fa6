/**
 * Questions sent to Lua whose answers come back later as notifications (permission replies,
 * ask_user answers, LSP results). Nothing blocks while the user thinks: each question is a
 * promise, settled by the matching reply or by the run's abort.
 */
export class PendingReplies<T> {
  private readonly waiting = new Map<string, { resolve(value: T): void; reject(err: Error): void }>();
  private next = 0;

  newId(prefix: string): string {
    this.next += 1;
    return `${prefix}${this.next}`;
  }

  wait(id: string, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new Error('cancelled'));
        return;
      }
      const onAbort = () => {
        this.waiting.delete(id);
        reject(new Error('cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject,
      });
    });
  }

  /** Settles the question; false when nobody waits for this id (stale or duplicate reply). */
  settle(id: string, value: T): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    this.waiting.delete(id);
    entry.resolve(value);
    return true;
  }

  /** Rejects the question with `err`; false when nobody waits for this id. */
  fail(id: string, err: Error): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    this.waiting.delete(id);
    entry.reject(err);
    return true;
  }

  ids(): string[] {
    return [...this.waiting.keys()];
  }
}
