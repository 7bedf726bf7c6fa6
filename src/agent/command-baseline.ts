/**
 * What a shell or build command changed, as it was before: the files' previous states for the
 * run's checkpoint. A command's changes are only known afterwards, so the state before comes from
 * two places. Right before the command runs, git lists the files it cannot restore (untracked,
 * and changed since HEAD), and the small ones are read, within a budget: that is their exact
 * earlier content. A file git did not list was as in HEAD, or did not exist if HEAD lacks it and
 * it was not ignored then (the command may change the ignore rules, so they are read before). Anything else (too large, ignored, not a git project) gets no earlier state,
 * so undo never writes back something it cannot be sure of.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Files read before a command: each at most this big, all together at most the total. */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
const MAX_FILES = 1000;
const GIT_TIMEOUT_MS = 5000;

export type EarlierState = { bytes: Uint8Array; mode: number } | null;

export interface CommandBaseline {
  /** Exact earlier states (null: the file did not exist) of files git listed, within the budget. */
  files: Map<string, EarlierState>;
  /** Every project-relative path git listed as untracked or changed, read or not. */
  listed: Set<string>;
  /** Ignored files, and folders wholly ignored (ending in `/`): whether they existed is unknown. */
  ignored: string[];
}

/** The baseline of `root` right before a command; undefined when git cannot tell. */
export async function captureBaseline(root: string): Promise<CommandBaseline | undefined> {
  let prefix: string;
  let status: string;
  let ignoredList: string;
  try {
    prefix = (await git(root, ['rev-parse', '--show-prefix'])).trim();
    status = await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']);
    // Relative to the project root; a wholly ignored folder is one entry (node_modules/).
    ignoredList = await git(root, [
      'ls-files',
      '-z',
      '--others',
      '--ignored',
      '--exclude-standard',
      '--directory',
    ]);
  } catch {
    return undefined;
  }
  const ignored = ignoredList.split('\0').filter(Boolean);
  const files = new Map<string, EarlierState>();
  const listed = new Set<string>();
  let total = 0;
  for (const entry of status.split('\0')) {
    if (entry.length < 4) continue;
    // "XY path": the status letters, a space, the path from the top of the repository.
    const top = entry.slice(3);
    if (!top.startsWith(prefix)) continue;
    const rel = top.slice(prefix.length);
    if (listed.has(rel)) continue;
    listed.add(rel);
    const abs = path.join(root, rel);
    const stat = await fs.lstat(abs).catch((err: NodeJS.ErrnoException) => err.code);
    if (stat === 'ENOENT') {
      files.set(rel, null);
      continue;
    }
    if (typeof stat !== 'object' || !stat.isFile() || files.size >= MAX_FILES) continue;
    if (stat.size > MAX_FILE_BYTES || total + stat.size > MAX_TOTAL_BYTES) continue;
    const bytes = await fs.readFile(abs).catch(() => undefined);
    if (!bytes) continue;
    total += bytes.length;
    files.set(rel, { bytes, mode: stat.mode & 0o7777 });
  }
  return { files, listed, ignored };
}

/**
 * The earlier states of files a command changed, for those that have a certain one. Without a
 * baseline (git could not tell before the command) only files as in HEAD are given, as before
 * baselines existed: a command run that way is one git status could not describe anyway.
 */
export async function earlierStates(
  root: string,
  rels: string[],
  baseline: CommandBaseline | undefined,
): Promise<Map<string, EarlierState>> {
  const out = new Map<string, EarlierState>();
  const notInHead: string[] = [];
  for (const rel of rels) {
    const known = baseline?.files.get(rel);
    if (known !== undefined) {
      out.set(rel, known);
      continue;
    }
    // Listed but not read (too large): its content before the command is unknown.
    if (baseline?.listed.has(rel)) continue;
    const head = await headVersion(root, rel);
    if (head) out.set(rel, { bytes: head.bytes, mode: head.mode });
    else notInHead.push(rel);
  }
  // Neither in HEAD, nor untracked, nor ignored before the command: it did not exist.
  if (baseline) for (const rel of notInHead) if (!wasIgnored(baseline, rel)) out.set(rel, null);
  return out;
}

function wasIgnored(baseline: CommandBaseline, rel: string): boolean {
  return baseline.ignored.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));
}

async function headVersion(root: string, rel: string): Promise<{ bytes: Buffer; mode: number } | undefined> {
  // `./` makes the path relative to the project root, which may be a folder inside the repository.
  const spec = `HEAD:./${rel}`;
  try {
    const shown = await run('git', ['show', spec], { cwd: root, encoding: 'buffer', maxBuffer: 64 << 20 });
    const tree = await run('git', ['ls-tree', 'HEAD', '--', rel], { cwd: root, encoding: 'utf8' });
    const mode = tree.stdout.startsWith('100755') ? 0o755 : 0o644;
    return { bytes: shown.stdout as Buffer, mode };
  } catch {
    return undefined;
  }
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: GIT_TIMEOUT_MS,
  });
  return stdout;
}
