// Entry of dist/host.cjs: the process Neovim starts with jobstart(..., { rpc = true }).
import { attach } from 'neovim';
import { ChatSession } from '../agent/chat-session.js';
import { NvimEditor } from '../nvim/nvim-editor.js';
import { UiClient } from '../nvim/ui-client.js';
import { createLogger, type LogLevel } from '../util/logger.js';
import { registerEnvSecrets } from '../util/redact.js';
import { AGENT_VERSION } from './build-info.js';
import { HostService } from './host-service.js';
import { guardStdout } from './stdout-guard.js';

// AbortSignal.any and other APIs the host uses arrived in Node 20.3: say so instead of failing
// mid-run (the plugin shows a line starting with "agent:" that the host wrote before exiting).
const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split('.').map(Number);
if (nodeMajor < 20 || (nodeMajor === 20 && nodeMinor < 3)) {
  process.stderr.write(
    `agent: Node.js 20.3 or newer is needed; ${process.execPath} is ${process.version} (set g:agent_node)\n`,
  );
  process.exit(3);
}

const logger = createLogger(
  process.env.AGENT_NVIM_LOG,
  (process.env.AGENT_NVIM_LOG_LEVEL as LogLevel) || 'info',
);
registerEnvSecrets(process.env);
const rpcWriter = guardStdout(logger);

const nvim = attach({
  reader: process.stdin,
  writer: rpcWriter,
  options: {
    logger: {
      level: 'warn',
      debug: () => undefined,
      info: () => undefined,
      warn: (...a: unknown[]) => logger.warn('rpc:', ...a),
      error: (...a: unknown[]) => logger.error('rpc:', ...a),
    } as never,
  },
});

const ui = new UiClient(nvim, logger);
const editor = new NvimEditor(ui, logger);
const chat = new ChatSession({
  env: process.env,
  logger,
  cwd: process.cwd(),
  editor,
  onModeChange: (mode) => void ui.dispatch('mode_changed', { mode }),
});
const service = new HostService(ui, chat, logger, AGENT_VERSION, editor);

nvim.on(
  'request',
  (method: string, args: unknown[], resp: { send(value: unknown, isError?: boolean): void }) => {
    // Every request gets an answer, errors included: an unanswered request freezes Neovim.
    service.handleRequest(method, args).then(
      (result) => resp.send(result ?? null),
      (err: unknown) => resp.send(err instanceof Error ? err.message : String(err), true),
    );
  },
);
nvim.on('notification', (method: string, args: unknown[]) => service.handleNotification(method, args));

let exiting = false;
function shutdown(reason: string, code = 0): void {
  if (exiting) return;
  exiting = true;
  logger.info(`host exiting: ${reason}`);
  // Release the session's lock and let the last writes land, but never hang on the way out.
  const exit = () => process.exit(code);
  setTimeout(exit, 500).unref();
  chat.shutdown().then(exit, exit);
}

// Neovim closes our stdin on :qa (and when it dies): that is the signal to leave.
process.stdin.on('end', () => shutdown('stdin closed'));
process.stdin.on('close', () => shutdown('stdin closed'));
nvim.on('disconnect', () => shutdown('rpc disconnected'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('uncaughtException', (err) => {
  logger.error('uncaught exception:', err);
  shutdown('uncaught exception', 1);
});
process.on('unhandledRejection', (reason) => logger.error('unhandled rejection:', reason));

logger.info(`host ${AGENT_VERSION} started, node ${process.version}, cwd ${process.cwd()}`);
void service.announce().then(() => {
  // performance.now() counts from process start: the cost of loading the bundle and attaching.
  logger.info(`ready ${Math.round(performance.now())} ms after process start`);
  setTimeout(() => {
    const m = process.memoryUsage();
    const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
    logger.info(
      `memory: rss ${mb(m.rss)}, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)}, external ${mb(m.external)}`,
    );
  }, 1000).unref();
});
