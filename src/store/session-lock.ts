/**
 * One writer per session file. Two Neovim instances on one project each write their own sessions;
 * resuming a session another live instance has open is refused instead of interleaving two logs.
 * The lock is a file created exclusively (`wx`) holding the owner's pid and host; a lock whose
 * process is gone (crash, kill -9) is stale and taken over.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import { isNotFound } from '../util/atomic-write.js';
import { SessionBusyError } from './types.js';

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  at: number;
}

export interface SessionLock {
  readonly file: string;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return {
      pid: parsed.pid,
      host: parsed.host,
      token: String(parsed.token ?? ''),
      at: Number(parsed.at ?? 0),
    };
  } catch (err) {
    if (isNotFound(err)) return undefined;
    // Unreadable content: a writer died between create and write. Treat as stale.
    return { pid: -1, host: os.hostname(), token: '', at: 0 };
  }
}

/**
 * Whether the lock's owner may still be writing. A lock from another machine (shared home over
 * NFS) cannot be probed and is respected.
 */
function isStale(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return false;
  if (owner.pid === process.pid) return false;
  return owner.pid <= 0 || !alive(owner.pid);
}

export async function acquireSessionLock(file: string, sessionId: string): Promise<SessionLock> {
  const me: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    token: randomBytes(8).toString('hex'),
    at: Date.now(),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await fs.writeFile(file, JSON.stringify(me), { flag: 'wx' });
      return {
        file,
        release: async () => {
          // Only remove our own lock: after a stale takeover the file may be someone else's.
          const owner = await readOwner(file);
          if (owner?.token === me.token) await fs.rm(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await readOwner(file);
    if (!owner) continue;
    if (owner.pid === process.pid && owner.host === me.host) {
      throw new SessionBusyError(sessionId, owner);
    }
    if (!isStale(owner)) throw new SessionBusyError(sessionId, owner);
    // Rename first so that of two instances taking over the same stale lock only one removes it.
    const aside = `${file}.${me.token}.stale`;
    try {
      await fs.rename(file, aside);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      continue;
    }
    const moved = await readOwner(aside);
    await fs.rm(aside, { force: true });
    if (moved && moved.token !== owner.token) {
      // We moved a fresh lock another instance had just taken: put it back and yield to it.
      await fs.writeFile(file, JSON.stringify(moved), { flag: 'wx' }).catch(() => {});
      throw new SessionBusyError(sessionId, moved);
    }
  }
  throw new Error(`could not lock session ${sessionId}`);
}

/** The live owner of a session's lock, if any (for listing and for refusing remove/rename). */
export async function lockOwner(file: string): Promise<{ pid: number; host: string } | undefined> {
  const owner = await readOwner(file);
  if (!owner || isStale(owner)) return undefined;
  return { pid: owner.pid, host: owner.host };
}
