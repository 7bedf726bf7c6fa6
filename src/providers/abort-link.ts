/**
 * One AbortController per attempt, aborted by the caller's signal or by an idle timeout (no
 * bytes for `idleMs`). Streams can legitimately run for minutes, so the limit is on silence,
 * not on total duration.
 */
export interface AbortLink {
  signal: AbortSignal;
  controller: AbortController;
  /** Call on every received event to restart the idle timer. */
  touch(): void;
  timedOut(): boolean;
  dispose(): void;
}

export function linkAbort(parent: AbortSignal, idleMs: number): AbortLink {
  const controller = new AbortController();
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      expired = true;
      controller.abort(new Error('idle timeout'));
    }, idleMs);
    // Never keep the process alive just for this timer.
    timer.unref();
  };
  arm();
  let last = Date.now();
  return {
    signal: controller.signal,
    controller,
    touch: () => {
      // Re-arming on every token costs more than it saves; once per 100 ms is plenty.
      const now = Date.now();
      if (now - last > 100) {
        last = now;
        arm();
      }
    },
    timedOut: () => expired,
    dispose: () => {
      if (timer) clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}
