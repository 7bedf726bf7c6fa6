/**
 * Listing a project's sessions. The per-project `index.json` (lowdb) caches each session's summary
 * with the stamp (mtime, size) of the snapshot it came from; every listing checks the stamps, so
 * the index is never trusted blindly and is rebuilt from the session files when missing, torn or
 * stale. Two instances may rewrite it at once: each writes a whole file through its own temp file,
 * and entries the loser added are read again next time.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { isNotFound } from '../util/atomic-write.js';
import { AtomicJsonFile } from './json-file.js';
import { ID_SHAPE, migrateV1File, readSessionMeta, sessionFiles } from './session-files.js';
import type { SessionList, SessionMeta, SessionSummary, StoreProblem } from './types.js';

interface IndexEntry {
  /** `mtimeMs:size` of the snapshot the summary was read from. */
  stamp: string;
  summary: SessionSummary;
}

interface IndexData {
  version: 1;
  sessions: Record<string, IndexEntry>;
}

export function summaryOf(meta: SessionMeta): SessionSummary {
  const { id, title, root, projectId, createdAt, updatedAt, mode, model, cost, messages } = meta;
  return {
    id,
    title,
    root,
    projectId,
    createdAt,
    updatedAt,
    mode,
    model,
    ...(cost === undefined ? {} : { cost }),
    ...(messages === undefined ? {} : { messages }),
  };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function openIndex(file: string): Promise<Low<IndexData>> {
  const db = new Low<IndexData>(new AtomicJsonFile<IndexData>(file), { version: 1, sessions: {} });
  try {
    await db.read();
  } catch {
    // A torn or foreign index is only a cache: start over.
  }
  if (db.data?.version !== 1 || typeof db.data.sessions !== 'object' || db.data.sessions === null) {
    db.data = { version: 1, sessions: {} };
  }
  return db;
}

/** Summaries of the sessions in `dir` (unsorted), and the files that could not be read. */
export async function listProjectSessions(
  dir: string,
  indexFile: string,
  projectId: string,
): Promise<SessionList> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if (isNotFound(err)) return { sessions: [], problems: [] };
    throw err;
  }
  const problems: StoreProblem[] = [];
  const ids = new Set(names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length)));
  for (const name of names) {
    const id = name.endsWith('.json') && !name.endsWith('.meta.json') ? name.slice(0, -'.json'.length) : '';
    if (!id || ids.has(id) || !ID_SHAPE.test(id)) continue;
    try {
      await migrateV1File(dir, id, projectId);
      ids.add(id);
    } catch (err) {
      problems.push({ file: path.join(dir, name), sessionId: id, error: errorText(err) });
    }
  }

  const index = await openIndex(indexFile);
  const cached = index.data.sessions;
  const fresh: Record<string, IndexEntry> = {};
  let changed = false;
  const sessions: SessionSummary[] = [];
  await Promise.all(
    [...ids].map(async (id) => {
      const files = sessionFiles(dir, id);
      try {
        const [metaStat, logStat] = await Promise.all([
          fs.stat(files.meta).catch(() => undefined),
          fs.stat(files.log),
        ]);
        const stamp = metaStat ? `${metaStat.mtimeMs}:${metaStat.size}` : '';
        let entry = cached[id];
        if (!entry || !stamp || entry.stamp !== stamp) {
          const next = { stamp, summary: summaryOf(await readSessionMeta(files)) };
          if (JSON.stringify(next) !== JSON.stringify(entry)) changed = true;
          entry = next;
        }
        fresh[id] = entry;
        // Appends touch only the log, so its mtime is the session's last activity.
        sessions.push({
          ...entry.summary,
          updatedAt: Math.max(entry.summary.updatedAt, Math.floor(logStat.mtimeMs)),
          bytes: logStat.size,
        });
      } catch (err) {
        // Removed by another instance while we listed: simply gone, not a problem.
        if (isNotFound(err)) return;
        problems.push({ file: files.log, sessionId: id, error: errorText(err) });
      }
    }),
  );
  if (changed || Object.keys(cached).length !== Object.keys(fresh).length) {
    index.data = { version: 1, sessions: fresh };
    await index.write().catch(() => {});
  }
  return { sessions, problems };
}
