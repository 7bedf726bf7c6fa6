/**
 * What `:checkhealth` and status views may say about a provider entry without contacting it,
 * running its key command or revealing its key: where the key would come from, and the URL.
 */

import { parseProviderConfig } from './create-provider.js';
import { FLAVORS } from './flavors.js';
import type { ProviderConfigInput } from './provider-config.js';

export interface ProviderStatus {
  id: string;
  type: string;
  baseUrl: string | undefined;
  /** `api_key`, `api_key_cmd`, `env:NAME`, `none needed` or `missing`. */
  keySource: string;
  /** One sentence to show when the entry cannot work as configured. */
  problem?: string;
}

export function providerStatus(
  id: string,
  input: ProviderConfigInput,
  env: NodeJS.ProcessEnv = process.env,
): ProviderStatus {
  let config: ReturnType<typeof parseProviderConfig>;
  try {
    config = parseProviderConfig(id, input);
  } catch (err) {
    return {
      id,
      type: String(input.type),
      baseUrl: undefined,
      keySource: 'missing',
      problem: (err as Error).message,
    };
  }
  const isAnthropic = config.type === 'anthropic';
  const flavor = config.type === 'anthropic' ? undefined : FLAVORS[config.type];
  const envName = isAnthropic ? 'ANTHROPIC_API_KEY' : flavor?.keyEnv;
  const needsKey = isAnthropic || flavor?.needsKey === true;
  const baseUrl = config.base_url ?? (isAnthropic ? 'https://api.anthropic.com' : flavor?.defaultBaseUrl);
  let keySource = needsKey ? 'missing' : 'none needed';
  if (config.api_key) keySource = 'api_key';
  else if (config.api_key_cmd) keySource = 'api_key_cmd';
  else if (envName && env[envName]) keySource = `env:${envName}`;
  const status: ProviderStatus = { id, type: config.type, baseUrl, keySource };
  if (!baseUrl) status.problem = `providers.${id}.base_url is required for type ${config.type}.`;
  else if (keySource === 'missing') {
    status.problem = `providers.${id} has no key: set ${envName ?? 'api_key'} or its api_key / api_key_cmd.`;
  }
  return status;
}
