import { ZodError } from 'zod';
import type { ChatSession } from '../agent/chat-session.js';
import type { RunSink } from '../agent/run-sink.js';
import { type NvimEditor, QuestionDismissed } from '../nvim/nvim-editor.js';
import { StreamBatcher } from '../nvim/stream-batcher.js';
import type { UiClient } from '../nvim/ui-client.js';
import {
  isNotificationMethod,
  isRequestMethod,
  type NotificationMethod,
  notificationSchemas,
  PROTOCOL_VERSION,
  type RequestMethod,
  requestSchemas,
} from '../rpc/protocol.js';
import type { Logger } from '../util/logger.js';

/** Lua encodes an empty table as an empty array; every method takes an object. */
function payload(args: unknown[]): unknown {
  const first = args[0];
  return first === undefined || first === null || (Array.isArray(first) && first.length === 0) ? {} : first;
}

/**
 * The dispatcher for Lua -> host calls, shared by the job host and the classic remote plugin:
 * validates each call against the method table and routes it to the chat session.
 */
export class HostService {
  private readonly batcher: StreamBatcher;

  constructor(
    private readonly ui: UiClient,
    private readonly chat: ChatSession,
    private readonly logger: Logger,
    private readonly version: string,
    private readonly editor?: NvimEditor,
  ) {
    this.batcher = new StreamBatcher((id, chunk) => {
      void this.ui.dispatch('stream', {
        id,
        ...(chunk.text ? { text: chunk.text } : {}),
        ...(chunk.reasoning ? { reasoning: chunk.reasoning } : {}),
      });
    });
  }

  /** Tells Lua the host is up; Lua answers with `configure` and flushes its queue. */
  async announce(): Promise<void> {
    await this.ui.dispatch('ready', {
      protocol: PROTOCOL_VERSION,
      pid: process.pid,
      log: this.logger.file ?? '',
      version: this.version,
    });
  }

  async handleRequest(method: string, args: unknown[]): Promise<unknown> {
    if (!isRequestMethod(method)) throw new Error(`unknown method ${method}`);
    const params = requestSchemas[method].parse(payload(args));
    return this.request(method, params);
  }

  handleNotification(method: string, args: unknown[]): void {
    if (!isNotificationMethod(method)) {
      this.logger.warn(`unknown notification ${method}`);
      return;
    }
    try {
      this.notification(method, payload(args));
    } catch (err) {
      const detail =
        err instanceof ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : err;
      this.logger.error(`notification ${method} rejected:`, detail);
    }
  }

  private request(method: RequestMethod, _params: unknown): unknown {
    switch (method) {
      case 'ping':
        return { pong: true, pid: process.pid, protocol: PROTOCOL_VERSION, version: this.version };
      case 'status':
        return this.chat.status();
    }
  }

