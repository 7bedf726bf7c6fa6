/**
 * Schema versions of session files and the way forward from each older one.
 *
 * Version 1 kept a session as one JSON document (`sessions/<id>.json`) rewritten whole on every
 * change: a long session cost a full rewrite per message, and two writers raced on it. Version 2
 * is the event log (`<id>.jsonl`) plus a small metadata snapshot (`<id>.meta.json`).
 * A file from a newer version is reported, never rewritten: an older build must not clobber it.
 */
import type { Message, Usage } from '../history/types.js';
import { type LogEvent, SessionCorruptError, type SessionMeta } from './types.js';

export const SCHEMA_VERSION = 2;

export interface SessionDocumentV1 {
  version: 1;
  id: string;
  title?: string;
  root: string;
  createdAt: number;
  updatedAt?: number;
  mode?: SessionMeta['mode'];
  model?: string;
  todos?: SessionMeta['todos'];
  planPath?: string;
  usage?: Usage;
  messages: Message[];
}

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

/** Fills fields later versions added, so every reader sees a complete `SessionMeta`. */
function normalizeMeta(meta: SessionMeta): SessionMeta {
  return {
    ...meta,
    title: meta.title || 'New session',
    updatedAt: meta.updatedAt ?? meta.createdAt,
    todos: Array.isArray(meta.todos) ? meta.todos : [],
    usage: meta.usage ?? emptyUsage(),
  };
}

export function migrateHeader(
  file: string,
  header: Extract<LogEvent, { type: 'session' }>,
): Extract<LogEvent, { type: 'session' }> {
  if (typeof header.version !== 'number' || header.version < 2) {
    throw new SessionCorruptError(file, `unknown log version ${String(header.version)}`);
  }
  if (header.version > SCHEMA_VERSION) {
    throw new SessionCorruptError(file, `written by a newer agent.nvim (schema ${header.version})`);
  }
  // Steps for 2 -> 3 and on go here, each taking the header one version forward.
  return { type: 'session', version: SCHEMA_VERSION, meta: normalizeMeta(header.meta) };
}

/** Turns a version 1 document into the events of a version 2 log. */
export function migrateDocumentV1(file: string, raw: unknown, projectId: string): LogEvent[] {
  const doc = raw as Partial<SessionDocumentV1> | null;
  if (doc?.version !== 1 || typeof doc.id !== 'string' || !Array.isArray(doc.messages)) {
    throw new SessionCorruptError(file, 'not a version 1 session document');
  }
  const createdAt = typeof doc.createdAt === 'number' ? doc.createdAt : 0;
  const meta = normalizeMeta({
    id: doc.id,
    title: doc.title ?? '',
    root: String(doc.root ?? ''),
    projectId,
    createdAt,
    updatedAt: doc.updatedAt ?? createdAt,
    mode: doc.mode ?? 'ask',
    model: doc.model ?? '',
    todos: doc.todos ?? [],
    usage: doc.usage ?? emptyUsage(),
    ...(doc.planPath ? { planPath: doc.planPath } : {}),
  });
  const events: LogEvent[] = [{ type: 'session', version: SCHEMA_VERSION, meta }];
  for (const message of doc.messages) events.push({ type: 'message', at: meta.updatedAt, message });
  return events;
}
