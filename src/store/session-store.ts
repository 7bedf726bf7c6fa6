/**
 * Sessions on disk, grouped by project:
 *
 *   <dataDir>/projects/<projectId>/index.json              summaries cache (lowdb), rebuildable
 *   <dataDir>/projects/<projectId>/sessions/<id>.jsonl     event log, the source of truth
 *   <dataDir>/projects/<projectId>/sessions/<id>.meta.json metadata snapshot for listing
 *   <dataDir>/projects/<projectId>/sessions/<id>.lock      the writing instance (pid, host)
 *   <dataDir>/projects/<projectId>/sessions/<id>.checkpoints/  undo/redo of file changes
 *
 * Each instance writes only the sessions it holds the lock of, so two Neovims on one project
 * never write the same log. The index is shared but only a cache: it is checked against the
 * session files on every listing and rewritten whole (atomically) when it is out of date.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Message } from '../history/types.js';
import { isNotFound } from '../util/atomic-write.js';
import { CheckpointLog } from './checkpoints.js';
import { sessionToMarkdown } from './export-markdown.js';
import { LogSize } from './log-size.js';
import { emptyUsage, SCHEMA_VERSION } from './migrate.js';
import { projectIdOf, realRootOf } from './project-id.js';
import { scrubSecrets } from './scrub-secrets.js';
import { exists, ID_SHAPE, migrateV1File, type SessionFiles, sessionFiles } from './session-files.js';
import { SessionHandle } from './session-handle.js';
import { listProjectSessions } from './session-index.js';
import { acquireSessionLock, lockOwner, type SessionLock } from './session-lock.js';
import { LogWriter, readSessionLog, rewriteLog, syncFolder } from './session-log.js';
import { titleFromPrompt } from './session-title.js';
import {
  type Mode,
  SessionBusyError,
  type SessionData,
  type SessionList,
  type SessionMeta,
  SessionNotFoundError,
  type SessionSummary,
  type StoreProblem,
} from './types.js';

export interface StoreOptions {
  /** fsync every append (default true); only benchmarks of the pure write path turn it off. */
  sync?: boolean;
  /** Size bound of each session's checkpoints. */
  checkpointBytes?: number;
  now?: () => number;
}

export interface CreateSession {
  root: string;
  mode: Mode;
  model: string;
  firstPrompt?: string;
  title?: string;
}

export class SessionStore {
  private open = new Map<string, SessionHandle>();
  private located = new Map<string, string>();
  private readonly sync: boolean;
  private readonly now: () => number;

  private constructor(
    readonly dataDir: string,
    private readonly options: StoreOptions,
  ) {
    this.sync = options.sync ?? true;
    this.now = options.now ?? Date.now;
  }

  static async open(dataDir: string, options: StoreOptions = {}): Promise<SessionStore> {
    await fs.mkdir(path.join(dataDir, 'projects'), { recursive: true });
    return new SessionStore(dataDir, options);
  }

  /** Starts a session (on the first prompt of a chat) and holds it for writing. */
  async create(init: CreateSession): Promise<SessionHandle> {
    const root = await realRootOf(init.root);
    const projectId = projectIdOf(root);
    const dir = this.sessionsDir(projectId);
    await fs.mkdir(dir, { recursive: true });
    const at = this.now();
    const id = `${at.toString(36)}-${randomBytes(5).toString('hex')}`;
    const meta: SessionMeta = scrubSecrets({
      id,
      title: init.title?.trim() || titleFromPrompt(init.firstPrompt),
      root,
      projectId,
      createdAt: at,
      updatedAt: at,
      mode: init.mode,
      model: init.model,
      todos: [],
      usage: emptyUsage(),
    });
    const files = sessionFiles(dir, id);
    const lock = await acquireSessionLock(files.lock, id);
    let writer: LogWriter | undefined;
    try {
      writer = await LogWriter.open(files.log, { sync: this.sync });
      const header = { type: 'session', version: SCHEMA_VERSION, meta } as const;
      const line = `${JSON.stringify(header)}\n`;
      await writer.appendText(line);
      if (this.sync) await syncFolder(dir);
      const size = new LogSize();
      size.note(header, line.length);
      const handle = await this.attach(structuredClone(meta), files, writer, lock, [], size);
      await handle.writeSnapshot();
      this.located.set(id, dir);
      return handle;
    } catch (err) {
      await writer?.close().catch(() => {});
      await lock.release();
      throw err;
    }
  }

