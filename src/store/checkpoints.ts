/**
 * Undo and redo of what the agent did to the project's files. Each run records, before its first
 * change to a file, that file's previous state (bytes and mode, or absence); when the run ends it
 * records what the run left. Undo puts the files back as they were before the latest run still
 * applied; redo re-applies the earliest undone one. A file that changed since (the user edited it,
 * another tool wrote it) is a conflict: nothing is written unless the caller forces it.
 *
 * Kept beside the session (`<id>.checkpoints/`) so they survive a restart; blobs are shared by
 * content hash, and past `maxBytes` the oldest runs are dropped and reported.
 */
import path from 'node:path';
import type { Low } from 'lowdb';
import {
  applyFileState,
  BlobStore,
  type FileState,
  firstMissingFolder,
  hashBytes,
  readFileState,
  removeEmptyFolders,
  sameContent,
} from './file-state.js';
import { openJsonDb } from './json-file.js';

export const DEFAULT_CHECKPOINT_BYTES = 64 * 1024 * 1024;

interface CheckpointEntry {
  path: string;
  before: FileState;
  /** What the run left; missing while the run is open. */
  after?: FileState;
  /** For a file that did not exist: the top-most folder creating it made, removed on undo if empty. */
  createdFolder?: string;
}

interface CheckpointRun {
  id: string;
  startedAt: number;
  endedAt?: number;
  undone: boolean;
  files: CheckpointEntry[];
}

interface CheckpointData {
  version: 1;
  runs: CheckpointRun[];
}

export interface CheckpointRunSummary {
  id: string;
  startedAt: number;
  undone: boolean;
  files: string[];
}

export interface EndRunResult {
  runId: string;
  /** Files the run changed (recorded before their change). */
  files: string[];
  /** Oldest runs dropped to stay under the size bound; the user should be told. */
  dropped: string[];
}

export interface RestoreResult {
  /** The run undone or redone; undefined when there was nothing to do. */
  runId?: string;
  restored: string[];
  /** Files whose content is no longer what the run left (undo) or found (redo). */
  conflicts: string[];
}

export interface CheckpointOptions {
  maxBytes?: number;
  now?: () => number;
}

