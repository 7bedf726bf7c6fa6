export { createProvider, parseProviderConfig } from './create-provider.js';
export { type DetectedProvider, detectProvider, httpProbe, type Probe } from './detect-provider.js';
export type { Price } from './model-table.js';
export { addCosts, costOf, costOfMessages } from './pricing.js';
export type { ModelInfo, ModelRequest, Provider, ProviderEvent, ProviderType, ToolSpec } from './provider.js';
export type { ModelOptions, ProviderConfig, ProviderConfigInput } from './provider-config.js';
export { ProviderError, type ProviderErrorKind } from './provider-error.js';
export { type ProviderStatus, providerStatus } from './provider-status.js';
