/**
 * lowdb over our own adapter. lowdb's `JSONFile` writes through steno, whose temp file name is
 * fixed (`.name.tmp`): two processes writing one file then rename each other's half-written temp
 * and lose updates, and nothing is fsynced. This adapter writes through a uniquely named temp file
 * (util/atomic-write) and syncs it, so a reader sees the old or the new document, never a mix.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type Adapter, Low } from 'lowdb';
import { isNotFound, writeFileAtomic } from '../util/atomic-write.js';

export class AtomicJsonFile<T> implements Adapter<T> {
  constructor(readonly file: string) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    return JSON.parse(text) as T;
  }

  async write(data: T): Promise<void> {
    // The folder may not exist yet (a checkpoint whose first file is a new one stores no blob).
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    return writeFileAtomic(this.file, `${JSON.stringify(data)}\n`);
  }
}

/** A lowdb database on `file`, read at once; a missing file yields `fallback`. */
export async function openJsonDb<T>(file: string, fallback: T): Promise<Low<T>> {
  const db = new Low<T>(new AtomicJsonFile<T>(file), fallback);
  await db.read();
  return db;
}
