// Replaced by esbuild at build time (scripts/build.mjs); the fallback keeps tests of unbundled
// sources working.
declare const __AGENT_VERSION__: string | undefined;

export const AGENT_VERSION: string = typeof __AGENT_VERSION__ === 'string' ? __AGENT_VERSION__ : 'dev';