  /** Loads a session and holds it for writing (`:Agent resume`). Busy if another Neovim has it. */
  async resume(id: string): Promise<{ handle: SessionHandle; data: SessionData }> {
    if (this.open.has(id)) throw new SessionBusyError(id, { pid: process.pid, host: 'this instance' });
    const dir = await this.locate(id);
    const files = sessionFiles(dir, id);
    const lock = await acquireSessionLock(files.lock, id);
    let writer: LogWriter | undefined;
    try {
      const read = await readSessionLog(files.log);
      const { validBytes, size: readSize, ...data } = read;
      // Mostly superseded lines: start from a log holding only the restored state (which also
      // drops a torn tail). Otherwise the torn tail is cut off before the first append, or the
      // next line would be glued to it.
      const size = readSize.worthRewriting()
        ? await rewriteLog(files.log, data).catch(() => undefined)
        : undefined;
      writer = await LogWriter.open(files.log, {
        sync: this.sync,
        ...(size ? {} : { validBytes }),
      });
      const handle = await this.attach(
        structuredClone(data.meta),
        files,
        writer,
        lock,
        data.messages,
        size ?? readSize,
      );
      return { handle, data };
    } catch (err) {
      await writer?.close().catch(() => {});
      await lock.release();
      throw err;
    }
  }

  /** Reads a session without taking it (preview, export, another instance's session). */
  async load(id: string): Promise<SessionData> {
    const dir = await this.locate(id);
    const { validBytes: _, size: __, ...data } = await readSessionLog(sessionFiles(dir, id).log);
    return data;
  }

  /** Sessions of one project (or of all), most recently updated first, with the unreadable ones. */
  async list(root?: string): Promise<SessionList> {
    const projects = root ? [projectIdOf(await realRootOf(root))] : await this.projectIds();
    const sessions: SessionSummary[] = [];
    const problems: StoreProblem[] = [];
    for (const projectId of projects) {
      const indexFile = path.join(this.projectDir(projectId), 'index.json');
      const listed = await listProjectSessions(this.sessionsDir(projectId), indexFile, projectId);
      sessions.push(...listed.sessions);
      problems.push(...listed.problems);
    }
    sessions.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
    return { sessions, problems };
  }

  /** The project's most recent session (`:Agent resume` without an id). */
  async latest(root: string): Promise<SessionSummary | undefined> {
    return (await this.list(root)).sessions[0];
  }

  async rename(id: string, title: string): Promise<void> {
    const clean = title.replace(/\s+/g, ' ').trim();
    if (!clean) throw new Error('a session title cannot be empty');
    await this.withWriter(id, (handle) => handle.setMeta({ title: clean }));
  }

  /** Deletes a session and its checkpoints. Refused while another Neovim has it open. */
  async remove(id: string): Promise<void> {
    const dir = await this.locate(id);
    const files = sessionFiles(dir, id);
    await this.open.get(id)?.close();
    const lock = await acquireSessionLock(files.lock, id);
    try {
      await fs.rm(files.checkpoints, { recursive: true, force: true });
      await fs.rm(files.meta, { force: true });
      await fs.rm(files.log, { force: true });
      this.located.delete(id);
    } finally {
      await lock.release();
    }
  }

  async exportMarkdown(id: string): Promise<string> {
    return sessionToMarkdown(await this.load(id));
  }

  /** Closes every session this store holds, releasing their locks. */
  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((h) => h.close()));
  }

  private async attach(
    meta: SessionMeta,
    files: SessionFiles,
    writer: LogWriter,
    lock: SessionLock,
    messages: Message[],
    size: LogSize,
  ): Promise<SessionHandle> {
    const checkpoints = await CheckpointLog.open(files.checkpoints, {
      now: this.now,
      ...(this.options.checkpointBytes === undefined ? {} : { maxBytes: this.options.checkpointBytes }),
    });
    const handle = new SessionHandle(
      meta,
      files,
      writer,
      lock,
      checkpoints,
      messages,
      this.now,
      () => this.open.delete(meta.id),
      size,
    );
    this.open.set(meta.id, handle);
    return handle;
  }

  private async withWriter(id: string, fn: (handle: SessionHandle) => Promise<void>): Promise<void> {
    const held = this.open.get(id);
    if (held) return fn(held);
    const { handle } = await this.resume(id);
    try {
      await fn(handle);
    } finally {
      await handle.close();
    }
  }

  private projectDir(projectId: string): string {
    return path.join(this.dataDir, 'projects', projectId);
  }

  private sessionsDir(projectId: string): string {
    return path.join(this.projectDir(projectId), 'sessions');
  }

  private async projectIds(): Promise<string[]> {
    try {
      return (await fs.readdir(path.join(this.dataDir, 'projects'), { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
  }

  /** The sessions folder holding `id`, migrating a version 1 document on the way. */
  private async locate(id: string): Promise<string> {
    if (!ID_SHAPE.test(id)) throw new SessionNotFoundError(id);
    const cached = this.located.get(id);
    if (cached) return cached;
    for (const projectId of await this.projectIds()) {
      const dir = this.sessionsDir(projectId);
      if (!(await exists(path.join(dir, `${id}.jsonl`)))) {
        if (!(await exists(path.join(dir, `${id}.json`)))) continue;
        await migrateV1File(dir, id, projectId);
      }
      this.located.set(id, dir);
      return dir;
    }
    throw new SessionNotFoundError(id);
  }

  /** Whether another live instance holds the session (for the sessions picker). */
  async ownerOf(id: string): Promise<{ pid: number; host: string } | undefined> {
    if (this.open.has(id)) return undefined;
    return lockOwner(sessionFiles(await this.locate(id), id).lock);
  }
}
