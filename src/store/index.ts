export {
  CheckpointLog,
  type CheckpointOptions,
  type CheckpointRunSummary,
  DEFAULT_CHECKPOINT_BYTES,
  type EndRunResult,
  type RestoreResult,
} from './checkpoints.js';
export { sessionToMarkdown } from './export-markdown.js';
export { SCHEMA_VERSION } from './migrate.js';
export { projectIdOf } from './project-id.js';
export { SessionHandle } from './session-handle.js';
export { type CreateSession, SessionStore, type StoreOptions } from './session-store.js';
export { titleFromPrompt } from './session-title.js';
export * from './types.js';
