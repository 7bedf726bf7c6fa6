import type { Logger } from '../util/logger.js';
import { redact } from '../util/redact.js';
import type { ResolvedModel } from './model-resolver.js';
import type { SessionRecorder } from './session-recorder.js';
import { TITLE_TIMEOUT_MS, titleFromModel } from './session-title-model.js';

/**
 * Runs the model's title request for a session in the background: at most one at a time,
 * cancelled on clear, resume and shutdown, and never failing anything (errors are only logged).
 */
export class SessionTitler {
  private inFlight: AbortController | undefined;

  constructor(private readonly logger: Logger) {}

  /**
   * The model's short title replaces the heuristic one of the recorder's session, unless the
   * user renamed the session meanwhile.
   */
  refine(recorder: SessionRecorder, target: ResolvedModel, prompt: string, answer: string): void {
    const session = recorder.titleInfo();
    if (!session) return;
    this.cancel();
    const controller = new AbortController();
    this.inFlight = controller;
    titleFromModel({
      provider: target.provider,
      model: target.model,
      prompt,
      answer,
      signal: AbortSignal.any([controller.signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)]),
    })
      .then((title) => (title ? recorder.retitle(session.id, session.title, title) : undefined))
      .catch((err: unknown) => {
        if (!controller.signal.aborted)
          this.logger.warn('no session title from the model:', redact(String(err)));
      })
      .finally(() => {
        if (this.inFlight === controller) this.inFlight = undefined;
      });
  }

  cancel(): void {
    this.inFlight?.abort();
  }
}
