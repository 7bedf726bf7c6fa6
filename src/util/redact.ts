/**
 * Removes secrets from text bound for logs and messages. Known key values are replaced wherever
 * they appear; well-known key shapes and Authorization headers are caught even when unknown.
 */
const knownSecrets = new Set<string>();

const KEY_SHAPES: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{12,}/g, // OpenAI, Anthropic (sk-ant-...), OpenRouter (sk-or-...)
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /("?(?:x-api-key|api[_-]?key|authorization)"?\s*[:=]\s*"?)[^"\s,}]{6,}/gi,
];

/** Registers a secret so every later `redact` hides it, whatever its shape. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) knownSecrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of knownSecrets) out = out.split(secret).join('[REDACTED]');
  for (const shape of KEY_SHAPES) {
    out = out.replace(shape, (match, prefix: unknown) =>
      typeof prefix === 'string' && match.startsWith(prefix) && prefix !== match
        ? `${prefix}[REDACTED]`
        : '[REDACTED]',
    );
  }
  return out;
}

/** Secrets named by the environment (provider keys) are registered at once. */
export function registerEnvSecrets(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) {
    if (/(_API_KEY|_TOKEN|_SECRET)$/.test(name)) registerSecret(value);
  }
}
