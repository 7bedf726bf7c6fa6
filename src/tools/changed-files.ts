import { realRoot } from './confine-path.js';
import { GENERATED_DIRS } from './ignore-rules.js';
import { splitNames, unitsFor, walkProject } from './snapshot-walker.js';

const EXCLUDED = new Set([...GENERATED_DIRS, '.git', '.agent']);

/**
 * How far a file's timestamp may lag the wall clock at the moment of the write: the kernel
 * stamps files from a coarse clock updated once per tick (1-10 ms), so a write just after the
 * command started can carry a time just before it. The price is that a file written in this
 * window before the command is reported too: a harmless extra buffer reload.
 */
const CLOCK_SLACK_MS = 20;

/** Past this many files a project is not tracked (each command would pay a long walk). */
export const MAX_TRACKED_FILES = 300_000;

export interface ChangeSnapshot {
  root: string;
  units: string[];
  /** Entries per unit (see WalkResult). */
  perUnit: string[];
  /** All entries NUL-joined in walk order (see WalkResult). */
  names: string;
  since: number;
}

/**
 * Which files a command changed, without git. The "before" side records only the names (cheap:
 * no stat per file); the "after" side stats every file and flags those whose ctime or mtime is
 * later than the command's start, plus names that appeared or disappeared (it re-reads only the
 * folders whose own timestamps moved, reusing the "before" listing for the rest). ctime is what makes
 * this sound: unlike mtime it cannot be set back (`touch -d`, `cp -p`, `tar x` all bump it), so a
 * same-size rewrite with a preserved mtime is still caught, which size+mtime comparison misses.
 * Hidden files are included; .git, .agent, generated folders and symlinks are not.
 */
export async function snapshotBefore(root: string): Promise<ChangeSnapshot> {
  const physical = await realRoot(root);
  // Timed from the start of the walk, not its end: a folder that changes while it is being walked
  // must count as changed afterwards, or its stale listing would hide a file created meanwhile.
  const since = Date.now() - CLOCK_SLACK_MS;
  const units = await unitsFor(physical, EXCLUDED);
  const walk = await walkProject({
    root: physical,
    units,
    excluded: [...EXCLUDED],
    stat: false,
    since: 0,
    limit: MAX_TRACKED_FILES,
  });
  if (walk.overflow) throw new Error(`more than ${MAX_TRACKED_FILES} files to track`);
  return {
    root: physical,
    units,
    perUnit: walk.perUnit,
    names: walk.names,
    since,
  };
}

/** Project-relative paths created, modified or deleted since `before`, sorted. */
export async function changedSince(before: ChangeSnapshot): Promise<string[]> {
  const units = await unitsFor(before.root, EXCLUDED);
  const priorIndex = new Map(before.units.map((unit, i) => [unit, i]));
  const prior = units.map((unit) => {
    const i = priorIndex.get(unit);
    return i === undefined ? undefined : before.perUnit[i];
  });
  const walk = await walkProject({
    prior,
    root: before.root,
    units,
    excluded: [...EXCLUDED],
    stat: true,
    since: before.since,
    limit: MAX_TRACKED_FILES,
  });
  if (walk.overflow) throw new Error(`more than ${MAX_TRACKED_FILES} files to track`);
  const changed = new Set(walk.recent);
  if (walk.names !== before.names) {
    const beforeNames = new Set(splitNames(before.names));
    const afterNames = new Set(splitNames(walk.names));
    for (const name of afterNames) if (!beforeNames.has(name)) changed.add(name);
    for (const name of beforeNames) if (!afterNames.has(name)) changed.add(name);
  }
  // Folder entries only help find files; a new or removed folder shows up through its files.
  for (const name of changed) if (name.endsWith('/')) changed.delete(name);
  return [...changed].sort();
}
