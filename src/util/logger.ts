import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { redact } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  readonly file: string | undefined;
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

function format(args: unknown[]): string {
  return args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 4, breakLength: 200 }))).join(' ');
}

/**
 * Appends redacted lines to one file with synchronous writes, so the last words before a crash
 * reach the disk. Without a file it drops everything: stdout is never a fallback.
 */
export function createLogger(file: string | undefined, level: LogLevel = 'info'): Logger {
  let fd: number | undefined;
  if (file) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fd = fs.openSync(file, 'a');
    } catch {
      fd = undefined;
    }
  }
  const write = (lvl: LogLevel, args: unknown[]) => {
    if (fd === undefined || ORDER[lvl] < ORDER[level]) return;
    const line = `${new Date().toISOString()} ${lvl.toUpperCase()} [${process.pid}] ${redact(format(args))}\n`;
    try {
      fs.writeSync(fd, line);
    } catch {
      // A full disk must not take the host down.
    }
  };
  return {
    file: fd === undefined ? undefined : file,
    debug: (...a) => write('debug', a),
    info: (...a) => write('info', a),
    warn: (...a) => write('warn', a),
    error: (...a) => write('error', a),
  };
}
