--- Keeps buffers true to disk after the agent writes a file: unmodified buffers reload in place
--- (cursor and view kept), deleted files close their unmodified buffers, and a buffer with
--- unsaved edits is never overwritten: the user keeps theirs, takes the agent's, or compares.
local M = {}
local H = {}

---@param path string absolute path the agent changed
function M.file_changed(path)
  local buf = require('agent.buffers').loaded(path)
  if buf then
    if vim.fn.filereadable(path) == 0 then
      H.deleted(buf, path)
    elseif vim.bo[buf].modified then
      H.conflict(buf, path)
    else
      H.reload(buf)
    end
  end
  require('agent.events').fire('AgentFileChanged', { path = path })
end

--- Reloads from disk keeping every window's view (:edit resets the stored mtime, so Neovim does
--- not ask about a change on disk later).
function H.reload(buf)
  H.keeping_views(buf, function() vim.api.nvim_buf_call(buf, function() vim.cmd('silent! edit') end) end)
end

--- Runs `fn`, then puts every window showing `buf` back at its cursor and scroll position.
function H.keeping_views(buf, fn)
  local views = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    views[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
  end
  fn()
  for win, view in pairs(views) do
    if vim.api.nvim_win_is_valid(win) then vim.api.nvim_win_call(win, function() vim.fn.winrestview(view) end) end
  end
end

--- A FileChangedShell callback that leaves the buffer as it is: the chat deals with the change.
function H.leave_buffer() vim.v.fcs_choice = '' end

--- The agent deleted the file: an unmodified buffer goes (its windows keep their layout with
--- another buffer); a modified one stays as the user's copy.
function H.deleted(buf, path)
  if vim.bo[buf].modified then
    vim.notify(string.format('agent: %s was deleted; your unsaved buffer is kept', H.short(path)), vim.log.levels.WARN)
    return
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_win_call(win, function()
      local alt = vim.fn.bufnr('#')
      if alt > 0 and alt ~= buf and vim.api.nvim_buf_is_valid(alt) then
        vim.api.nvim_win_set_buf(win, alt)
      else
        vim.cmd('enew')
      end
    end)
  end
  pcall(vim.api.nvim_buf_delete, buf, { force = false })
end

--- The file changed under a buffer with unsaved edits: ask, never overwrite silently. Until the
--- user answers, Neovim's own question about the change on disk is held back; the prompt comes
--- on the next tick, so the agent's write does not wait for it.
function H.conflict(buf, path)
  if H.asking[buf] then return end
  -- Only the agent's change is held back: once, and not past the user's own :w or :e (a picker
  -- may never call back when it is dismissed).
  H.asking[buf] = vim.api.nvim_create_autocmd('FileChangedShell', {
    buffer = buf,
    once = true,
    desc = 'agent: the change is being asked about',
    callback = H.leave_buffer,
  })
  vim.api.nvim_create_autocmd({ 'BufWritePost', 'BufReadPost', 'BufWipeout' }, {
    buffer = buf,
    once = true,
    callback = function()
      pcall(vim.api.nvim_del_autocmd, H.asking[buf])
      H.asking[buf] = nil
    end,
  })
  local choices = { 'Keep my unsaved version', "Take the agent's version", 'Compare them (diff)' }
  vim.schedule(function()
    vim.ui.select(choices, {
      prompt = string.format('agent changed %s, which has unsaved edits', H.short(path)),
    }, function(choice)
      pcall(vim.api.nvim_del_autocmd, H.asking[buf])
      H.asking[buf] = nil
      if not vim.api.nvim_buf_is_loaded(buf) then return end
      if choice == choices[2] then
        vim.api.nvim_buf_call(buf, function() vim.cmd('silent! edit!') end)
        return
      end
      -- The user's text stays, read as if over the agent's file: Neovim then neither asks about
      -- the change on disk nor warns that :w overwrites it.
      H.keep_text(buf)
      if choice == choices[3] then
        H.diff(buf, path)
      else
        vim.notify(string.format("agent: kept your version of %s; :w overwrites the agent's", H.short(path)), vim.log.levels.INFO)
      end
    end)
  end)
end

H.asking = {} ---@type table<integer, integer> buffer -> its FileChangedShell autocmd

--- Reloads the file and puts the buffer's unsaved text back over it, hunk by hunk (marks outside
--- the changed lines stay), every window's view kept. The buffer stays modified. Where a reload
--- would lose the undo history (more lines than 'undoreload') or the text cannot be put back
--- ('nomodifiable'), the buffer is left alone and only Neovim's question is answered for it.
function H.keep_text(buf)
  local mine = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if not vim.bo[buf].modifiable or #mine > vim.o.undoreload then
    H.checked(buf)
    return
  end
  H.keeping_views(buf, function()
    vim.api.nvim_buf_call(buf, function() vim.cmd('silent! edit!') end)
    local disk = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    local diff = vim.text and vim.text.diff or vim.diff
    local ok = pcall(function()
      local hunks = diff(table.concat(disk, '\n') .. '\n', table.concat(mine, '\n') .. '\n', { result_type = 'indices' })
      ---@cast hunks integer[][]
      for i = #hunks, 1, -1 do
        local a, a_count, b, b_count = unpack(hunks[i])
        local from = a_count == 0 and a or a - 1
        vim.api.nvim_buf_set_lines(buf, from, from + a_count, false, vim.list_slice(mine, b, b + b_count - 1))
      end
    end)
    -- Whatever happened, the user's text is what the buffer holds.
    if not ok or not vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), mine) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, mine)
    end
  end)
end

--- Lets Neovim see the file's new time without reloading, so it does not ask about it again.
function H.checked(buf)
  local id = vim.api.nvim_create_autocmd('FileChangedShell', { buffer = buf, callback = H.leave_buffer })
  vim.api.nvim_buf_call(buf, function() pcall(vim.cmd, 'checktime ' .. buf) end)
  pcall(vim.api.nvim_del_autocmd, id)
end

--- Shows the buffer and the file on disk side by side in diff mode, in a new tab.
function H.diff(buf, path)
  vim.cmd('tab split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.cmd('diffthis')
  vim.cmd('vertical new')
  local disk = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(disk, 0, -1, false, vim.fn.readfile(path))
  vim.bo[disk].buftype = 'nofile'
  vim.bo[disk].bufhidden = 'wipe'
  vim.bo[disk].modifiable = false
  vim.bo[disk].filetype = vim.bo[buf].filetype
  pcall(vim.api.nvim_buf_set_name, disk, 'agent://disk/' .. vim.fn.fnamemodify(path, ':.'))
  vim.cmd('diffthis')
end

function H.short(path) return vim.fn.fnamemodify(path, ':~:.') end

return M
