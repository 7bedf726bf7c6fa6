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
 * units through a shared counter, so an uneven tree still spreads over the cores.
 */
const WALK_SOURCE = `
function walkUnits(fs, job, claim) {
  const excluded = new Set(job.excluded);
  const parts = [];
  let total = 0;
  const join = (rel, name) => (rel === '' ? name : rel + '/' + name);
  for (let u = claim(); u < job.units.length; u = claim()) {
    const unit = job.units[u];
    const recursive = unit[0] === 'R';
    const stack = [unit.slice(2)];
    const names = [];
    const recent = [];
    while (stack.length > 0) {
      const rel = stack.pop();
      let entries;
      try {
        entries = fs.readdirSync(rel === '' ? job.root : job.root + '/' + rel, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const path = join(rel, entry.name);
        if (entry.isDirectory()) {
          if (recursive && !excluded.has(entry.name)) stack.push(path);
        } else if (entry.isFile()) {
          if (++total > job.limit) return { parts, overflow: true };
          names.push(path);
          if (job.stat) {
            try {
              const s = fs.lstatSync(job.root + '/' + path);
              if (s.ctimeMs >= job.since || s.mtimeMs >= job.since) recent.push(path);
            } catch {}
          }
        }
      }
    }
    parts.push([u, names.join('\\0'), recent.join('\\0')]);
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
}

/** Per unit: [unit index, NUL-joined file names, NUL-joined names of recently changed files]. */
type Part = [number, string, string];

export interface WalkResult {
  /**
   * Every file name, NUL-joined in unit order: the same tree always gives the same string, so
   * "did any name appear or vanish" is one string comparison instead of two 50k-entry sets.
   */
  names: string;
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
  return {
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
