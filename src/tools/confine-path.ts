import type { Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ToolError } from './tool-error.js';

export interface ConfinedPath {
  /** Absolute path as addressed (inside the project root). */
  abs: string;
  /** The same path with every symlink resolved: where reads and writes really go. */
  real: string;
  /** Project-relative, `/`-separated; `.` for the root itself. */
  rel: string;
  exists: boolean;
  /** Stat of the resolved target when it exists. */
  stats?: Stats;
}

export interface ConfineOptions {
  /** Accept a path that does not exist yet (write, create); its nearest existing parent is checked. */
  allowMissing?: boolean;
}

const realRoots = new Map<string, Promise<string>>();

/** The project root with symlinks resolved (a root under a symlinked /tmp or home is common). */
export function realRoot(root: string): Promise<string> {
  let cached = realRoots.get(root);
  if (!cached) {
    cached = fs.realpath(root);
    realRoots.set(root, cached);
    cached.catch(() => realRoots.delete(root));
  }
  return cached;
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function toProjectRelative(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * Resolves a path the model gave to a location inside the project, or throws `outside_project`.
 * Checked both lexically (`..`, absolute paths) and physically (symlinks anywhere along the
 * path, including a symlinked parent of a file that does not exist yet), because a lexical check
 * alone lets `docs -> /etc` through.
 */
export async function confinePath(
  root: string,
  input: string,
  options: ConfineOptions = {},
): Promise<ConfinedPath> {
  const given = input.trim();
  if (given.includes('\0')) throw outside(input, 'contains a NUL byte');
  if (given.startsWith('~')) throw outside(input, 'home-relative paths are not project paths');
  const resolvedRoot = path.resolve(root);
  const physicalRoot = await realRoot(resolvedRoot);
  const abs = path.resolve(resolvedRoot, given === '' ? '.' : given);
  // The model may echo back a path it saw with the root's symlinks resolved; accept both spellings.
  const base = isInside(abs, resolvedRoot)
    ? resolvedRoot
    : isInside(abs, physicalRoot)
      ? physicalRoot
      : undefined;
  if (!base) throw outside(input, 'it is outside the project');
  const rel = toProjectRelative(base, abs);

  const real = await resolveReal(abs, physicalRoot, input, 0);
  if (!real.exists) {
    if (!options.allowMissing) {
      throw new ToolError('not_found', `${rel} does not exist.`, { path: rel });
    }
    return { abs, real: real.path, rel, exists: false };
  }
  const stats = await fs.stat(real.path);
  if (!stats.isFile() && !stats.isDirectory()) {
    throw outside(input, 'it is a device, socket or FIFO, not a regular file');
  }
  return { abs, real: real.path, rel, exists: true, stats };
}

async function resolveReal(
  abs: string,
  physicalRoot: string,
  input: string,
  depth: number,
): Promise<{ path: string; exists: boolean }> {
  if (depth > 16) throw outside(input, 'it goes through too many symbolic links');
  try {
    const real = await fs.realpath(abs);
    if (!isInside(real, physicalRoot))
      throw outside(input, 'a symbolic link on it leads outside the project');
    return { path: real, exists: true };
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  // A dangling symlink: where it points is where a write would land.
  const link = await fs.lstat(abs).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(abs), await fs.readlink(abs));
    return resolveReal(target, physicalRoot, input, depth + 1);
  }
  const parent = path.dirname(abs);
  if (parent === abs) throw outside(input, 'it is outside the project');
  const parentReal = await resolveReal(parent, physicalRoot, input, depth);
  return { path: path.join(parentReal.path, path.basename(abs)), exists: false };
}

function outside(input: string, why: string): ToolError {
  return new ToolError(
    'outside_project',
    `Cannot use path "${input}": ${why}. Use a path relative to the project root, without ".." leaving it.`,
    { path: input },
  );
}
