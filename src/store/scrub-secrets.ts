/**
 * Nothing secret reaches a session file. Fields named like credentials are blanked wherever they
 * sit (tool arguments, tool metadata), and every string goes through util/redact, which hides
 * registered key values and well-known key shapes. Provider replay state is left byte-exact:
 * signatures and encrypted reasoning are opaque blobs that a shape match could corrupt.
 */
import { redact } from '../util/redact.js';

const SECRET_KEY =
  /^(?:x-)?(?:api[-_]?key|apikey|authorization|proxy-authorization|access[-_]?token|secret[-_]?key|password)$/i;
const REDACTED = '[REDACTED]';

export function scrubSecrets<T>(value: T): T {
  return scrub(value, undefined) as T;
}

function scrub(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = scrub(item, undefined);
      if (next !== item) {
        out ??= value.slice();
        out[i] = next;
      }
    });
    return out ?? value;
  }
  if (value === null || typeof value !== 'object' || key === 'replay') return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const next = SECRET_KEY.test(k) && v !== undefined && v !== null && v !== '' ? REDACTED : scrub(v, k);
    if (next !== v) {
      out ??= { ...(value as Record<string, unknown>) };
      out[k] = next;
    }
  }
  // Copy-on-write: the caller's history objects are never modified, and clean ones are not copied.
  return out ?? value;
}
