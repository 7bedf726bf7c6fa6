import { type HostConfig, hostConfigSchema } from '../config/schema.js';
import { appendUser, createHistory, type History, lastAssistant, sessionUsage } from '../history/index.js';
import { PermissionService, parseRules } from '../permissions/index.js';
import { SessionStore } from '../store/index.js';
import { createToolRegistry } from '../tools/all-tools.js';
import type { Editor } from '../tools/editor.js';
import { ReadLedger } from '../tools/read-ledger.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createTodoStore, type Mode, type TodoStore } from '../tools/tool-context.js';
import type { Logger } from '../util/logger.js';
import { redact } from '../util/redact.js';
import { warmHttpClient } from '../util/warm-http.js';
import { runAgentLoop } from './agent-loop.js';
import { ContextMeter } from './context-meter.js';
import { FIRST_RUN_HELP } from './first-run.js';
import { ModelResolver, type ResolvedModel } from './model-resolver.js';
import { PendingPlan } from './pending-plan.js';
import { readProjectInstructions } from './project-instructions.js';
import { projectString, toolConfig } from './project-settings.js';
import type { RunSink } from './run-sink.js';
import { SessionRecorder } from './session-recorder.js';
import { SessionTitler } from './session-titler.js';
import { buildSystemPrompt } from './system-prompt.js';
import { type EditorPort, HEADLESS_EDITOR, toolEditor } from './tool-editor.js';
import { ToolListings } from './tool-listings.js';
import { type TranscriptEntry, transcriptOf } from './transcript.js';

export interface ChatSessionOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  cwd: string;
  editor?: EditorPort;
  onModeChange?: (mode: Mode) => void;
}

export interface PromptRequest {
  id: string;
  text: string;
  mode?: Mode | undefined;
  model?: string | undefined;
}

/**
 * One conversation: it owns the history, the mode, the todo list and the latest plan, resolves
 * the provider from the user's config (or, with none, from what this machine offers), and runs
 * each prompt through the agent loop.
 */
export class ChatSession {
  private config: HostConfig = hostConfigSchema.parse({});
  private history: History = createHistory();
  private mode: Mode = 'ask';
  private modeSetByUser = false;
  private readonly todos: TodoStore = createTodoStore();
  /** What the model has seen of each file in this chat. */
  private readonly reads = new ReadLedger();
  private readonly registry: ToolRegistry = createToolRegistry();
  private running: AbortController | undefined;
  /** Settles when the latest prompt's run has wound up (saved, reported, released). */
  private runEnded: Promise<void> = Promise.resolve();
  private lastModel: string | undefined;
  private readonly plan: PendingPlan;
  private readonly permissions = new PermissionService();
  /** Rule errors from the last configure(), told to the user with the next run. */
  private configProblems: string[] = [];
  private store: Promise<SessionStore | undefined> = Promise.resolve(undefined);
  private storeDir: string | undefined;
  private recorder: SessionRecorder;
  private readonly models: ModelResolver;
  /** Where the recorder's one-time warning goes: the sink of the run in progress. */
  private warnSink: RunSink | undefined;
  private readonly context: ContextMeter;
  /** The tools each mode offers with their JSON Schemas, and their estimated size in tokens. */
  private readonly listings: ToolListings;
  /** The model a resumed session used, until the user picks another. */
  private resumedModel: string | undefined;
  private readonly titler: SessionTitler;

  constructor(private readonly options: ChatSessionOptions) {
    this.recorder = this.newRecorder();
    this.models = new ModelResolver(this.config, options.env, options.logger);
    this.listings = new ToolListings(this.registry);
    this.titler = new SessionTitler(options.logger);
    this.context = new ContextMeter({
      listings: this.listings,
      models: this.models,
      logger: options.logger,
      config: () => this.config,
      recorder: () => this.recorder,
    });
    this.plan = new PendingPlan({
      root: () => this.root(),
      registry: this.registry,
      todos: this.todos,
      reads: this.reads,
      toolEditor: (signal) => this.toolEditor(signal),
      runEnded: () => this.runEnded,
      switchToAgent: () => {
        this.setMode('agent');
        this.options.onModeChange?.('agent');
      },
      prompt: (request, sink) => this.prompt(request, sink),
    });
  }

