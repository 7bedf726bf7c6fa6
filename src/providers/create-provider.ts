/**
 * Builds a Provider from one §3a entry. Nothing is contacted and no key command runs here: the
 * key is resolved on the first request, so a slow password manager never delays startup.
 */
import { registerSecret } from '../util/redact.js';
import { AnthropicProvider } from './anthropic.js';
import { resolveApiKey } from './api-key.js';
import { FLAVORS } from './flavors.js';
import { OpenAIChatProvider } from './openai-chat.js';
import type { Provider } from './provider.js';
import { type ProviderConfigInput, parseProviderConfig } from './provider-config.js';
import { ProviderError } from './provider-error.js';

export { parseProviderConfig } from './provider-config.js';

export function createProvider(
  id: string,
  input: ProviderConfigInput,
  env: NodeJS.ProcessEnv = process.env,
): Provider {
  const config = parseProviderConfig(id, input);
  // Registered now, not on first use, so no log line about this entry can ever show the key.
  registerSecret(config.api_key);
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (/auth|key|token|secret/i.test(name)) registerSecret(value.replace(/^(Bearer|Basic)\s+/i, ''));
  }
  if (config.type === 'anthropic') {
    return new AnthropicProvider({
      id,
      config,
      baseUrl: (config.base_url ?? 'https://api.anthropic.com').replace(/\/+$/, '').replace(/\/v1$/, ''),
      apiKey: () => resolveApiKey(id, config, 'ANTHROPIC_API_KEY', env),
    });
  }
  const flavor = FLAVORS[config.type];
  const baseUrl = config.base_url ?? flavor.defaultBaseUrl;
  if (!baseUrl) {
    throw new ProviderError('config', `agent: providers.${id}.base_url is required for type ${config.type}.`);
  }
  return new OpenAIChatProvider({
    id,
    type: config.type,
    config,
    flavor,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: () => resolveApiKey(id, config, flavor.keyEnv, env),
  });
}
