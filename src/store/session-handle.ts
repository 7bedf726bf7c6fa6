/**
 * The writer of one session. The host holds it while the session is the chat's: every committed
 * message goes through `append`, every later change of a message (tool states and results)
 * through `update`, compaction through `replace`, and mode/model/todos/plan/usage through
 * `setMeta`. Each call resolves once its event is synced to the log.
 */
import type { Message, ToolCall } from '../history/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { CheckpointLog } from './checkpoints.js';
import type { LogSize } from './log-size.js';
import { scrubSecrets } from './scrub-secrets.js';
import type { SessionFiles } from './session-files.js';
import type { SessionLock } from './session-lock.js';
import { type LogWriter, readSessionLog, rewriteLog } from './session-log.js';
import type { LogEvent, MetaPatch, SessionMeta } from './types.js';

/** The last recorded form of a message, to log only what changed on `update`. */
interface Known {
  body: string;
  calls: Map<string, string>;
}

function knownOf(message: Message): Known {
  if (message.role !== 'assistant') return { body: JSON.stringify(message), calls: new Map() };
  const { toolCalls, ...body } = message;
  return { body: JSON.stringify(body), calls: new Map(toolCalls.map((c) => [c.id, JSON.stringify(c)])) };
}

export class SessionHandle {
  private known = new Map<string, Known>();
  private closed = false;
  private snapshots: Promise<void> = Promise.resolve();

  constructor(
    private readonly meta: SessionMeta,
    readonly files: SessionFiles,
    private readonly writer: LogWriter,
    private readonly lock: SessionLock,
    /** Undo/redo of the files this session's runs changed. */
    readonly checkpoints: CheckpointLog,
    messages: Message[],
    private readonly now: () => number,
    private readonly onClose: () => void,
    /** How much of the log still counts, kept up to date with each line written. */
    private readonly size: LogSize,
  ) {
    for (const m of messages) this.known.set(m.id, knownOf(m));
  }

  get id(): string {
    return this.meta.id;
  }

  /** A copy of the current metadata. */
  info(): SessionMeta {
    return structuredClone(this.meta);
  }

  /** Records a committed message; a message already recorded is treated as `update`. */
  append(message: Message): Promise<void> {
    if (this.known.has(message.id)) return this.update(message);
    const clean = scrubSecrets(message);
    this.known.set(clean.id, knownOf(clean));
    return this.log([{ type: 'message', at: this.touch(), message: clean }]);
  }

  /**
   * Records a changed message. For an assistant message whose only change is in its tool calls
   * (the usual case: a state or a result arrived) only those calls are logged, so a turn with
   * many large results is not written again with each one.
   */
  update(message: Message): Promise<void> {
    const clean = scrubSecrets(message);
    const prev = this.known.get(clean.id);
    const next = knownOf(clean);
    this.known.set(clean.id, next);
    if (prev && clean.role === 'assistant' && prev.body === next.body && callsOnlyGrew(prev, next)) {
      const changed: ToolCall[] = clean.toolCalls.filter(
        (c) => prev.calls.get(c.id) !== next.calls.get(c.id),
      );
      if (changed.length === 0) return Promise.resolve();
      return this.log([{ type: 'calls', at: this.touch(), messageId: clean.id, calls: changed }]);
    }
    if (prev && prev.body === next.body && clean.role !== 'assistant') return Promise.resolve();
    return this.log([{ type: prev ? 'replace' : 'message', at: this.touch(), message: clean }]);
  }

  /**
   * Replaces messages (compaction): `remove` ids give way to `insert`, placed where the first
   * removed message was. Call it once the new history is final, not per summary batch.
   */
  replace(remove: string[], insert: Message[]): Promise<void> {
    const clean = insert.map((m) => scrubSecrets(m));
    for (const id of remove) this.known.delete(id);
    for (const m of clean) this.known.set(m.id, knownOf(m));
    return this.log([{ type: 'splice', at: this.touch(), remove, insert: clean }]);
  }

  /**
   * Changes metadata; logged first, then the small snapshot `list` reads is rewritten. Memory is
   * updated at once, so changes made meanwhile see it and land in the log in the same order.
   */
  async setMeta(patch: MetaPatch): Promise<void> {
    const clean = scrubSecrets(patch);
    const logged = this.log([{ type: 'meta', at: this.touch(), patch: clean }]);
    Object.assign(this.meta, clean);
    await logged;
    await this.writeSnapshot();
  }

  /**
   * A title found later (the model's) replaces `expected` only: a title the user gave meanwhile
   * stays. Returns whether it was set.
   */
  async retitle(title: string, expected: string): Promise<boolean> {
    if (this.meta.title !== expected) return false;
    await this.setMeta({ title });
    return true;
  }

  /** Rewrites `<id>.meta.json` from memory (also used right after creation). */
  writeSnapshot(): Promise<void> {
    this.meta.messages = this.known.size;
    // Chained and serialised when its turn comes: two overlapping renames could otherwise land
    // out of order and leave the older snapshot in place.
    const next = this.snapshots.then(() =>
      writeFileAtomic(this.files.meta, `${JSON.stringify(this.meta)}\n`),
    );
    this.snapshots = next.catch(() => {});
    return next;
  }

  /** Flushes and releases the session for other instances. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    try {
      await this.checkpoints.flush();
      await this.writer.close();
      await this.writeSnapshot();
      if (this.size.worthRewriting()) await this.rewrite();
    } finally {
      await this.lock.release();
    }
  }

  /**
   * Rewrites the log to what restoring it yields, once superseded lines are most of it. Still
   * under the lock and with the writer closed; a failure leaves the old log, which is complete.
   */
  private async rewrite(): Promise<void> {
    try {
      const { meta, messages } = await readSessionLog(this.files.log);
      await rewriteLog(this.files.log, { meta, messages });
    } catch {
      // The log as it was stays the session's; the next close tries again.
    }
  }

  private touch(): number {
    const at = this.now();
    this.meta.updatedAt = Math.max(this.meta.updatedAt, at);
    return at;
  }

  private log(events: LogEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`session ${this.meta.id} is closed`));
    let text = '';
    for (const event of events) {
      const line = `${JSON.stringify(event)}\n`;
      this.size.note(event, line.length);
      text += line;
    }
    return this.writer.appendText(text);
  }
}

/**
 * True when the recorded calls are still there, in the same order, possibly followed by new ones:
 * replay replaces calls by id and appends new ones, so anything else needs the whole message.
 */
function callsOnlyGrew(prev: Known, next: Known): boolean {
  const ids = [...next.calls.keys()];
  let i = 0;
  for (const id of prev.calls.keys()) if (ids[i++] !== id) return false;
  return true;
}
