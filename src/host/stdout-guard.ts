import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { Logger } from '../util/logger.js';

/**
 * stdout is the msgpack-RPC channel: one stray byte from a dependency's console.log corrupts it.
 * This hands out the only writer to fd 1 and reroutes every other way of writing there
 * (process.stdout.write, console.*) to the log.
 */
export function guardStdout(logger: Logger): Writable {
  const rpcWriter = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeAll(1, chunk, callback);
    },
  });
  const toLog =
    (level: 'info' | 'warn' | 'error') =>
    (...args: unknown[]) =>
      logger[level](...args);
  console.log = toLog('info');
  console.info = toLog('info');
  console.debug = toLog('info');
  console.warn = toLog('warn');
  console.error = toLog('error');
  console.trace = toLog('error');
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    logger.warn('stdout write rerouted to the log:', String(chunk));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  return rpcWriter;
}

/** Writes the whole buffer to fd, waiting when the pipe is full (EAGAIN on a non-blocking pipe). */
function writeAll(fd: number, chunk: Buffer, callback: (err?: Error | null) => void): void {
  fs.write(fd, chunk, 0, chunk.length, null, (err, written) => {
    if (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        setTimeout(() => writeAll(fd, chunk, callback), 1);
        return;
      }
      callback(err);
      return;
    }
    if (written < chunk.length) writeAll(fd, chunk.subarray(written), callback);
    else callback();
  });
}
