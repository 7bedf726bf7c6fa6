/**
 * Where one session's files live inside its project's `sessions/` folder, and the two ways of
 * reading its metadata: the snapshot, or the log when the snapshot is missing.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { migrateDocumentV1 } from './migrate.js';
import { readSessionLog } from './session-log.js';
import { SessionCorruptError, type SessionMeta } from './types.js';

export interface SessionFiles {
  /** The event log, source of truth. */
  log: string;
  /** Metadata snapshot, rewritten atomically on metadata changes, for listing. */
  meta: string;
  /** Present while an instance writes the session. */
  lock: string;
  /** Folder of the session's checkpoints (undo/redo). */
  checkpoints: string;
}

/** Session ids are file names: nothing that could leave the folder. */
export const ID_SHAPE = /^[A-Za-z0-9_-]{1,80}$/;

export function sessionFiles(dir: string, id: string): SessionFiles {
  const base = path.join(dir, id);
  return {
    log: `${base}.jsonl`,
    meta: `${base}.meta.json`,
    lock: `${base}.lock`,
    checkpoints: `${base}.checkpoints`,
  };
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** The metadata snapshot, or the log's own when the snapshot is missing or unreadable. */
export async function readSessionMeta(files: SessionFiles): Promise<SessionMeta> {
  try {
    const meta = JSON.parse(await fs.readFile(files.meta, 'utf8')) as SessionMeta;
    if (meta && typeof meta.id === 'string' && typeof meta.updatedAt === 'number') return meta;
  } catch {
    // fall back to the log below
  }
  const read = await readSessionLog(files.log);
  return { ...read.meta, messages: read.messages.length };
}

/** Rewrites a version 1 document `<id>.json` as a log and a snapshot; the old file is kept aside. */
export async function migrateV1File(dir: string, id: string, projectId: string): Promise<void> {
  const legacy = path.join(dir, `${id}.json`);
  const events = migrateDocumentV1(legacy, JSON.parse(await fs.readFile(legacy, 'utf8')), projectId);
  const header = events[0];
  if (header?.type !== 'session' || header.meta.id !== id) {
    throw new SessionCorruptError(legacy, 'its id does not match its file name');
  }
  const files = sessionFiles(dir, id);
  // Two instances migrating at once write the same bytes, each through its own temp file.
  await writeFileAtomic(files.log, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  await writeFileAtomic(files.meta, `${JSON.stringify(header.meta)}\n`);
  // Listing takes the log's mtime as the last activity: keep the document's, not the migration's.
  const updated = header.meta.updatedAt / 1000;
  await fs.utimes(files.log, updated, updated).catch(() => {});
  // Kept aside rather than deleted: an older build can still be pointed at it by hand.
  await fs.rename(legacy, path.join(dir, `${id}.v1.json.bak`)).catch(() => {});
}
