/**
 * Resolves a provider's key: `api_key`, else `api_key_cmd` (run once, the result cached in
 * memory for the life of the process), else the type's environment variable. Every key found is
 * registered with the redactor so it can never reach a log line or an error message.
 */
import { execFile } from 'node:child_process';
import { registerSecret } from '../util/redact.js';
import { ProviderError } from './provider-error.js';

const commandCache = new Map<string, Promise<string>>();

export interface KeySource {
  api_key?: string | undefined;
  /** An argument list, or one string run by `sh -c`. */
  api_key_cmd?: string | string[] | undefined;
}

function runKeyCommand(providerId: string, command: string | string[]): Promise<string> {
  const cmd = typeof command === 'string' ? ['sh', '-c', command] : command;
  const cacheKey = JSON.stringify(cmd);
  const cached = commandCache.get(cacheKey);
  if (cached) return cached;
  const [file, ...args] = cmd;
  const result = new Promise<string>((resolve, reject) => {
    execFile(file ?? '', args, { timeout: 30_000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      // The first line: `pass show` prints the password first and metadata after it.
      const key = String(stdout).split(/\r?\n/)[0]?.trim() ?? '';
      if (err || !key) {
        const why = err ? `failed (${err.code ?? err.message.split('\n')[0]})` : 'printed nothing';
        reject(
          new ProviderError(
            'config',
            `The api_key_cmd of provider ${providerId} (${cmd.join(' ').slice(0, 60)}) ${why}.`,
          ),
        );
        return;
      }
      registerSecret(key);
      resolve(key);
    });
  });
  // A failure is not cached: the user may unlock the password store and retry.
  result.catch(() => commandCache.delete(cacheKey));
  commandCache.set(cacheKey, result);
  return result;
}

export async function resolveApiKey(
  providerId: string,
  source: KeySource,
  envName: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (source.api_key) {
    registerSecret(source.api_key);
    return source.api_key;
  }
  if (source.api_key_cmd && source.api_key_cmd.length > 0)
    return runKeyCommand(providerId, source.api_key_cmd);
  const fromEnv = envName ? env[envName] : undefined;
  if (fromEnv) {
    registerSecret(fromEnv);
    return fromEnv;
  }
  return undefined;
}

/** For tests: forget cached command output. */
export function clearKeyCache(): void {
  commandCache.clear();
}
