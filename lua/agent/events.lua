--- `User Agent*` autocmds, fired through one helper so every event carries a `data` table.
local M = {}

M.names = {
  'AgentRunStarted',
  'AgentRunDone',
  'AgentToolStarted',
  'AgentToolDone',
  'AgentFileChanged',
  'AgentPermissionAsked',
  'AgentAskUser',
  'AgentPlanReady',
}

---@param name string one of M.names
---@param data table|nil
function M.fire(name, data)
  -- A failing autocmd of the user's is reported, and never stops the chat's own work (showing a
  -- prompt, sending the next queued message).
  local ok, err = pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = name, modeline = false, data = data or {} })
  if not ok then
    vim.schedule(function() vim.notify(string.format('agent: a User %s autocmd failed: %s', name, err), vim.log.levels.ERROR) end)
  end
end

return M
