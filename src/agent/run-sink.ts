/** Where a run reports what the user should see; the host turns these into UI dispatches. */
export interface RunSink {
  started(id: string, model: string): void;
  text(id: string, text: string): void;
  reasoning(id: string, text: string): void;
  notice(text: string, level: 'info' | 'warn' | 'error'): void;
  done(id: string, outcome: 'done' | 'failed' | 'cancelled', error?: string): void;
}
