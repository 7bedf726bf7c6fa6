import type { Logger } from '../util/logger.js';
import { PendingReplies } from './pending-replies.js';
import type { UiClient } from './ui-client.js';

/**
 * The editor side of the tools (structurally the `Editor` of src/tools, which this layer may not
 * import): buffer text, diagnostics and LSP from the running Neovim, buffer reloads, and the
 * user's answers to permission and ask_user prompts.
 */
export interface PromptRequest {
  tool: string;
  pattern: string;
  summary: string;
  diff?: string;
  paths?: string[];
}

export type PromptDecision = 'once' | 'always' | 'deny' | { deny: string };

/**
 * What `askUser` rejects with when the user closes the question without answering (`q`/<Esc>).
 * The ask_user tool recognises it by its name (tools may not import this layer).
 */
export class QuestionDismissed extends Error {
  override name = 'QuestionDismissed';
  constructor() {
    super('The user dismissed the question without answering.');
  }
}

export class NvimEditor {
  readonly permissionReplies = new PendingReplies<PromptDecision>();
  readonly answers = new PendingReplies<string>();
  readonly lspResults = new PendingReplies<unknown>();

  constructor(
    private readonly ui: UiClient,
    private readonly logger: Logger,
  ) {}

  async bufferText(absPath: string): Promise<string | undefined> {
    const text = await this.ui.query<string | null>('buffer_text', absPath);
    return typeof text === 'string' ? text : undefined;
  }

  async diagnostics(absPath?: string): Promise<unknown[]> {
    const list = await this.ui.query<unknown[] | null>('diagnostics', absPath ?? null);
    return Array.isArray(list) ? list : [];
  }

  async lsp(request: Record<string, unknown>): Promise<unknown> {
    const id = this.lspResults.newId('lsp');
    const wait = this.lspResults.wait(id, AbortSignal.timeout(10_000));
    await this.ui.query('lsp', id, request);
    const result = await wait.catch(() => undefined);
    return result === null ? undefined : result;
  }

  async fileChanged(absPath: string): Promise<void> {
    await this.ui.dispatch('file_changed', { path: absPath });
  }

  /** Shows the permission prompt and waits for the user (rules are applied before this). */
  async askPermission(request: PromptRequest, signal?: AbortSignal): Promise<PromptDecision> {
    const id = this.permissionReplies.newId('perm');
    const answer = this.permissionReplies.wait(id, signal);
    await this.ui.dispatch('permission', { id, ...request });
    try {
      return await answer;
    } catch {
      await this.ui.dispatch('prompt_cancel', { id });
      this.logger.info(`permission prompt ${id} cancelled`);
      return 'deny';
    }
  }

  async askUser(question: string, options: string[], signal?: AbortSignal): Promise<string> {
    const id = this.answers.newId('ask');
    const answer = this.answers.wait(id, signal);
    await this.ui.dispatch('ask_user', { id, question, options });
    try {
      return await answer;
    } catch (err) {
      await this.ui.dispatch('prompt_cancel', { id });
      throw err;
    }
  }
}
