--- Floats that take the focus (permission and question prompts, the plan preview) while the user
--- types: their single-letter keys must not take the rest of a word as an answer.
local M = {}
local H = {}

--- How long keys are ignored once such a float takes the focus; each ignored key starts it anew.
M.GRACE_MS = 400

H.typed_at = 0 -- uv.now() of the user's last typed character

vim.api.nvim_create_autocmd({ 'InsertCharPre', 'TextChangedT' }, {
  group = vim.api.nvim_create_augroup('agent.typing', { clear = true }),
  callback = function() H.typed_at = vim.uv.now() end,
})

---@return boolean whether Neovim is in Insert, Replace or Terminal mode
function M.inserting() return vim.tbl_contains({ 'i', 'R', 't' }, vim.api.nvim_get_mode().mode:sub(1, 1)) end

---@return boolean whether the user typed a character in the last second
function M.typed_recently() return vim.uv.now() - H.typed_at < 1000 end

--- Wraps a float's key actions: while `active`, keys are ignored until the typing pauses.
---@param active boolean
---@return fun(fn: function): function
function M.guard(active)
  local keys_from = active and vim.uv.now() + M.GRACE_MS or 0
  return function(fn)
    return function(...)
      if vim.uv.now() < keys_from then
        keys_from = vim.uv.now() + M.GRACE_MS
        return
      end
      return fn(...)
    end
  end
end

return M
