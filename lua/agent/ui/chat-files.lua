--- The files the transcript names: open the one under the cursor, list the changed ones.
local M = {}

--- Opens the file named under the cursor (a changed file, a tool's path) in the window the user
--- came from, or in a new split when the chat is the only thing on screen.
---@param chat_bufs integer[] the chat's own buffers, never the target
function M.open_under_cursor(chat_bufs)
  local name = vim.fn.expand('<cfile>')
  if name == '' or vim.fn.filereadable(name) == 0 then
    vim.notify('agent: no file under the cursor', vim.log.levels.INFO)
    return
  end
  local target
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(win)
    if not vim.tbl_contains(chat_bufs, b) and vim.api.nvim_win_get_config(win).relative == '' then
      target = win
      break
    end
  end
  if target then
    vim.api.nvim_set_current_win(target)
    vim.cmd.edit(vim.fn.fnameescape(name))
  else
    vim.cmd('topleft vsplit ' .. vim.fn.fnameescape(name))
  end
end

--- Puts the last run's changed files in the quickfix list and opens it.
---@param changed string[]|nil
function M.to_quickfix(changed)
  local files = changed or {}
  if #files == 0 then
    vim.notify('agent: the last run changed no files', vim.log.levels.INFO)
    return
  end
  local items = {}
  for _, f in ipairs(files) do
    table.insert(items, { filename = f, lnum = 1, text = 'changed by the agent' })
  end
  vim.fn.setqflist({}, ' ', { title = 'agent: changed files', items = items })
  vim.cmd('botright copen')
end

return M
