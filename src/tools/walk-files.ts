import type { Dirent } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { GENERATED_DIRS, IgnoreStack } from './ignore-rules.js';

export interface WalkOptions {
  /** Physical project root; returned paths are relative to it. */
  root: string;
  /** Directory to walk, relative to root ('' for the root). */
  start: string;
  /** Also walk hidden entries, generated folders and .gitignored files. */
  includeIgnored?: boolean;
  /** List symlinks as entries (never followed). */
  listLinks?: boolean;
  /** 1 lists only the start directory. */
  maxDepth?: number;
  signal?: AbortSignal;
  /** Set to true when a folder below maxDepth was not entered. */
  report?: { depthLimited: boolean };
}

export interface WalkEntry {
  rel: string;
  link: boolean;
}

const CONCURRENCY = 16;

/**
 * Native walk used when ripgrep is missing and for `list_files`: concurrent `readdir` with file
 * types (no stat per file), nested ignore rules, hidden and generated folders skipped below the
 * start, symlinks never followed.
 */
export async function walkFiles(options: WalkOptions): Promise<WalkEntry[]> {
  const { root, includeIgnored = false, listLinks = false, maxDepth = Number.POSITIVE_INFINITY } = options;
  const out: WalkEntry[] = [];
  const rootRules = includeIgnored
    ? IgnoreStack.empty()
    : await IgnoreStack.forAncestors(root, options.start);
  const queue: Array<{ rel: string; depth: number; rules: IgnoreStack }> = [
    { rel: options.start, depth: 1, rules: rootRules },
  ];
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      if (options.signal?.aborted) {
        reject(options.signal.reason ?? new Error('aborted'));
        return;
      }
      while (active < CONCURRENCY && queue.length > 0) {
        const job = queue.pop() as (typeof queue)[number];
        active++;
        visit(job)
          .then(() => {
            active--;
            if (queue.length === 0 && active === 0) resolve();
            else pump();
          })
          .catch(reject);
      }
      if (queue.length === 0 && active === 0) resolve();
    };

    const visit = async (job: (typeof queue)[number]): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(path.join(root, job.rel), { withFileTypes: true });
      } catch {
        return; // unreadable or vanished: a walk reports what it can see
      }
      let rules = job.rules;
      if (!includeIgnored && entries.some((e) => e.name === '.gitignore' || e.name === '.ignore')) {
        rules = await job.rules.enter(root, job.rel, new Set(entries.map((e) => e.name)));
      }
      for (const entry of entries) {
        const name = entry.name;
        const rel = job.rel === '' ? name : `${job.rel}/${name}`;
        const isDir = entry.isDirectory();
        if (name === '.git') continue;
        if (!includeIgnored) {
          if (name.startsWith('.')) continue;
          if (isDir && GENERATED_DIRS.has(name)) continue;
          if (rules.ignores(rel, isDir)) continue;
        }
        if (isDir) {
          if (job.depth < maxDepth) queue.push({ rel, depth: job.depth + 1, rules });
          else if (options.report) options.report.depthLimited = true;
        } else if (entry.isFile()) {
          out.push({ rel, link: false });
        } else if (entry.isSymbolicLink() && listLinks) {
          out.push({ rel, link: true });
        }
      }
    };
    pump();
  });
  return out;
}

export function compareRel(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
