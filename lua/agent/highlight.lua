--- `Agent*` highlight groups, linked to built-ins with `default = true` so colorschemes and users
--- can override them; re-applied on ColorScheme because `:hi clear` drops links.
local M = {}

M.groups = {
  AgentUser = 'Title',
  AgentAssistant = 'Special',
  AgentReasoning = 'Comment',
  AgentNotice = 'DiagnosticInfo',
  AgentError = 'DiagnosticError',
  AgentWarn = 'DiagnosticWarn',
  AgentInputPrompt = 'Comment',
  AgentStatus = 'StatusLine',
  AgentBorder = 'FloatBorder',
  AgentToolRunning = 'Comment',
  AgentToolDone = 'DiagnosticOk',
  AgentPromptNormal = 'NormalFloat',
  AgentPromptBorder = 'FloatBorder',
  AgentPromptTitle = 'FloatTitle',
  AgentPromptHint = 'Comment',
  AgentPromptKey = 'Special',
  AgentPromptPattern = 'String',
  AgentPromptPath = 'Directory',
  AgentPromptSelected = 'PmenuSel',
  AgentPromptDiffAdd = 'DiffAdd',
  AgentPromptDiffDelete = 'DiffDelete',
  AgentPromptDiffHunk = 'Statement',
  AgentPromptDiffHeader = 'Type',
}

function M.apply()
  for group, link in pairs(M.groups) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

function M.setup()
  M.apply()
  local augroup = vim.api.nvim_create_augroup('agent.highlight', { clear = true })
  vim.api.nvim_create_autocmd('ColorScheme', { group = augroup, callback = M.apply })
end

return M