  configure(raw: unknown): void {
    const parsed = hostConfigSchema.safeParse(raw);
    if (!parsed.success) {
      this.options.logger.error('configuration rejected:', parsed.error.issues);
      return;
    }
    this.config = parsed.data;
    if (!this.modeSetByUser) this.mode = this.config.mode;
    const setup = parseRules(this.config.permissions, 'permissions');
    const project = parseRules(this.config.project?.permissions ?? [], '.agent/config.json permissions');
    this.permissions.setRules('setup', setup.rules);
    this.permissions.setRules('project', project.rules);
    this.permissions.setAutoApprove(this.config.auto_approve);
    this.configProblems = [...setup.errors, ...project.errors];
    if (this.config.data_dir && this.config.data_dir !== this.storeDir) {
      this.storeDir = this.config.data_dir;
      const dir = this.config.data_dir;
      this.store = SessionStore.open(dir).catch((err: unknown) => {
        this.options.logger.error(`sessions unavailable in ${dir}:`, err);
        return undefined;
      });
      this.recorder = this.newRecorder();
    }
    this.models.reset(this.config);
    this.warmUp();
  }

  setMode(mode: Mode): void {
    this.mode = mode;
    this.modeSetByUser = true;
  }

  status(): {
    mode: Mode;
    model: string | undefined;
    running: boolean;
    messages: number;
    todos: number;
    plan?: string;
  } {
    return {
      mode: this.mode,
      model: this.lastModel ?? this.config.model,
      running: this.running !== undefined,
      messages: this.history.messages.length,
      todos: this.todos.get().length,
      ...(this.plan.path ? { plan: this.plan.path } : {}),
    };
  }