export class CheckpointLog {
  private current: CheckpointRun | undefined;
  private pending = new Map<string, Promise<void>>();
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: Low<CheckpointData>,
    private readonly blobs: BlobStore,
    private readonly maxBytes: number,
    private readonly now: () => number,
  ) {}

  static async open(dir: string, options: CheckpointOptions = {}): Promise<CheckpointLog> {
    const db = await openJsonDb<CheckpointData>(path.join(dir, 'checkpoints.json'), { version: 1, runs: [] });
    const log = new CheckpointLog(
      db,
      new BlobStore(path.join(dir, 'blobs')),
      options.maxBytes ?? DEFAULT_CHECKPOINT_BYTES,
      options.now ?? Date.now,
    );
    // A run left open by a crash is closed with the files as they are now, so it can be undone.
    const open = db.data.runs.filter((r) => r.endedAt === undefined);
    for (const run of open) await log.finish(run);
    if (open.length) await log.save();
    return log;
  }

  /** Starts recording a run; a run still open is ended first. */
  async beginRun(runId: string): Promise<EndRunResult | undefined> {
    const ended = this.current ? await this.endRun() : undefined;
    this.current = { id: runId, startedAt: this.now(), undone: false, files: [] };
    return ended;
  }

  /**
   * Records a file's state before the run first changes it; later calls in the same run do
   * nothing. Call it before every write, create, delete or rename (both paths) of a file tool.
   * Returns false when no run is open.
   */
  beforeChange(absPath: string): Promise<boolean> {
    const run = this.current;
    if (!run) return Promise.resolve(false);
    const file = path.resolve(absPath);
    if (run.files.some((e) => e.path === file)) return Promise.resolve(true);
    let recording = this.pending.get(file);
    if (!recording) {
      recording = this.record(run, file, async () => {
        const { state, bytes } = await readFileState(file);
        if (bytes && state.exists) await this.blobs.put(state.blob, bytes);
        return state;
      });
      this.pending.set(file, recording);
      recording.finally(() => this.pending.delete(file)).catch(() => {});
    }
    return recording.then(() => true);
  }

  /**
   * Records a previous state learnt another way (a file a shell command changed, its old bytes
   * from git): `null` means the file did not exist. Ignored if the run already has the file.
   */
  async recordBefore(
    absPath: string,
    previous: { bytes: Uint8Array; mode?: number } | null,
  ): Promise<boolean> {
    const run = this.current;
    const file = path.resolve(absPath);
    if (!run || run.files.some((e) => e.path === file)) return run !== undefined;
    await this.record(run, file, async () => {
      if (!previous) return { exists: false };
      const blob = hashBytes(previous.bytes);
      await this.blobs.put(blob, previous.bytes);
      return { exists: true, blob, mode: previous.mode ?? 0o644, size: previous.bytes.length };
    });
    return true;
  }

  private async record(run: CheckpointRun, file: string, capture: () => Promise<FileState>): Promise<void> {
    const before = await capture();
    const createdFolder = before.exists ? undefined : await firstMissingFolder(file);
    if (run.files.some((e) => e.path === file)) return;
    run.files.push({ path: file, before, ...(createdFolder ? { createdFolder } : {}) });
    if (!this.db.data.runs.includes(run)) {
      // A new change makes the undone runs unreachable, as in an editor's undo without branches.
      this.db.data.runs = this.db.data.runs.filter((r) => !r.undone);
      this.db.data.runs.push(run);
    }
    // Saved before the caller writes the file: a crash mid-run still knows the old bytes.
    await this.save();
  }

  /** Ends the run: records what it left, clears the redo stack, enforces the size bound. */
  async endRun(): Promise<EndRunResult | undefined> {
    const run = this.current;
    if (!run) return undefined;
    this.current = undefined;
    await Promise.all(this.pending.values());
    if (run.files.length === 0) return { runId: run.id, files: [], dropped: [] };
    await this.finish(run);
    const dropped = this.enforceBound(run);
    await this.save();
    await this.prune();
    return { runId: run.id, files: run.files.map((e) => e.path), dropped };
  }

  private async finish(run: CheckpointRun): Promise<void> {
    for (const entry of run.files) {
      const { state, bytes } = await readFileState(entry.path);
      if (bytes && state.exists) await this.blobs.put(state.blob, bytes);
      entry.after = state;
    }
    run.endedAt = this.now();
  }

  private enforceBound(keep: CheckpointRun): string[] {
    const dropped: string[] = [];
    const runs = this.db.data.runs;
    while (runs.length > 1 && this.totalBytes() > this.maxBytes && runs[0] !== keep) {
      dropped.push((runs.shift() as CheckpointRun).id);
    }
    return dropped;
  }

  /** Bytes of all distinct blobs the kept runs refer to. */
  totalBytes(): number {
    const sizes = new Map<string, number>();
    for (const run of this.db.data.runs)
      for (const e of run.files)
        for (const s of [e.before, e.after]) if (s?.exists) sizes.set(s.blob, s.size);
    let total = 0;
    for (const size of sizes.values()) total += size;
    return total;
  }

  /** Restores the files of the latest applied run to their state before it. */
  async undo(options: { force?: boolean } = {}): Promise<RestoreResult> {
    if (this.current) await this.endRun();
    const run = this.db.data.runs.findLast((r) => !r.undone && r.endedAt !== undefined);
    if (!run) return { restored: [], conflicts: [] };
    return this.restore(run, 'before', 'after', true, options.force === true);
  }

  /** Re-applies the earliest undone run. */
  async redo(options: { force?: boolean } = {}): Promise<RestoreResult> {
    if (this.current) await this.endRun();
    const run = this.db.data.runs.find((r) => r.undone);
    if (!run) return { restored: [], conflicts: [] };
    return this.restore(run, 'after', 'before', false, options.force === true);
  }

  private async restore(
    run: CheckpointRun,
    target: 'before' | 'after',
    expected: 'before' | 'after',
    undone: boolean,
    force: boolean,
  ): Promise<RestoreResult> {
    const conflicts: string[] = [];
    for (const entry of run.files) {
      const now = (await readFileState(entry.path)).state;
      if (!sameContent(now, entry[expected])) conflicts.push(entry.path);
    }
    if (conflicts.length && !force) return { runId: run.id, restored: [], conflicts };
    const restored: string[] = [];
    // Reverse order on undo, so a file touched twice (rename chains) ends in its first state.
    const entries = undone ? [...run.files].reverse() : run.files;
    for (const entry of entries) {
      const state = entry[target];
      if (!state) continue;
      await applyFileState(entry.path, state, this.blobs);
      if (!state.exists && entry.createdFolder) await removeEmptyFolders(entry.path, entry.createdFolder);
      restored.push(entry.path);
    }
    run.undone = undone;
    await this.save();
    return { runId: run.id, restored, conflicts };
  }

  runs(): CheckpointRunSummary[] {
    return this.db.data.runs.map((r) => ({
      id: r.id,
      startedAt: r.startedAt,
      undone: r.undone,
      files: r.files.map((e) => e.path),
    }));
  }

  /** Waits for pending writes; the log stays usable (nothing is held open). */
  async flush(): Promise<void> {
    await Promise.all(this.pending.values());
    await this.saving;
  }

  private save(): Promise<void> {
    // Chained: lowdb's write serialises the data at call time, but two renames could land out of order.
    const next = this.saving.then(() => this.db.write());
    this.saving = next.catch(() => {});
    return next;
  }

  private prune(): Promise<void> {
    const keep = new Set<string>();
    for (const run of this.db.data.runs)
      for (const e of run.files) for (const s of [e.before, e.after]) if (s?.exists) keep.add(s.blob);
    return this.blobs.prune(keep);
  }
}
