import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * A stable directory name for a project: readable basename plus a hash of the real path, so two
 * checkouts named alike stay apart and a symlinked root maps to the same sessions.
 */
export function projectIdOf(realRoot: string): string {
  const hash = createHash('sha256').update(realRoot).digest('hex').slice(0, 12);
  const base = path
    .basename(realRoot)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 40);
  return base ? `${base}-${hash}` : hash;
}

/** The real path of a root; a root that does not exist (yet) keeps its resolved form. */
export async function realRootOf(root: string): Promise<string> {
  const resolved = path.resolve(root);
  try {
    return await fs.realpath(resolved);
  } catch {
    return resolved;
  }
}
