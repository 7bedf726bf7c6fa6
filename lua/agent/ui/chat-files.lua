--- The files the transcript names: open the one under the cursor, list the changed ones.
local M = {}
local H = {}

--- Opens the file named under the cursor (a changed file, a tool's path) in the window the user
--- came from, or in a new split when the chat is the only thing on screen.
---@param chat_bufs integer[] the chat's own buffers, never the target
function M.open_under_cursor(chat_bufs)
  local name = H.path(vim.fn.expand('<cfile>'))
  if not name then
    vim.notify('agent: no file under the cursor', vim.log.levels.INFO)
    return
  end
  local target = H.target_win(chat_bufs)
  if target then
    vim.api.nvim_set_current_win(target)
    vim.cmd.edit(vim.fn.fnameescape(name))
  else
    vim.cmd('topleft vsplit ' .. vim.fn.fnameescape(name))
  end
end

--- A readable file the name stands for: as written, else in the project (paths in the chat are
--- the project's, and Neovim's current directory may have changed since).
---@return string|nil
function H.path(name)
  if name == '' then return nil end
  if vim.fn.filereadable(name) == 1 then return name end
  local in_project = vim.fs.joinpath(require('agent.rpc').project_root(), name)
  if vim.fn.filereadable(in_project) == 1 then return in_project end
end

--- Where a file opens: the previous window when it shows a file, else the first such window
--- (never a sidebar, a terminal, a quickfix list or a window fixed to its buffer).
function H.target_win(chat_bufs)
  local function fits(win)
    if not vim.api.nvim_win_is_valid(win) or vim.api.nvim_win_get_config(win).relative ~= '' then return false end
    local b = vim.api.nvim_win_get_buf(win)
    local fixed = vim.fn.exists('+winfixbuf') == 1 and vim.wo[win].winfixbuf
    return not vim.tbl_contains(chat_bufs, b) and vim.bo[b].buftype == '' and not fixed
  end
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if previous ~= 0 and fits(previous) then return previous end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if fits(win) then return win end
  end
end

--- Puts the last run's changed files in the quickfix list and opens it; files the run deleted
--- are listed as such, not opened.
---@param changed string[]|nil paths relative to the project
function M.to_quickfix(changed)
  local files = changed or {}
  if #files == 0 then
    vim.notify('agent: the last run changed no files', vim.log.levels.INFO)
    return
  end
  local root = require('agent.rpc').project_root()
  local items = {}
  for _, f in ipairs(files) do
    local path = vim.fs.joinpath(root, f)
    if vim.uv.fs_stat(path) then
      table.insert(items, { filename = path, lnum = 1, text = 'changed by the agent' })
    else
      table.insert(items, { text = f .. ': deleted by the agent', valid = 0 })
    end
  end
  vim.fn.setqflist({}, ' ', { title = 'agent: changed files', items = items })
  vim.cmd('botright copen')
end

return M
