--- What a prompt shows: the lines, their highlights, the title and the border hints of a
--- permission request or a question. Pure: no windows, no buffers.
local M = {}
local H = {}

---@class agent.PromptView
---@field lines string[]
---@field marks table[] { row (0-based), col, end_col, hl } or { row, line_hl }
---@field title string
---@field footers string[] key hints for the border when the text scrolls, longest first
---@field cursor? integer

--- Appends one line made of `{ text, hl? }` chunks, recording the highlighted ranges.
function H.add_chunks(view, chunks)
  local row, parts, col = #view.lines, {}, 0
  for _, chunk in ipairs(chunks) do
    -- One buffer line: a multi-line command or a file name with a newline shows its breaks as ⏎.
    local text = chunk[1]:gsub('\r?\n', ' ⏎ ')
    if chunk[2] and text ~= '' then
      table.insert(view.marks, { row = row, col = col, end_col = col + #text, hl = chunk[2] })
    end
    table.insert(parts, text)
    col = col + #text
  end
  table.insert(view.lines, table.concat(parts))
end

--- Chunks of a key hint line from `{ keys, label, argument? }` items. Non-breaking spaces keep
--- each key with its label when the line wraps.
function H.hint(items)
  local nbsp = '\194\160'
  local chunks = {}
  for i, item in ipairs(items) do
    if i > 1 then table.insert(chunks, { ' · ', 'AgentPromptHint' }) end
    table.insert(chunks, { item[1], 'AgentPromptKey' })
    table.insert(chunks, { nbsp .. item[2]:gsub(' ', nbsp), 'AgentPromptHint' })
    if item[3] then
      table.insert(chunks, { ' ', 'AgentPromptHint' })
      table.insert(chunks, { item[3], 'AgentPromptPattern' })
    end
  end
  return chunks
end

---@param text string
---@return string[]
function H.split(text)
  local lines = vim.split((text:gsub('\r\n', '\n'):gsub('\r', '')), '\n', { plain = true })
  while #lines > 1 and lines[#lines] == '' do
    table.remove(lines)
  end
  return lines
end

---@param entry agent.PromptEntry
---@return agent.PromptView
function M.permission(entry)
  local req = entry.req ---@type agent.PermissionRequest
  local view = { lines = {}, marks = {}, title = string.format(' Allow %s? ', req.tool) }
  local summary = req.summary and req.summary ~= '' and req.summary or req.tool
  for _, line in ipairs(H.split(summary)) do
    table.insert(view.lines, line)
  end
  if req.paths and #req.paths > 0 then
    H.add_chunks(view, { { #req.paths == 1 and 'File: ' or 'Files: ', 'AgentPromptHint' }, { table.concat(req.paths, ', '), 'AgentPromptPath' } })
  end
  if req.diff and req.diff ~= '' then
    table.insert(view.lines, '')
    for _, line in ipairs(H.split(req.diff)) do
      local hl = H.diff_hl(line)
      if hl then table.insert(view.marks, { row = #view.lines, line_hl = hl }) end
      table.insert(view.lines, line)
    end
  end
  table.insert(view.lines, '')
  local pattern = req.pattern and req.pattern ~= '' and req.pattern or ('any ' .. req.tool .. ' call')
  if vim.fn.strchars(pattern) > 200 then pattern = vim.fn.strcharpart(pattern, 0, 199) .. '…' end
  H.add_chunks(view, H.hint({
    { 'o', 'allow once' },
    { 'a', 'always allow:', pattern },
    { 'd/Esc', 'deny' },
    { 'r', 'deny with a reason' },
  }))
  view.footers = {
    ' ↓ more · o once · a always · d deny · r reason ',
    ' o once · a always · d deny · r reason ',
    ' o once·a always·d deny·r reason ',
    ' o/a/d/r ',
  }
  view.cursor = 1
  return view
end

function H.diff_hl(line)
  if vim.startswith(line, '+++') or vim.startswith(line, '---') or line:match('^diff ') or line:match('^index ') then
    return 'AgentPromptDiffHeader'
  elseif vim.startswith(line, '@@') then
    return 'AgentPromptDiffHunk'
  elseif vim.startswith(line, '+') then
    return 'AgentPromptDiffAdd'
  elseif vim.startswith(line, '-') then
    return 'AgentPromptDiffDelete'
  end
  return nil
end

---@param entry agent.PromptEntry (its `rows` are filled: buffer row -> option index)
---@param reopen_hint string how the hint tells the user to bring a hidden question back
---@return agent.PromptView
function M.ask(entry, reopen_hint)
  local req = entry.req ---@type agent.AskRequest
  local view = { lines = {}, marks = {}, title = ' Question ' }
  for _, line in ipairs(H.split(req.question)) do
    table.insert(view.lines, line)
  end
  table.insert(view.lines, '')
  entry.rows = {}
  local options = req.options
  local key = 'AgentPromptKey'
  for i, option in ipairs(options) do
    local label = i <= 9 and tostring(i) or ' '
    entry.rows[#view.lines + 1] = i
    H.add_chunks(view, { { ' ' }, { label, key }, { '  ' .. option:gsub('[\r\n]+', ' ') } })
  end
  entry.rows[#view.lines + 1] = 'text'
  H.add_chunks(view, { { ' ' }, { 'i', key }, { '  Type your own answer…', 'AgentPromptHint' } })
  view.cursor = #options > 0 and #view.lines - #options or #view.lines
  table.insert(view.lines, '')
  local range = #options > 1 and ('1-' .. math.min(#options, 9)) or '1'
  local items = #options > 0 and { { range .. '/<CR>', 'pick' } } or {}
  vim.list_extend(items, { { 'i', 'type an answer' }, { 'Esc', 'dismiss' } })
  H.add_chunks(view, H.hint(items))
  -- A line of its own: wrapped, the key would break at its hyphen.
  H.add_chunks(view, H.hint({ { '<C-w>c', 'hide for now, reopen with', reopen_hint } }))
  local pick = #options > 0 and (range .. ' pick · ') or ''
  view.footers = {
    ' ↓ more · ' .. pick .. 'i type · Esc dismiss ',
    ' ' .. pick .. 'i type · Esc dismiss ',
    ' ' .. (#options > 0 and (range .. ' · ') or '') .. 'i · Esc ',
  }
  return view
end

return M