  private notification(method: NotificationMethod, raw: unknown): void {
    switch (method) {
      case 'configure': {
        const { config } = notificationSchemas.configure.parse(raw);
        this.chat.configure(config);
        return;
      }
      case 'prompt': {
        const params = notificationSchemas.prompt.parse(raw);
        void this.chat.prompt(params, this.sink());
        return;
      }
      case 'stop':
        this.chat.stop();
        return;
      case 'clear':
        this.chat.clear();
        return;
      case 'set_mode':
        this.chat.setMode(notificationSchemas.set_mode.parse(raw).mode);
        return;
      case 'permission_reply': {
        const { id, decision } = notificationSchemas.permission_reply.parse(raw);
        if (!this.editor?.permissionReplies.settle(id, decision))
          this.logger.info(`stale permission reply ${id}`);
        return;
      }
      case 'answer': {
        const { id, reply, dismissed } = notificationSchemas.answer.parse(raw);
        const settled = dismissed
          ? this.editor?.answers.fail(id, new QuestionDismissed())
          : this.editor?.answers.settle(id, reply);
        if (!settled) this.logger.info(`stale answer ${id}`);
        return;
      }
      case 'lsp_result': {
        const { id, result } = notificationSchemas.lsp_result.parse(raw);
        this.editor?.lspResults.settle(id, result);
        return;
      }
      case 'build': {
        const { id } = notificationSchemas.build.parse(raw);
        void this.chat.build(id, this.sink());
        return;
      }
      case 'close_plan':
        this.chat.closePlan();
        return;
      case 'compact': {
        const { id } = notificationSchemas.compact.parse(raw);
        void this.chat.compact(id, this.sink());
        return;
      }
      case 'session_rules': {
        const { id } = notificationSchemas.session_rules.parse(raw);
        void this.ui.dispatch('rules', { id, rules: this.chat.sessionRules() });
        return;
      }
      case 'list_sessions': {
        const { id } = notificationSchemas.list_sessions.parse(raw);
        this.attempt(async () => {
          const list = await this.chat.listSessions();
          await this.ui.dispatch('sessions', {
            id,
            ...(this.chat.sessionId ? { current: this.chat.sessionId } : {}),
            sessions: list.sessions.map((x) => ({
              id: x.id,
              title: x.title,
              updatedAt: x.updatedAt,
              mode: x.mode,
              model: x.model,
              ...(x.cost === undefined ? {} : { cost: x.cost }),
              ...(x.messages === undefined ? {} : { messages: x.messages }),
              ...(x.bytes === undefined ? {} : { bytes: x.bytes }),
            })),
            problems: list.problems.map((p) => ({ file: p.file, error: p.error })),
          });
        });
        return;
      }
      case 'resume': {
        const { session } = notificationSchemas.resume.parse(raw);
        this.attempt(async () => {
          const restored = await this.chat.resume(session);
          if (!restored) {
            await this.ui.dispatch('notice', {
              text: 'This project has no saved session yet.',
              level: 'info',
            });
            return;
          }
          await this.ui.dispatch('transcript', restored);
        });
        return;
      }
      case 'rename_session': {
        const { title, session } = notificationSchemas.rename_session.parse(raw);
        this.attempt(async () => {
          await this.chat.renameSession(title, session);
          await this.ui.dispatch('notice', { text: `Session renamed to "${title}".`, level: 'info' });
        });
        return;
      }
      case 'export_session': {
        const { id, session } = notificationSchemas.export_session.parse(raw);
        this.attempt(async () => {
          await this.ui.dispatch('exported', { id, markdown: await this.chat.exportSession(session) });
        });
        return;
      }
      case 'delete_session': {
        const { session } = notificationSchemas.delete_session.parse(raw);
        this.attempt(async () => {
          const open = await this.chat.deleteSession(session);
          await this.ui.dispatch('session_deleted', { session, open });
        });
        return;
      }
      case 'undo':
      case 'redo': {
        const { id, force } = notificationSchemas[method].parse(raw);
        this.attempt(async () => {
          const result = method === 'undo' ? await this.chat.undo(force) : await this.chat.redo(force);
          await this.ui.dispatch('restored', {
            id,
            kind: method,
            restored: result.restored,
            conflicts: result.conflicts,
          });
        });
        return;
      }
      case 'list_models': {
        const { id } = notificationSchemas.list_models.parse(raw);
        void this.chat.listModels().then((models) => this.ui.dispatch('models', { id, models }));
        return;
      }
    }
  }

  /** Runs a user command; a failure becomes one message in the chat, never an unhandled error. */
  private attempt(fn: () => Promise<unknown>): void {
    fn().catch((err: unknown) => {
      const text = err instanceof Error ? err.message : String(err);
      this.logger.warn('command failed:', text);
      void this.ui.dispatch('notice', { text, level: 'error' });
    });
  }

  private sink(): RunSink {
    return {
      started: (id, model) => void this.ui.dispatch('run_started', { id, model }),
      text: (id, text) => this.batcher.push(id, { text }),
      reasoning: (id, reasoning) => this.batcher.push(id, { reasoning }),
      notice: (text, level) => {
        this.batcher.flush();
        void this.ui.dispatch('notice', { text, level });
      },
      tool: (id, view) => {
        this.batcher.flush();
        void this.ui.dispatch('tool', { id, ...view });
      },
      planReady: (id, path) => void this.ui.dispatch('plan_ready', { id, path }),
      status: (id, status) => void this.ui.dispatch('status', { id, ...status }),
      activity: (id, text) => void this.ui.dispatch('activity', { id, ...(text ? { text } : {}) }),
      done: (id, outcome, error, completion) => {
        this.batcher.flush();
        void this.ui.dispatch('run_done', {
          id,
          ...(this.chat.sessionId ? { session: this.chat.sessionId } : {}),
          outcome,
          ...(error ? { error } : {}),
          ...(completion
            ? { changed_files: completion.changed_files, checks: completion.checks, steps: completion.steps }
            : {}),
        });
      },
    };
  }
}
