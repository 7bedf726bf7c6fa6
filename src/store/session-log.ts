/**
 * A session's log: one JSON event per line, appended and synced, never rewritten. Appending to a
 * long session costs the same as to a short one, and a process killed mid-write leaves at most a
 * torn last line, which reading drops and the next writer truncates away.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Message } from '../history/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { LogSize } from './log-size.js';
import { migrateHeader, SCHEMA_VERSION } from './migrate.js';
import { type LogEvent, SessionCorruptError, type SessionData, type SessionMeta } from './types.js';

export interface ReadLog extends SessionData {
  /** Bytes up to the end of the last complete line: where the next append must start. */
  validBytes: number;
  /** How much of the log still counts (whether it is worth rewriting). */
  size: LogSize;
}

/**
 * Reads the whole file with as few reads as possible: `fs.readFile` goes in 512 KiB chunks, one
 * thread-pool round trip each, which is most of a long session's restore time on a busy machine.
 */
async function readWhole(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const buf = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buf, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // A writer may have appended meanwhile; what was read is still whole lines up to a point.
    return filled < size ? buf.subarray(0, filled) : buf;
  } finally {
    await handle.close();
  }
}

export async function readSessionLog(file: string): Promise<ReadLog> {
  const buf = await readWhole(file);
  const end = buf.lastIndexOf(10) + 1;
  const tornTail = end < buf.length;
  const lines = buf.toString('utf8', 0, end).split('\n');
  lines.pop();
  const first = lines[0];
  if (first === undefined) throw new SessionCorruptError(file, 'empty log');
  const header = parseLine(file, first, 1);
  if (header.type !== 'session') throw new SessionCorruptError(file, 'first line is not a session header');
  const meta = migrateHeader(file, header).meta;
  const replay = new Replay();
  const size = new LogSize();
  size.note(header, first.length + 1);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.length === 0) continue;
    const event = parseLine(file, line, i + 1);
    replay.apply(event, meta);
    size.note(event, line.length + 1);
  }
  return { meta, messages: replay.messages(), tornTail, validBytes: end, size };
}

/** The lines of a log holding exactly `data`: its header, then one line per message. */
export function compactLines(data: Pick<SessionData, 'meta' | 'messages'>): LogEvent[] {
  const at = data.meta.updatedAt;
  return [
    { type: 'session', version: SCHEMA_VERSION, meta: data.meta },
    ...data.messages.map((message): LogEvent => ({ type: 'message', at, message })),
  ];
}

/**
 * Rewrites a log so that it holds only what restoring it yields, dropping superseded lines. The
 * caller holds the session's lock and no writer is open on the file. Atomic: the new log is
 * written and synced under a temporary name and renamed over the old one, so a crash at any
 * point leaves either log, both complete. Returns the new log's size.
 */
export async function rewriteLog(
  file: string,
  data: Pick<SessionData, 'meta' | 'messages'>,
): Promise<LogSize> {
  const size = new LogSize();
  const text = compactLines(data)
    .map((event) => {
      const line = `${JSON.stringify(event)}\n`;
      size.note(event, line.length);
      return line;
    })
    .join('');
  await writeFileAtomic(file, text);
  await syncFolder(path.dirname(file));
  // Listing takes the log's mtime as the last activity: a rewrite is none.
  const at = data.meta.updatedAt / 1000;
  await fs.utimes(file, at, at).catch(() => {});
  return size;
}

function parseLine(file: string, line: string, lineNo: number): LogEvent {
  try {
    const event = JSON.parse(line) as LogEvent;
    if (event && typeof event === 'object' && typeof event.type === 'string') return event;
  } catch {
    // fall through: reported below with the line number
  }
  throw new SessionCorruptError(file, `line ${lineNo} is not a log event`);
}

/** Rebuilds messages and meta from events. Positions are looked up by id, so each event is O(1). */
class Replay {
  private list: Message[] = [];
  private index = new Map<string, number>();

  apply(event: LogEvent, meta: SessionMeta): void {
    switch (event.type) {
      case 'message':
      case 'replace': {
        const at = this.index.get(event.message.id);
        if (at === undefined) {
          this.index.set(event.message.id, this.list.length);
          this.list.push(event.message);
        } else this.list[at] = event.message;
        break;
      }
      case 'calls': {
        const at = this.index.get(event.messageId) ?? -1;
        const target = this.list[at];
        if (target?.role !== 'assistant') break;
        const calls = target.toolCalls.slice();
        for (const call of event.calls) {
          const i = calls.findIndex((c) => c.id === call.id);
          if (i >= 0) calls[i] = call;
          else calls.push(call);
        }
        this.list[at] = { ...target, toolCalls: calls };
        break;
      }
      case 'splice':
        this.splice(new Set(event.remove), event.insert);
        break;
      case 'meta':
        Object.assign(meta, event.patch);
        break;
      case 'session':
        break;
    }
    if (event.type !== 'session') meta.updatedAt = Math.max(meta.updatedAt, event.at);
  }

  private splice(remove: Set<string>, insert: Message[]): void {
    let at = this.list.findIndex((m) => remove.has(m.id));
    if (at < 0) at = this.list.length;
    const kept = (m: Message) => !remove.has(m.id);
    this.list = [...this.list.slice(0, at), ...insert, ...this.list.slice(at).filter(kept)];
    this.index.clear();
    this.list.forEach((m, i) => {
      this.index.set(m.id, i);
    });
  }

  messages(): Message[] {
    return this.list;
  }
}

/**
 * Appends events to one log. Appends are chained so they land in call order, and each resolves
 * only once its bytes are synced: the agent sends its next request after that, so a committed
 * message survives a crash.
 */
export class LogWriter {
  private chain: Promise<void> = Promise.resolve();

  private constructor(
    private readonly handle: fs.FileHandle,
    private readonly sync: boolean,
  ) {}

  /** Opens for appending; `validBytes` cuts off a torn last line left by a killed writer. */
  static async open(file: string, options: { validBytes?: number; sync: boolean }): Promise<LogWriter> {
    if (options.validBytes !== undefined) {
      const size = (await fs.stat(file)).size;
      if (size > options.validBytes) await fs.truncate(file, options.validBytes);
    }
    const handle = await fs.open(file, 'a');
    return new LogWriter(handle, options.sync);
  }

  append(events: LogEvent[]): Promise<void> {
    return this.appendText(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  /** Appends whole lines already serialised. */
  appendText(text: string): Promise<void> {
    const next = this.chain.then(async () => {
      // One write call per batch: the kernel appends it whole, so concurrent readers see lines.
      await this.handle.write(text);
      if (this.sync) await this.handle.datasync();
    });
    this.chain = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
  }
}

/**
 * Syncs a folder's entries, so a newly created log survives a power loss and not only its bytes.
 * Best effort: some platforms cannot open a folder for syncing.
 */
export async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows: folders cannot be opened this way; NTFS journals the entry anyway.
  }
}
