import * as nodeFs from 'node:fs';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * The walk behind the changed-files snapshot. It stats every file of the project, which on a
 * 50k-file tree is ~50k syscalls: done with synchronous calls inside worker threads (async fs
 * costs several times more per call, and sync calls on the main thread would freeze the host's
 * RPC loop). Kept as plain JavaScript source so the same text runs in a worker (eval) and, when
 * workers are unavailable, in-process.
 *
 * A unit is "S:<dir>" (files directly in dir) or "R:<dir>" (everything below dir). Workers claim
 * units through a shared counter, so an uneven tree still spreads over the cores. Each unit's
 * entries (files, and folders with a trailing "/") come back NUL-joined, files before folders in
 * every folder, in readdir order.
 *
 * With `prior` (the same unit's entries from the walk before the command), a folder whose own
 * mtime and ctime are older than `since` had no entry added, removed or renamed, so its prior
 * listing is reused and only its files are stat'ed: a stat instead of a readdir per folder.
 */
const WALK_SOURCE = `
function parsePrior(text) {
  const dirs = new Map();
  const known = new Set();
  if (text !== '') {
    for (const entry of text.split('\\0')) {
      const isDir = entry.endsWith('/');
      const path = isDir ? entry.slice(0, -1) : entry;
      const slash = path.lastIndexOf('/');
      const parent = slash === -1 ? '' : path.slice(0, slash);
      let listing = dirs.get(parent);
      if (!listing) {
        listing = { files: [], dirs: [] };
        dirs.set(parent, listing);
      }
      if (isDir) {
        listing.dirs.push(path.slice(slash + 1));
        known.add(path);
      } else {
        listing.files.push(path.slice(slash + 1));
      }
    }
  }
  return { dirs, known };
}

function walkUnits(fs, job, claim) {
  const excluded = new Set(job.excluded);
  const parts = [];
  let total = 0;
  const join = (rel, name) => (rel === '' ? name : rel + '/' + name);
  for (let u = claim(); u < job.units.length; u = claim()) {
    const unit = job.units[u];
    const recursive = unit[0] === 'R';
    const prior = job.prior && typeof job.prior[u] === 'string' ? parsePrior(job.prior[u]) : undefined;
    const stack = [[unit.slice(2), prior !== undefined]];
    const out = [];
    const recent = [];
    while (stack.length > 0) {
      const [rel, known] = stack.pop();
      const abs = rel === '' ? job.root : job.root + '/' + rel;
      let files;
      let dirs;
      if (known) {
        let st;
        try {
          st = fs.lstatSync(abs);
        } catch {
          continue;
        }
        if (st.mtimeMs < job.since && st.ctimeMs < job.since) {
          const listing = prior.dirs.get(rel);
          files = listing ? listing.files : [];
          dirs = listing ? listing.dirs : [];
        }
      }
      if (files === undefined) {
        let entries;
        try {
          entries = fs.readdirSync(abs, { withFileTypes: true });
        } catch {
          continue;
        }
        files = [];
        dirs = [];
        for (const entry of entries) {
          if (entry.isDirectory()) {
            if (recursive && !excluded.has(entry.name)) dirs.push(entry.name);
          } else if (entry.isFile()) {
            files.push(entry.name);
          }
        }
      }
      for (const name of files) {
        const path = join(rel, name);
        if (++total > job.limit) return { parts, overflow: true };
        if (job.stat) {
          let s;
          try {
            s = fs.lstatSync(job.root + '/' + path);
          } catch {
            continue;
          }
          if (s.ctimeMs >= job.since || s.mtimeMs >= job.since) recent.push(path);
        }
        out.push(path);
      }
      for (const name of dirs) {
        const path = join(rel, name);
        out.push(path + '/');
        stack.push([path, prior !== undefined && prior.known.has(path)]);
      }
    }
    parts.push([u, out.join('\\0'), recent.join('\\0')]);
  }
  return { parts, overflow: false };
}
`;

const WORKER_SOURCE = `
const fs = require('node:fs');
const { parentPort } = require('node:worker_threads');
${WALK_SOURCE}
parentPort.on('message', (msg) => {
  const counter = new Int32Array(msg.counter);
  try {
    parentPort.postMessage({ id: msg.id, ...walkUnits(fs, msg.job, () => Atomics.add(counter, 0, 1)) });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String(err) });
  }
});
`;

export interface WalkJob {
  root: string;
  units: string[];
  excluded: string[];
  /** Stat files and report those with ctime or mtime at or after `since` (epoch ms). */
  stat: boolean;
  since: number;
  /** Give up (WalkResult.overflow) past this many files: tracking a home folder is not worth it. */
  limit: number;
  /** Per unit (same index): its entries from an earlier walk, or undefined for a new unit. */
  prior?: Array<string | undefined>;
}

/** Per unit: [unit index, NUL-joined entries, NUL-joined names of recently changed files]. */
type Part = [number, string, string];

export interface WalkResult {
  /**
   * Every entry (folders end in "/"), NUL-joined in unit order: the same tree always gives the
   * same string, so "did any name appear or vanish" is one string comparison instead of two
   * 50k-entry sets.
   */
  names: string;
  /** The entries of each unit, by unit index: the `prior` of the next walk. */
  perUnit: string[];
  recent: string[];
  overflow: boolean;
}

type WalkOutput = { parts: Part[]; overflow: boolean };
type WalkFn = (fsModule: typeof nodeFs, job: WalkJob, claim: () => number) => WalkOutput;

let inProcess: WalkFn | undefined;
let pool: Worker[] | undefined;
let nextId = 0;

function workers(): Worker[] {
  if (!pool) {
    const size = Math.max(1, Math.min(2, os.availableParallelism()));
    pool = Array.from({ length: size }, () => {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      // Idle workers must not keep the host alive.
      worker.unref();
      worker.on('error', () => {
        pool = undefined;
      });
      return worker;
    });
  }
  return pool;
}

function runOn(worker: Worker, job: WalkJob, counter: SharedArrayBuffer): Promise<WalkOutput> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (msg: WalkOutput & { id: number; error?: string }) => {
      if (msg.id !== id) return;
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.unref();
      if (msg.error) reject(new Error(msg.error));
      else resolve(msg);
    };
    const onError = (err: Error) => {
      worker.off('message', onMessage);
      worker.unref();
      reject(err);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    // Referenced only while it works: a pending walk must keep the process alive, an idle pool not.
    worker.ref();
    worker.postMessage({ id, job, counter });
  });
}

