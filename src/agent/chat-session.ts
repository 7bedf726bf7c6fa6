import { type HostConfig, hostConfigSchema, splitModelRef } from '../config/schema.js';
import { appendUser, commitAssistant, createHistory, type History } from '../history/index.js';
import { createProvider } from '../providers/create-provider.js';
import { detectProvider, httpProbe, type Probe } from '../providers/detect-provider.js';
import type { Provider } from '../providers/provider.js';
import type { Logger } from '../util/logger.js';
import { redact } from '../util/redact.js';
import { warmHttpClient } from '../util/warm-http.js';
import { FIRST_RUN_HELP } from './first-run.js';
import type { RunSink } from './run-sink.js';

export interface ChatSessionOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  cwd: string;
}

export interface PromptRequest {
  id: string;
  text: string;
  mode?: 'ask' | 'plan' | 'agent' | undefined;
  model?: string | undefined;
}

interface ResolvedModel {
  provider: Provider;
  model: string;
}

/**
 * One conversation with one model: it owns the history, resolves the provider from the user's
 * config (or, with none, from what this machine offers) and streams each reply to the sink.
 */
export class ChatSession {
  private config: HostConfig = hostConfigSchema.parse({});
  private history: History = createHistory();
  private running: AbortController | undefined;
  private resolved = new Map<string, Provider>();
  private detected: Promise<ResolvedModel | undefined> | undefined;
  private lastModel: string | undefined;

  constructor(private readonly options: ChatSessionOptions) {}

  configure(raw: unknown): void {
    const parsed = hostConfigSchema.safeParse(raw);
    if (!parsed.success) {
      this.options.logger.error('configuration rejected:', parsed.error.issues);
      return;
    }
    this.config = parsed.data;
    this.resolved.clear();
    this.detected = undefined;
    this.warmUp();
  }

  /**
   * Does the slow first-time work while the user is still typing: Node loads its HTTP client on
   * the first fetch (~100 ms), and provider resolution may probe local servers.
   */
  private warmUp(): void {
    warmHttpClient().catch(() => undefined);
    this.resolveModel(undefined).catch(() => undefined);
  }

  status(): { mode: string; model: string | undefined; running: boolean; messages: number } {
    return {
      mode: this.config.mode,
      model: this.lastModel ?? this.config.model,
      running: this.running !== undefined,
      messages: this.history.messages.length,
    };
  }

  async prompt(request: PromptRequest, sink: RunSink): Promise<void> {
    if (this.running) {
      sink.done(request.id, 'failed', 'A run is already in progress; stop it or wait for it to end.');
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    try {
      const target = await this.resolveModel(request.model);
      if (!target) {
        sink.notice(FIRST_RUN_HELP, 'warn');
        sink.done(request.id, 'failed', 'No model provider is configured.');
        return;
      }
      this.lastModel = `${target.provider.id}/${target.model}`;
      sink.started(request.id, this.lastModel);
      appendUser(this.history, request.text);
      const events = target.provider.stream(
        {
          model: target.model,
          system: this.systemPrompt(request.mode ?? this.config.mode),
          messages: this.history.messages,
          tools: [],
        },
        controller.signal,
      );
      for await (const event of events) {
        if (event.type === 'text') sink.text(request.id, event.text);
        else if (event.type === 'reasoning') sink.reasoning(request.id, event.text);
        else if (event.type === 'retry') {
          const seconds = Math.max(1, Math.round(event.delayMs / 1000));
          sink.notice(
            `${event.reason}; retrying in ${seconds} s (attempt ${event.attempt} of ${event.maxAttempts}).`,
            'warn',
          );
        } else if (event.type === 'notice') sink.notice(event.message, 'info');
        else if (event.type === 'done') commitAssistant(this.history, event.message);
      }
      sink.done(request.id, controller.signal.aborted ? 'cancelled' : 'done');
    } catch (err) {
      if (controller.signal.aborted) {
        sink.done(request.id, 'cancelled');
      } else {
        const message = redact(err instanceof Error ? err.message : String(err));
        this.options.logger.warn(`run ${request.id} failed:`, message);
        sink.done(request.id, 'failed', message);
      }
    } finally {
      if (this.running === controller) this.running = undefined;
    }
  }

  stop(): void {
    this.running?.abort();
  }

  clear(): void {
    this.stop();
    this.history = createHistory();
  }

  private systemPrompt(mode: string): string {
    const date = new Date().toISOString().slice(0, 10);
    return [
      'You are agent.nvim, a coding assistant running inside the Neovim editor.',
      `Mode: ${mode}. Project root: ${this.config.cwd ?? this.options.cwd}. Date: ${date}.`,
      'Answer in Markdown. Be concise and precise.',
    ].join('\n');
  }

  private async resolveModel(override: string | undefined): Promise<ResolvedModel | undefined> {
    const ref = override ?? this.config.model;
    if (ref) {
      const parts = splitModelRef(ref);
      const entry = parts ? this.config.providers[parts.provider] : undefined;
      if (!parts || !entry) {
        throw new Error(
          `The model "${ref}" names no configured provider; add it under setup({ providers = ... }).`,
        );
      }
      return { provider: this.provider(parts.provider, entry), model: parts.model };
    }
    // Configured providers without a model: the first one that lists a model.
    for (const [id, entry] of Object.entries(this.config.providers)) {
      const model = entry.models?.[0];
      if (model) return { provider: this.provider(id, entry), model };
    }
    this.detected ??= detectProvider(this.options.env, this.probe()).then((found) =>
      found
        ? { provider: createProvider(found.id, found.config, this.options.env), model: found.model }
        : undefined,
    );
    return this.detected;
  }

  /** AGENT_NVIM_NO_PROBE keeps tests from finding a developer's local model server by accident. */
  private probe(): Probe {
    if (!this.options.env.AGENT_NVIM_NO_PROBE) return httpProbe;
    const allowed = this.options.env.AGENT_NVIM_BASE_URL;
    return async (url, timeoutMs) =>
      allowed && url.startsWith(allowed) ? httpProbe(url, timeoutMs) : undefined;
  }

  private provider(id: string, entry: HostConfig['providers'][string]): Provider {
    let provider = this.resolved.get(id);
    if (!provider) {
      provider = createProvider(id, entry, this.options.env);
      this.resolved.set(id, provider);
    }
    return provider;
  }
}
