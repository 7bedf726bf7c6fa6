// Entry of dist/rplugin.cjs: the classic remote plugin, loaded by Neovim's global node host after
// :UpdateRemotePlugins. It registers two functions that feed the same dispatcher as the job host.
import type { NvimPlugin } from 'neovim';
import { ChatSession } from '../agent/chat-session.js';
import { NvimEditor } from '../nvim/nvim-editor.js';
import { UiClient } from '../nvim/ui-client.js';
import { createLogger, type LogLevel } from '../util/logger.js';
import { registerEnvSecrets } from '../util/redact.js';
import { AGENT_VERSION } from './build-info.js';
import { HostService } from './host-service.js';

interface Hello {
  log?: string;
  log_level?: LogLevel;
}

function createService(plugin: NvimPlugin, hello: Hello): HostService {
  // The global node host is started by Neovim, not by us: the log settings arrive with `hello`.
  const logger = createLogger(hello.log ?? process.env.AGENT_NVIM_LOG, hello.log_level ?? 'info');
  registerEnvSecrets(process.env);
  const ui = new UiClient(plugin.nvim, logger);
  const editor = new NvimEditor(ui, logger);
  const chat = new ChatSession({
    env: process.env,
    logger,
    cwd: process.cwd(),
    editor,
    onModeChange: (mode) => void ui.dispatch('mode_changed', { mode }),
  });
  return new HostService(ui, chat, logger, AGENT_VERSION, editor);
}

export default function agentRemotePlugin(plugin: NvimPlugin): void {
  plugin.setOptions({ dev: false });
  let service: HostService | undefined;
  const get = (hello: Hello = {}) => {
    service ??= createService(plugin, hello);
    return service;
  };
  // Quick queries, answered synchronously to the caller.
  plugin.registerFunction(
    'AgentRequest',
    async ([method, payload]: [string, unknown]) => {
      if (method === 'hello') {
        await get((payload ?? {}) as Hello).announce();
        return true;
      }
      return get().handleRequest(method, [payload]);
    },
    { sync: true },
  );
  // Everything long: prompts, stop, replies.
  plugin.registerFunction(
    'AgentNotify',
    ([method, payload]: [string, unknown]) => {
      get().handleNotification(method, [payload]);
    },
    { sync: false },
  );
}
