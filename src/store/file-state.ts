/**
 * A file's state as checkpoints see it: absent, or bytes (kept once per content hash in a blob
 * folder) plus permission bits. Bytes are never decoded, so binary files restore exactly.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isNotFound, writeFileAtomic } from '../util/atomic-write.js';

export type FileState = { exists: false } | { exists: true; blob: string; mode: number; size: number };

export interface FileRead {
  state: FileState;
  bytes?: Buffer;
}

export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function readFileState(file: string): Promise<FileRead> {
  let bytes: Buffer;
  let mode: number;
  try {
    // Stat and read through one handle: the file cannot be swapped between the two.
    const handle = await fs.open(file, 'r');
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return { state: { exists: false } };
      mode = stat.mode & 0o7777;
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (isNotFound(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return { state: { exists: false } };
    throw err;
  }
  return { state: { exists: true, blob: hashBytes(bytes), mode, size: bytes.length }, bytes };
}

export function sameContent(a: FileState, b: FileState | undefined): boolean {
  if (!b) return false;
  if (!a.exists || !b.exists) return a.exists === b.exists;
  return a.blob === b.blob;
}

export class BlobStore {
  constructor(readonly dir: string) {}

  private pathOf(blob: string): string {
    return path.join(this.dir, blob);
  }

  async put(blob: string, bytes: Uint8Array): Promise<void> {
    const file = this.pathOf(blob);
    try {
      await fs.access(file);
      return;
    } catch {
      // not stored yet
    }
    await fs.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(file, bytes, { mode: 0o600 });
  }

  get(blob: string): Promise<Buffer> {
    return fs.readFile(this.pathOf(blob));
  }

  /** Removes every blob not in `keep`. */
  async prune(keep: Set<string>): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    await Promise.all(names.filter((n) => !keep.has(n)).map((n) => fs.rm(this.pathOf(n), { force: true })));
  }
}

/** The top-most folder missing on the way to `file`: what creating the file also creates. */
export async function firstMissingFolder(file: string): Promise<string | undefined> {
  let missing: string | undefined;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      await fs.access(dir);
      break;
    } catch {
      missing = dir;
    }
  }
  return missing;
}

/** Removes the folders between `file` and `upTo` (inclusive) that are now empty. */
export async function removeEmptyFolders(file: string, upTo: string): Promise<void> {
  for (let dir = path.dirname(file); dir.startsWith(upTo); dir = path.dirname(dir)) {
    try {
      await fs.rmdir(dir);
    } catch {
      return; // not empty (the user put something there) or already gone
    }
    if (dir === upTo) return;
  }
}

/**
 * Puts a file into `state`: writes the blob's bytes with its mode, or deletes the file. A folder
 * in place of an absent file is left alone: checkpoints never delete folders' contents.
 */
export async function applyFileState(file: string, state: FileState, blobs: BlobStore): Promise<void> {
  if (!state.exists) {
    const stat = await fs.lstat(file).catch(() => undefined);
    if (stat && !stat.isDirectory()) await fs.rm(file, { force: true });
    return;
  }
  const bytes = await blobs.get(state.blob);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, bytes, { mode: state.mode });
}
