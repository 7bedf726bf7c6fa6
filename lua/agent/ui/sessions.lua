--- The sessions picker and what comes back from session commands (export, undo, redo).
local M = {}
local H = {}

--- Lists the project's sessions; the chosen one can be resumed, renamed, exported or deleted.
---@param p { sessions: table[], problems: table[], current?: string }
---@param actions { resume: fun(id: string), delete: fun(id: string), next_request: fun(prefix: string): string, exports: table }
function M.on_sessions(p, actions)
  for _, problem in ipairs(p.problems or {}) do
    vim.notify(string.format('agent: skipped %s: %s', problem.file, problem.error), vim.log.levels.WARN)
  end
  if #p.sessions == 0 then
    vim.notify('agent: no saved sessions for this project yet', vim.log.levels.INFO)
    return
  end
  vim.ui.select(p.sessions, {
    prompt = 'Resume a session',
    format_item = function(s) return M.format_session(s, p.current) end,
  }, function(choice)
    if not choice then return end
    local choices = { 'Resume', 'Rename', 'Export to Markdown', 'Delete' }
    vim.ui.select(choices, { prompt = choice.title }, function(action)
      if action == 'Resume' then
        if choice.id ~= p.current then actions.resume(choice.id) end
      elseif action == 'Rename' then
        vim.ui.input({ prompt = 'New title: ', default = choice.title }, function(title)
          if title and title ~= '' then require('agent.rpc').notify('rename_session', { title = title, session = choice.id }) end
        end)
      elseif action == 'Export to Markdown' then
        local id = actions.next_request('export')
        actions.exports[id] = false
        require('agent.rpc').notify('export_session', { id = id, session = choice.id })
      elseif action == 'Delete' then
        vim.ui.select({ 'Delete it', 'Keep it' }, { prompt = 'Delete "' .. choice.title .. '"?' }, function(sure)
          if sure == 'Delete it' then actions.delete(choice.id) end
        end)
      end
    end)
  end)
end

--- One line of the picker: last activity, title, mode, model and size, and whether it is open.
---@param s { id: string, title: string, updatedAt: number, mode: string, model: string, messages?: number, bytes?: number }
---@param current string|nil the session open in this chat
---@return string
function M.format_session(s, current)
  local parts = { s.mode, s.model ~= '' and s.model or 'no model' }
  local size = H.size_text(s.messages, s.bytes)
  if size then table.insert(parts, size) end
  local mark = s.id == current and ' (open)' or ''
  local when = os.date('%Y-%m-%d %H:%M', math.floor(s.updatedAt / 1000))
  return string.format('%s  %s  %s%s', when, s.title, table.concat(parts, ' · '), mark)
end

---@param messages number|nil
---@param bytes number|nil
---@return string|nil
function H.size_text(messages, bytes)
  local out = {}
  if type(messages) == 'number' then table.insert(out, messages == 1 and '1 message' or (messages .. ' messages')) end
  if type(bytes) == 'number' then
    if bytes >= 1024 * 1024 then
      table.insert(out, string.format('%.1f MB', bytes / (1024 * 1024)))
    else
      table.insert(out, string.format('%d KB', math.max(1, math.floor(bytes / 1024 + 0.5))))
    end
  end
  if #out == 0 then return nil end
  return table.concat(out, ', ')
end

--- Writes an exported session to the file asked for, or shows it in a new tab.
---@param p { id: string, markdown: string }
---@param exports table<string, string|false> request id -> path (false: a new tab)
function M.on_exported(p, exports)
  local path = exports[p.id]
  exports[p.id] = nil
  local lines = vim.split(p.markdown, '\n', { plain = true })
  if path then
    local file = vim.fn.fnamemodify(vim.fn.expand(path), ':p')
    local function write()
      local ok, err = pcall(vim.fn.writefile, lines, file)
      if not ok or err ~= 0 then
        vim.notify('agent: could not write ' .. path .. (ok and '' or (': ' .. tostring(err))), vim.log.levels.ERROR)
        return
      end
      -- A buffer of that file shows the export, as after any other change to it.
      require('agent.reload').file_changed(file)
      vim.notify('agent: session exported to ' .. path, vim.log.levels.INFO)
    end
    if vim.uv.fs_stat(file) then
      vim.ui.select({ 'Overwrite it', 'Keep it' }, { prompt = path .. ' exists' }, function(choice)
        if choice == 'Overwrite it' then write() end
      end)
    else
      write()
    end
  else
    vim.cmd('tabnew')
    vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
    vim.bo.filetype = 'markdown'
  end
end

--- Reports an undo or redo; files changed since the run are listed and overwritten only if asked.
---@param p { id: string, kind: 'undo'|'redo', restored: string[], conflicts: string[] }
---@param next_request fun(prefix: string): string
function M.on_restored(p, next_request)
  local verb = p.kind == 'undo' and 'Undid' or 'Redid'
  if #p.conflicts > 0 then
    vim.ui.select({ 'Overwrite them', 'Leave them' }, {
      prompt = string.format('%s changed since the run: %s', #p.conflicts == 1 and 'This file' or 'These files', table.concat(p.conflicts, ', ')),
    }, function(choice)
      if choice == 'Overwrite them' then require('agent.rpc').notify(p.kind, { id = next_request(p.kind), force = true }) end
    end)
    return
  end
  for _, path in ipairs(p.restored) do
    require('agent.reload').file_changed(path)
  end
  local names = vim.tbl_map(function(f) return vim.fn.fnamemodify(f, ':~:.') end, p.restored)
  local list = #names > 0 and (': ' .. table.concat(names, ', ')) or ''
  vim.notify(string.format('agent: %s %d file(s)%s', verb:lower(), #p.restored, list), vim.log.levels.INFO)
end

return M
