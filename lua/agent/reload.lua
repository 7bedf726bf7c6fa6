--- Keeps buffers true to disk after the agent writes a file: unmodified buffers reload in place
--- (cursor and view kept); a buffer with unsaved edits is never clobbered, the user is told.
local M = {}

---@param path string absolute path the agent changed
function M.file_changed(path)
  local buf = vim.fn.bufnr(path)
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
    if vim.bo[buf].modified then
      vim.notify(
        string.format('agent: %s changed on disk while it has unsaved edits; :e! loads the new version', vim.fn.fnamemodify(path, ':~:.')),
        vim.log.levels.WARN
      )
    elseif vim.fn.filereadable(path) == 0 then
      -- Deleted by the agent: leave the buffer as the user's copy; checktime would prompt.
      vim.bo[buf].modified = true
    else
      local views = {}
      for _, win in ipairs(vim.fn.win_findbuf(buf)) do
        views[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
      end
      vim.api.nvim_buf_call(buf, function() vim.cmd('silent! edit') end)
      for win, view in pairs(views) do
        if vim.api.nvim_win_is_valid(win) then vim.api.nvim_win_call(win, function() vim.fn.winrestview(view) end) end
      end
    end
  end
  require('agent.events').fire('AgentFileChanged', { path = path })
end

return M
