/**
 * What the chat says when no provider is configured and none was found: the exact lines to set.
 * One line per paragraph: the chat window wraps it to its own width.
 */
export const FIRST_RUN_HELP = [
  'No model provider is configured, and none was found on this machine (no ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY, and no Ollama, llama.cpp or LM Studio server on its default port).',
  '',
  'Set one of those environment variables before starting Neovim (e.g. `export ANTHROPIC_API_KEY=...`), or configure a provider in your init.lua:',
  '',
  '```lua',
  "require('agent').setup({",
  "  providers = { ollama = { type = 'ollama' } },  -- or { type = 'openai' }, { type = 'anthropic' }, ...",
  "  model = 'ollama/qwen2.5-coder:7b',",
  '})',
  '```',
].join('\n');
