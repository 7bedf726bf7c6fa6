--- Kept loadable on any Neovim: says once, clearly, that this one is too old.
local M = {}

M.minimum = '0.10'

function M.too_old()
  local v = vim.version and vim.version() or { major = 0, minor = 0, patch = 0 }
  vim.api.nvim_echo({
    {
      string.format(
        'agent.nvim needs Neovim %s or newer; this is %d.%d.%d. Nothing was started.',
        M.minimum,
        v.major,
        v.minor,
        v.patch
      ),
      'ErrorMsg',
    },
  }, true, {})
end

return M
