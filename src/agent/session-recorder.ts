import path from 'node:path';
import type { Message } from '../history/types.js';
import {
  type MetaPatch,
  type RestoreResult,
  SessionBusyError,
  type SessionData,
  type SessionHandle,
  type SessionList,
  type SessionStore,
} from '../store/index.js';
import type { Mode } from '../tools/tool-context.js';
import type { Logger } from '../util/logger.js';
import { type CommandBaseline, captureBaseline, earlierStates } from './command-baseline.js';

/**
 * Keeps one chat on disk as it goes: messages appended as they are committed (before the next
 * request), tool results as they arrive, metadata after each run, and per-run checkpoints of
 * the files the agent changes. Disk trouble never stops a run: it is logged and told once.
 */
export class SessionRecorder {
  private handle: SessionHandle | undefined;
  private warned = false;
  private runOpen = false;
  /** Taken when the latest shell or build command was allowed; used once it settles. */
  private baseline: CommandBaseline | undefined;

  constructor(
    private readonly store: Promise<SessionStore | undefined>,
    private readonly logger: Logger,
    private readonly warn: (text: string) => void,
  ) {}

  get sessionId(): string | undefined {
    return this.handle?.id;
  }

  /** Starts a session at the first prompt of a chat. */
  async ensure(init: { root: string; mode: Mode; model: string; firstPrompt: string }): Promise<void> {
    if (this.handle) return;
    const store = await this.store;
    if (!store) return;
    await this.guard('start a session', async () => {
      this.handle = await store.create(init);
    });
  }

  append(message: Message): Promise<void> {
    return this.guard('save a message', async () => this.handle?.append(message));
  }

  update(message: Message): Promise<void> {
    return this.guard('save a tool result', async () => this.handle?.update(message));
  }

  meta(patch: MetaPatch): Promise<void> {
    return this.guard('save the session state', async () => this.handle?.setMeta(patch));
  }

  /** A compaction inserted `summary` before the kept messages: rewrite them in that order. */
  compacted(messages: Message[], summaryIndex: number): Promise<void> {
    const tail = messages.slice(summaryIndex);
    const kept = tail.slice(1).map((m) => m.id);
    return this.guard('save the summary', async () => this.handle?.replace(kept, tail));
  }

  async beginRun(runId: string): Promise<void> {
    if (!this.handle) return;
    await this.guard('start a checkpoint', async () => {
      await this.handle?.checkpoints.beginRun(runId);
      this.runOpen = true;
    });
  }

  /** Before a file tool writes: its previous content (or absence) goes into the checkpoint. */
  beforeChange(absPath: string): Promise<void> {
    if (!this.runOpen) return Promise.resolve();
    return this.guard('checkpoint a file', async () => {
      await this.handle?.checkpoints.beforeChange(absPath);
    });
  }

  /**
   * Right before a shell or build command runs: what git cannot restore (untracked and locally
   * changed files) as it is now, within a budget (command-baseline.ts).
   */
  async beforeCommand(root: string): Promise<void> {
    this.baseline = undefined;
    if (!this.runOpen || !this.handle) return;
    this.baseline = await captureBaseline(root);
  }

  /**
   * After a shell or build command (also when it changed nothing, so its baseline is not used
   * for another): the earlier state of each file it changed goes into the checkpoint when it is
   * certain; the others are left out, so undo never writes what it cannot be sure of.
   */
  async changedByCommand(root: string, rels: string[]): Promise<void> {
    const baseline = this.baseline;
    this.baseline = undefined;
    if (!this.runOpen || !this.handle || rels.length === 0) return;
    const states = await earlierStates(root, rels, baseline);
    for (const [rel, state] of states) {
      await this.guard('checkpoint a file', async () => {
        await this.handle?.checkpoints.recordBefore(path.join(root, rel), state);
      });
    }
  }

  /** Ends the run's checkpoint; returns a sentence when old checkpoints had to be dropped. */
  async endRun(): Promise<string | undefined> {
    if (!this.runOpen) return undefined;
    this.runOpen = false;
    let note: string | undefined;
    await this.guard('close the checkpoint', async () => {
      const result = await this.handle?.checkpoints.endRun();
      if (result && result.dropped.length > 0) {
        note = `Checkpoints of ${result.dropped.length} older run(s) were dropped to stay within the size limit; they can no longer be undone.`;
      }
    });
    return note;
  }

  async undo(force: boolean): Promise<RestoreResult | undefined> {
    return this.handle?.checkpoints.undo({ force });
  }

  async redo(force: boolean): Promise<RestoreResult | undefined> {
    return this.handle?.checkpoints.redo({ force });
  }

  async list(root: string): Promise<SessionList> {
    const store = await this.store;
    return store ? store.list(root) : { sessions: [], problems: [] };
  }

  /** Takes over a saved session (the latest of the project without an id). */
  async resume(root: string, id?: string): Promise<SessionData | undefined> {
    const store = await this.store;
    if (!store) throw new Error('Sessions are not available: the data folder could not be opened.');
    const target = id ?? (await store.latest(root))?.id;
    if (!target) return undefined;
    if (target === this.handle?.id) throw new Error('That session is the one open in this chat.');
    try {
      const { handle, data } = await store.resume(target);
      await this.close();
      this.handle = handle;
      return data;
    } catch (err) {
      if (err instanceof SessionBusyError) {
        throw new Error(
          `That session is open in another Neovim (pid ${err.owner.pid}); close it there first.`,
        );
      }
      throw err;
    }
  }

  /** The session being written and its title now, to refine that title later. */
  titleInfo(): { id: string; title: string } | undefined {
    const info = this.handle?.info();
    return info ? { id: info.id, title: info.title } : undefined;
  }

  /** Sets the model's title unless the session changed or was renamed since `expected`. */
  async retitle(id: string, expected: string, title: string): Promise<void> {
    const handle = this.handle;
    if (handle?.id !== id) return;
    await this.guard('save the title', () => handle.retitle(title, expected));
  }

  async rename(title: string, id?: string): Promise<void> {
    const store = await this.store;
    const target = id ?? this.handle?.id;
    if (!store || !target) throw new Error('There is no session to rename yet: send a prompt first.');
    await store.rename(target, title);
  }

  async exportMarkdown(id?: string): Promise<string> {
    const store = await this.store;
    const target = id ?? this.handle?.id;
    if (!store || !target) throw new Error('There is no session to export yet: send a prompt first.');
    return store.exportMarkdown(target);
  }

  async remove(id: string): Promise<void> {
    const store = await this.store;
    if (!store) return;
    if (id === this.handle?.id) await this.close();
    await store.remove(id);
  }

  /** Lets go of the session (a new chat starts a new one at its first prompt). */
  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.runOpen = false;
    await handle?.close().catch((err: unknown) => this.logger.warn('closing the session failed:', err));
  }

  private async guard(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.logger.error(`could not ${what}:`, err);
      if (!this.warned) {
        this.warned = true;
        this.warn(
          `Could not ${what} (${err instanceof Error ? err.message : String(err)}); this chat may not be saved.`,
        );
      }
    }
  }
}