  async prompt(request: PromptRequest, sink: RunSink): Promise<void> {
    if (this.running) {
      sink.done(request.id, 'failed', 'A run is already in progress; stop it or wait for it to end.');
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    let ended = () => {};
    this.runEnded = new Promise((resolve) => {
      ended = resolve;
    });
    try {
      const target = await this.resolveModel(request.model);
      if (!target) {
        sink.notice(FIRST_RUN_HELP, 'warn');
        sink.done(request.id, 'failed', 'No model provider is configured.');
        return;
      }
      if (request.mode && request.mode !== this.mode) this.setMode(request.mode);
      for (const problem of this.configProblems.splice(0))
        sink.notice(`Ignored permission rule: ${problem}`, 'warn');
      const mode = this.mode;
      this.lastModel = `${target.provider.id}/${target.model}`;
      sink.started(request.id, this.lastModel);
      const root = this.root();
      const system = this.systemFor(mode, await readProjectInstructions(root, this.options.cwd), target);
      // Stopped or cleared while the model and the instructions were looked up: the prompt must
      // not land in the conversation that replaced it.
      if (controller.signal.aborted) {
        sink.done(request.id, 'cancelled');
        return;
      }
      const firstNew = this.history.messages.length;
      this.warnSink = sink;
      const userMessage = appendUser(this.history, request.text);
      // Saved while the first request goes out (a crash then loses at most this message); the
      // loop waits for it before committing the answer or running any tool.
      const model = this.lastModel;
      const saved = (async () => {
        await this.recorder.ensure({ root, mode, model, firstPrompt: request.text });
        await this.recorder.beginRun(request.id);
        await this.recorder.append(userMessage);
      })();
      const completion = await runAgentLoop({
        id: request.id,
        history: this.history,
        provider: target.provider,
        model: target.model,
        mode,
        system,
        registry: this.registry,
        tools: this.listings.for(mode, target.model).tools,
        context: {
          root,
          editor: this.toolEditor(controller.signal),
          signal: controller.signal,
          config: toolConfig(this.config),
          todos: this.todos,
          reads: this.reads,
        },
        sink,
        maxSteps: this.config.max_steps,
        beforeRequest: () =>
          this.context.fit({
            id: request.id,
            history: this.history,
            target,
            system,
            mode,
            signal: controller.signal,
            sink,
            force: false,
          }),
        onCommit: async (message) => {
          this.context.stamp(message);
          await saved;
          await this.recorder.append(message);
        },
        onCallSettled: async (message, result) => {
          await this.recorder.update(message);
          if (result && (result.tool === 'shell' || result.tool === 'build')) {
            await this.recorder.changedByCommand(root, result.changed_paths);
          }
        },
        onStep: (step, maxSteps) =>
          void this.context.report(request.id, this.history, step, maxSteps, target, sink),
        buildCommand: projectString(this.config, 'build_command'),
      });
      await saved;
      if (completion.error) completion.error = redact(completion.error);
      if (mode === 'plan' && completion.outcome === 'done')
        await this.plan.note(request.id, this.history, firstNew, sink);
      const dropped = await this.recorder.endRun();
      if (dropped) sink.notice(dropped, 'warn');
      await this.saveMeta();
      sink.done(request.id, completion.outcome, completion.error, completion);
      if (completion.outcome === 'done') this.refineTitle(target, request.text);
    } catch (err) {
      if (controller.signal.aborted) {
        sink.done(request.id, 'cancelled');
      } else {
        const message = redact(err instanceof Error ? err.message : String(err));
        this.options.logger.warn(`run ${request.id} failed:`, message);
        sink.done(request.id, 'failed', message);
      }
    } finally {
      await this.recorder.endRun();
      if (this.running === controller) this.running = undefined;
      ended();
    }
  }

  /** Mode, model, todos, plan and totals, saved with the session after each run. */
  private async saveMeta(): Promise<void> {
    const usage = sessionUsage(this.history);
    await this.recorder.meta({
      mode: this.mode,
      ...(this.lastModel ? { model: this.lastModel } : {}),
      todos: this.todos.get(),
      ...(this.plan.path ? { planPath: this.plan.path } : {}),
      usage,
    });
  }

  /** After the session's first completed turn the model may name it (see SessionTitler). */
  private refineTitle(target: ResolvedModel, prompt: string): void {
    if (this.config.titles !== 'model') return;
    if (this.history.messages.filter((m) => m.role === 'user').length !== 1) return;
    this.titler.refine(this.recorder, target, prompt, lastAssistant(this.history)?.text ?? '');
  }

  // Sessions ----------------------------------------------------------------------------------

  async listSessions() {
    return this.recorder.list(this.root());
  }

  /**
   * Continues a saved session: its exact history, mode, model, todos and plan. Returns the
   * transcript to draw, or undefined when the project has no session yet.
   */
  async resume(
    id: string | undefined,
  ): Promise<{ session: string; entries: TranscriptEntry[]; mode: Mode; model: string } | undefined> {
    if (this.running) throw new Error('A run is in progress; stop it before resuming a session.');
    const data = await this.recorder.resume(this.root(), id);
    if (!data) return undefined;
    this.titler.cancel();
    this.history = { version: 1, messages: data.messages };
    this.mode = data.meta.mode;
    this.modeSetByUser = true;
    this.todos.set(data.meta.todos ?? []);
    this.reads.clear();
    this.plan.restore(data.meta.planPath);
    this.lastModel = data.meta.model || undefined;
    this.resumedModel = this.lastModel;
    this.permissions.clearSession();
    return {
      session: data.meta.id,
      entries: transcriptOf(this.history),
      mode: this.mode,
      model: data.meta.model,
    };
  }

  renameSession(title: string, id?: string): Promise<void> {
    return this.recorder.rename(title, id);
  }

  exportSession(id?: string): Promise<string> {
    return this.recorder.exportMarkdown(id);
  }

  /** Deletes a saved session; true when it was the one open in this chat. */
  async deleteSession(id: string): Promise<boolean> {
    const open = id === this.sessionId;
    await this.recorder.remove(id);
    return open;
  }

  /** Puts the project's files back as they were before the last run (conflicts are reported). */
  async undo(force: boolean) {
    if (this.running) throw new Error('A run is in progress; stop it before undoing.');
    const result = await this.recorder.undo(force);
    if (!result) throw new Error('There is nothing to undo in this chat.');
    return result;
  }

  async redo(force: boolean) {
    if (this.running) throw new Error('A run is in progress; stop it before redoing.');
    const result = await this.recorder.redo(force);
    if (!result) throw new Error('There is nothing to redo in this chat.');
    return result;
  }

  get sessionId(): string | undefined {
    return this.recorder.sessionId;
  }

  private newRecorder(): SessionRecorder {
    return new SessionRecorder(this.store, this.options.logger, (text) =>
      this.warnSink?.notice(text, 'warn'),
    );
  }

  /** `:Agent compact`: summarises older turns now, whatever the size. */
  async compact(id: string, sink: RunSink): Promise<void> {
    if (this.running) {
      sink.notice('A run is in progress; compact after it ends.', 'warn');
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    try {
      const target = await this.resolveModel(undefined);
      if (!target) {
        sink.notice('No model provider is configured, so nothing can summarise the conversation.', 'warn');
        return;
      }
      const system = this.systemFor(this.mode, '', target);
      const blocked = await this.context.fit({
        id,
        history: this.history,
        target,
        system,
        mode: this.mode,
        signal: controller.signal,
        sink,
        force: true,
      });
      if (blocked) sink.notice(blocked, 'warn');
    } finally {
      this.running = undefined;
      sink.activity?.(id, undefined);
    }
  }

  /** Implements the latest plan: Agent mode, the todo list from its tasks, and a run. */
  build(id: string, sink: RunSink): Promise<void> {
    return this.plan.build(id, sink);
  }

  /** Every model the configured (or detected) providers offer, for the model picker. */
  listModels(): Promise<{ ref: string; context_window: number }[]> {
    return this.models.listModels();
  }

  /** The "always" answers of this session, as rules to save in the project config. */
  sessionRules(): { tool: string; pattern?: string; action: string }[] {
    return this.permissions
      .rules()
      .filter((r) => r.source === 'session')
      .map((r) => ({
        tool: r.tool,
        ...(r.pattern === undefined ? {} : { pattern: r.pattern }),
        action: r.action,
      }));
  }

  closePlan(): void {
    this.plan.close();
  }

  stop(): void {
    this.running?.abort();
  }

  clear(): void {
    this.stop();
    this.titler.cancel();
    this.history = createHistory();
    this.todos.set([]);
    this.reads.clear();
    this.plan.close();
    this.resumedModel = undefined;
    this.permissions.clearSession();
    void this.recorder.close();
  }

  /** Releases the session's lock (Neovim is quitting). */
  async shutdown(): Promise<void> {
    this.stop();
    this.titler.cancel();
    await this.recorder.close();
    await (await this.store)?.close();
  }

  private systemFor(mode: Mode, instructions: string, target: ResolvedModel): string {
    return buildSystemPrompt({
      mode,
      root: this.root(),
      date: new Date().toISOString().slice(0, 10),
      tools: this.listings.for(mode, target.model).tools,
      instructions,
    });
  }

  private root(): string {
    return this.config.cwd ?? this.options.cwd;
  }

  private toolEditor(signal: AbortSignal): Editor {
    return toolEditor({
      port: this.options.editor ?? HEADLESS_EDITOR,
      permissions: this.permissions,
      recorder: this.recorder,
      root: this.root(),
      signal,
    });
  }

  private resolveModel(override: string | undefined): Promise<ResolvedModel | undefined> {
    return this.models.resolve(override ?? this.resumedModel ?? this.config.model);
  }

  /**
   * Does the slow first-time work while the user is still typing: Node loads its HTTP client on
   * the first fetch (~80 ms), and provider resolution may probe local servers.
   */
  private warmUp(): void {
    warmHttpClient().catch(() => undefined);
    this.resolveModel(undefined)
      .then((target) => target && this.models.knownWindow(target))
      .catch(() => undefined);
  }
}
