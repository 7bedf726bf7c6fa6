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
  vim.api.nvim_exec_autocmds('User', { pattern = name, modeline = false, data = data or {} })
end

return M
