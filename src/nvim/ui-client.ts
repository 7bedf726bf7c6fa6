import type { DispatchMethod, DispatchPayloads } from '../rpc/protocol.js';
import type { Logger } from '../util/logger.js';

/** The part of the node client the UI needs; the real `NeovimClient` and plugin `nvim` both fit. */
export interface LuaExecutor {
  lua(code: string, args?: unknown[]): Promise<unknown>;
}

const DISPATCH = "return require('agent.rpc').dispatch(...)";
const QUERY = "local fn = ...; return require('agent.bridge')[fn](select(2, ...))";

/**
 * The one funnel from host to Lua: every view update is a single `nvim_exec_lua` of the Lua
 * dispatcher, so the Lua side has one entry point to read and to test.
 */
export class UiClient {
  constructor(
    private readonly nvim: LuaExecutor,
    private readonly logger: Logger,
  ) {}

  async dispatch<M extends DispatchMethod>(method: M, payload: DispatchPayloads[M]): Promise<void> {
    try {
      await this.nvim.lua(DISPATCH, [method, payload as unknown]);
    } catch (err) {
      // Neovim may be exiting, or the Lua side raised: neither may crash the host.
      this.logger.warn(`dispatch ${method} failed:`, err instanceof Error ? err.message : err);
    }
  }

  /** Asks the editor for data (lua/agent/bridge.lua); undefined when Neovim could not answer. */
  async query<T>(fn: string, ...args: unknown[]): Promise<T | undefined> {
    try {
      return (await this.nvim.lua(QUERY, [fn, ...args])) as T;
    } catch (err) {
      this.logger.warn(`query ${fn} failed:`, err instanceof Error ? err.message : err);
      return undefined;
    }
  }
}
