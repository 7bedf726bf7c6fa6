export * from './context-size.js';
export * from './conversation.js';
export * from './estimate-tokens.js';
export * from './schema.js';
export type * from './types.js';
export * from './usage.js';
