import fs from 'node:fs/promises';
import path from 'node:path';
import { type History, lastAssistant } from '../history/index.js';
import type { Editor } from '../tools/editor.js';
import type { ReadLedger } from '../tools/read-ledger.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Mode, TodoStore } from '../tools/tool-context.js';
import { proposedPlan, savedPlanPath, tasksFromPlan } from './plan-workflow.js';
import type { RunSink } from './run-sink.js';

export interface PendingPlanParts {
  root: () => string;
  registry: ToolRegistry;
  todos: TodoStore;
  reads: ReadLedger;
  toolEditor: (signal: AbortSignal) => Editor;
  /** Settles when the latest prompt's run has wound up (saved, reported, released). */
  runEnded: () => Promise<void>;
  /** Agent mode, as if the user had picked it. */
  switchToAgent: () => void;
  prompt: (request: { id: string; mode: Mode; text: string }, sink: RunSink) => Promise<void>;
}

/**
 * The plan a Plan run left for the user, until they Build it (todos from its tasks, Agent mode,
 * an implementation run) or Close it.
 */
export class PendingPlan {
  /** Relative to the project root. */
  private planPath: string | undefined;

  constructor(private readonly parts: PendingPlanParts) {}

  get path(): string | undefined {
    return this.planPath;
  }

  /** A resumed session's plan. */
  restore(planPath: string | undefined): void {
    this.planPath = planPath;
  }

  close(): void {
    this.planPath = undefined;
  }

  /** After a Plan run: the plan it saved, or the one it proposed inline (saved for it). */
  async note(id: string, history: History, firstNew: number, sink: RunSink): Promise<void> {
    let plan = savedPlanPath(history, firstNew);
    if (!plan) {
      const proposed = proposedPlan(lastAssistant(history)?.text ?? '');
      if (proposed) plan = await this.save(proposed, sink);
    }
    if (plan) {
      this.planPath = plan;
      sink.planReady?.(id, plan);
    }
  }

  /** Implements the plan: Agent mode, the todo list from its tasks, and a run. */
  async build(id: string, sink: RunSink): Promise<void> {
    // The preview opens as the plan run winds up (saving the session); a quick Build waits for it.
    await this.parts.runEnded();
    const plan = this.planPath;
    if (!plan) {
      sink.done(id, 'failed', 'There is no plan to build yet: ask for one in Plan mode.');
      return;
    }
    const text = await fs.readFile(path.join(this.parts.root(), plan), 'utf8').catch(() => undefined);
    if (text === undefined) {
      sink.done(id, 'failed', `The plan ${plan} could not be read; was it moved?`);
      return;
    }
    this.parts.todos.set(tasksFromPlan(text));
    this.parts.switchToAgent();
    this.planPath = undefined;
    await this.parts.prompt(
      {
        id,
        mode: 'agent',
        text: `Implement the plan in ${plan}. Work through its tasks in order, keep the todo list current, and check your work.\n\n${text}`,
      },
      sink,
    );
  }

  /** Saves an inline plan through create_plan_file, as the model would have. */
  private async save(
    proposed: { name: string; content: string },
    sink: RunSink,
  ): Promise<string | undefined> {
    const { registry, root, toolEditor, todos, reads } = this.parts;
    const result = await registry.call(
      'create_plan_file',
      proposed,
      {
        root: root(),
        // The user asked for this plan and its run has ended: there is nothing left to approve.
        editor: { ...toolEditor(new AbortController().signal), askPermission: async () => 'once' },
        signal: new AbortController().signal,
        config: {},
        todos,
        reads,
      },
      'plan',
    );
    const saved = (result.output as { path?: unknown }).path;
    if (result.ok && typeof saved === 'string') return saved;
    sink.notice(`The proposed plan could not be saved: ${result.content}`, 'warn');
    return undefined;
  }
}
