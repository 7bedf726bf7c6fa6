--- The plan preview: the saved plan in a float (filetype `agent-plan`) with Build and Close.
local M = {}
local H = {}

H.state = { win = nil, buf = nil, path = nil }

---@class agent.PlanCallbacks
---@field on_build fun()
---@field on_close fun()

--- Shows the plan file; `b` builds it, `c`/`q` close it without building.
---@param path string absolute path of the plan
---@param callbacks agent.PlanCallbacks
function M.show(path, callbacks)
  -- Not from the command-line window (no other window may open there): once it is left.
  if vim.fn.getcmdwintype() ~= '' then
    vim.api.nvim_create_autocmd('CmdwinLeave', {
      once = true,
      callback = function() vim.schedule(function() M.show(path, callbacks) end) end,
    })
    return
  end
  M.hide()
  -- The user may be typing in the chat: the float is read-only, and the rest of their word is
  -- not a Build (keys count after a 0.4 s pause).
  local typing = require('agent.ui.typing')
  local inserting = typing.inserting()
  if inserting then vim.cmd('stopinsert') end
  local when_not_typing = typing.guard(inserting)
  local lines = vim.fn.filereadable(path) == 1 and vim.fn.readfile(path) or { '(the plan file is missing: ' .. path .. ')' }
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  require('agent.ui.chat-markdown').register()
  pcall(vim.treesitter.start, buf, 'markdown')
  local width = math.max(20, math.min(100, vim.o.columns - 4))
  local height = math.max(3, math.min(#lines + 1, vim.o.lines - 6))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = height,
    col = math.floor((vim.o.columns - width) / 2),
    row = math.floor((vim.o.lines - height) / 2) - 1,
    border = 'rounded',
    style = 'minimal',
    title = ' Plan: ' .. vim.fn.fnamemodify(path, ':t') .. ' ',
    title_pos = 'center',
    footer = ' b Build (switch to Agent and implement)   c Close ',
    footer_pos = 'center',
  })
  vim.wo[win].wrap = true
  vim.wo[win].conceallevel = 2
  H.state = { win = win, buf = buf, path = path }
  local build = when_not_typing(function()
    M.hide()
    callbacks.on_build()
  end)
  local close = when_not_typing(function()
    M.hide()
    callbacks.on_close()
  end)
  vim.keymap.set('n', 'b', build, { buffer = buf, desc = 'agent: build the plan' })
  for _, key in ipairs({ 'c', 'q', '<Esc>' }) do
    vim.keymap.set('n', key, close, { buffer = buf, desc = 'agent: close the plan' })
  end
  -- Last, so FileType autocmds see the keys and the user's win.
  vim.bo[buf].filetype = 'agent-plan'
end

function M.hide()
  if H.state.win and vim.api.nvim_win_is_valid(H.state.win) then vim.api.nvim_win_close(H.state.win, true) end
  H.state.win = nil
end

---@return boolean
function M.is_open() return H.state.win ~= nil and vim.api.nvim_win_is_valid(H.state.win) end

return M
