import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** Permission bits for the file; defaults to those of the file being replaced, else 0o666 & ~umask. */
  mode?: number;
}

/**
 * Writes through a temporary file in the same directory and renames it over the target, so
 * readers (Neovim reloading a buffer, a watcher, a crash half-way) see the old bytes or the new
 * ones, never a torn file. Same directory because rename is only atomic within one filesystem.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  let mode = options.mode;
  if (mode === undefined) {
    try {
      mode = (await fs.stat(target)).mode & 0o7777;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await fs.open(temp, 'wx', mode ?? 0o666);
  try {
    await handle.writeFile(data);
    // open() applies the umask; chmod restores the exact bits of the file being replaced.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => {});
    await fs.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

export function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
