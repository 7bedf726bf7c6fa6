--- Saving the session's "always" answers into the project's `.agent/config.json`.
local M = {}
local H = {}

--- Marks a file's current content as trusted for vim.secure.read (which hashes a buffer).
function H.trust_file(path)
  local existed = vim.fn.bufexists(path) == 1 and vim.fn.bufloaded(path) == 1
  local buf = vim.fn.bufadd(path)
  if existed and not vim.bo[buf].modified then
    vim.api.nvim_buf_call(buf, function() vim.cmd('silent! edit!') end)
  else
    vim.fn.bufload(buf)
  end
  pcall(vim.secure.trust, { action = 'allow', bufnr = buf })
  if not existed then pcall(vim.api.nvim_buf_delete, buf, { force = true }) end
end

function M.on_rules(p)
  if #p.rules == 0 then
    vim.notify('agent: no "always" answers in this session to save', vim.log.levels.INFO)
    return
  end
  local path = vim.fn.getcwd() .. '/.agent/config.json'
  local config = {}
  if vim.fn.filereadable(path) == 1 then
    local ok, decoded = pcall(vim.json.decode, table.concat(vim.fn.readfile(path), '\n'))
    if not ok or type(decoded) ~= 'table' then
      vim.notify('agent: ' .. path .. ' is not valid JSON; fix it before saving rules', vim.log.levels.ERROR)
      return
    end
    config = decoded
  end
  config.permissions = type(config.permissions) == 'table' and config.permissions or {}
  local seen = {}
  for _, r in ipairs(config.permissions) do
    seen[vim.inspect(r)] = true
  end
  local added = 0
  for _, r in ipairs(p.rules) do
    local rule = { tool = r.tool, pattern = r.pattern, action = r.action }
    if not seen[vim.inspect(rule)] then
      table.insert(config.permissions, rule)
      added = added + 1
    end
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile({ vim.json.encode(config) }, path)
  -- Written at the user's request: trust this content so reading it back does not ask.
  H.trust_file(path)
  vim.notify(string.format('agent: saved %d rule(s) to %s', added, vim.fn.fnamemodify(path, ':~:.')), vim.log.levels.INFO)
  require('agent.rpc').reconfigure()
end

return M