export function splitNames(text: string): string[] {
  return text === '' ? [] : text.split('\0');
}

/** Runs a walk over the worker pool (in-process if workers cannot start). */
export async function walkProject(job: WalkJob): Promise<WalkResult> {
  let outputs: WalkOutput[];
  try {
    const counter = new SharedArrayBuffer(4);
    outputs = await Promise.all(workers().map((w) => runOn(w, job, counter)));
  } catch {
    inProcess ??= new Function(
      'fs',
      'job',
      'claim',
      `${WALK_SOURCE}\nreturn walkUnits(fs, job, claim);`,
    ) as WalkFn;
    let next = 0;
    outputs = [inProcess(nodeFs, job, () => next++)];
  }
  const parts = outputs.flatMap((o) => o.parts).sort((a, b) => a[0] - b[0]);
  const perUnit: string[] = new Array(job.units.length).fill('');
  for (const part of parts) perUnit[part[0]] = part[1];
  return {
    perUnit,
    overflow: outputs.some((o) => o.overflow),
    names: parts
      .map((p) => p[1])
      .filter((n) => n !== '')
      .join('\0'),
    recent: parts.flatMap((p) => splitNames(p[2])),
  };
}

/**
 * Units for a project: the root's own files plus one recursive unit per top-level folder; with
 * few top-level folders (src/, test/) their subfolders become the units, so two workers still
 * get comparable shares.
 */
export async function unitsFor(root: string, excluded: ReadonlySet<string>): Promise<string[]> {
  const units = ['S:'];
  const top = await fs.readdir(root, { withFileTypes: true });
  const dirs = top.filter((e) => e.isDirectory() && !excluded.has(e.name)).map((e) => e.name);
  if (dirs.length >= 16) return units.concat(dirs.map((d) => `R:${d}`));
  const nested = await Promise.all(
    dirs.map(async (dir) => {
      const entries = await fs.readdir(`${root}/${dir}`, { withFileTypes: true }).catch(() => []);
      return [
        `S:${dir}`,
        ...entries.filter((e) => e.isDirectory() && !excluded.has(e.name)).map((e) => `R:${dir}/${e.name}`),
      ];
    }),
  );
  return units.concat(...nested);
}
