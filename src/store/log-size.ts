/**
 * How much of a session log still counts. The log only grows: a message rewritten whole, tool
 * calls recorded again with their results, messages a compaction replaced and metadata patches
 * all leave older lines behind that a restore reads and then overwrites. This tallies, line by
 * line, the characters that still make up the restored messages ("live"); the rest is
 * superseded, and past half of the file the log is worth rewriting (session-log.ts rewriteLog).
 */
import type { LogEvent } from './types.js';

/** Logs smaller than this are never rewritten: the saving would not be noticed. */
export const REWRITE_MIN_CHARS = 64 * 1024;

export class LogSize {
  /** Characters of every line, newlines included. */
  total = 0;
  /** Characters of the lines the restored messages are made of, and of the header. */
  live = 0;
  private readonly perMessage = new Map<string, number>();

  /** Counts one line (`chars` with its newline) holding `event`. */
  note(event: LogEvent, chars: number): void {
    this.total += chars;
    switch (event.type) {
      case 'session':
        this.live += chars;
        break;
      case 'message':
      case 'replace':
        this.set(event.message.id, chars);
        break;
      case 'calls': {
        // Earlier records of the same calls are superseded too, but telling how much would mean
        // keeping every call's size: counting them live only makes rewrites a little rarer.
        const before = this.perMessage.get(event.messageId);
        if (before !== undefined) this.set(event.messageId, before + chars);
        break;
      }
      case 'splice':
        for (const id of event.remove) this.set(id, 0);
        for (const m of event.insert) this.set(m.id, Math.ceil(chars / event.insert.length));
        break;
      case 'meta':
        // Folded into the header when the log is rewritten.
        break;
    }
  }

  /** Characters a rewrite would drop. */
  get superseded(): number {
    return this.total - this.live;
  }

  /** More than half of a log of some size is superseded. */
  worthRewriting(): boolean {
    return this.total >= REWRITE_MIN_CHARS && this.superseded > this.total / 2;
  }

  private set(id: string, chars: number): void {
    this.live += chars - (this.perMessage.get(id) ?? 0);
    if (chars > 0) this.perMessage.set(id, chars);
    else this.perMessage.delete(id);
  }
}
