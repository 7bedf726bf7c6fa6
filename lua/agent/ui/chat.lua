--- The chat: a Markdown transcript buffer and an input buffer, shown as a split (or a float pair).
--- It only draws; what to do with a submitted message is the caller's callback.
local M = {}
local H = {}

local chat_files = require('agent.ui.chat-files')
local layout = require('agent.ui.chat-layout')
local markdown = require('agent.ui.chat-markdown')

---@class agent.ChatCallbacks
---@field on_submit fun(text: string)
---@field on_help? fun()

H.state = {
  transcript = nil, ---@type integer|nil
  input = nil, ---@type integer|nil
  callbacks = nil, ---@type agent.ChatCallbacks|nil
  reasoning_ns = vim.api.nvim_create_namespace('agent.chat.reasoning'),
  tool_ns = vim.api.nvim_create_namespace('agent.chat.tools'),
  tools = {}, ---@type table<string, integer> call id -> extmark on its header line
  decisions = {}, ---@type table<string, string> call id -> the user's answer to its permission prompt
  details = {}, ---@type { [1]: integer, [2]: integer }[] 1-based line ranges of folded tool details
  role_ns = vim.api.nvim_create_namespace('agent.chat.roles'),
  hint_ns = vim.api.nvim_create_namespace('agent.chat.input_hint'),
  streaming = {}, ---@type table<string, { reasoning_open: boolean }>
}

---@param callbacks agent.ChatCallbacks
function M.setup(callbacks) H.state.callbacks = callbacks end

-- Buffers ------------------------------------------------------------------------------------

---@return integer
function M.transcript_buf()
  local buf = H.state.transcript
  if buf and vim.api.nvim_buf_is_valid(buf) then return buf end
  markdown.register()
  buf = H.scratch('agent://chat', 'agent-chat', H.prepare_transcript)
  H.state.transcript = buf
  markdown.attach(buf)
  return buf
end

---@param buf integer
function H.prepare_transcript(buf)
  vim.bo[buf].modifiable = false
  markdown.attach(buf)
  vim.keymap.set('n', 'q', M.close, { buffer = buf, desc = 'agent: close the chat' })
  vim.keymap.set('n', 'i', M.focus_input, { buffer = buf, desc = 'agent: type a message' })
  local function open_file() chat_files.open_under_cursor({ H.state.transcript, H.state.input }) end
  vim.keymap.set('n', '<CR>', open_file, { buffer = buf, desc = 'agent: open the file under the cursor' })
  vim.keymap.set('n', 'Q', function() chat_files.to_quickfix(H.state.last_changed) end, { buffer = buf, desc = 'agent: changed files to the quickfix list' })
  vim.keymap.set('n', '?', H.help, { buffer = buf, desc = 'agent: keys and modes' })
  for _, key in ipairs({ 'za', 'zo', 'zc' }) do
    vim.keymap.set('n', key, function() H.fold_key(key) end, { buffer = buf, desc = 'agent: ' .. key .. ' (on a tool call: its details)' })
  end
end

--- A fold key on a tool call's header acts on the details folded below it (the header stays
--- visible, so the fold starts on the next line); anywhere else it is Neovim's own.
---@param key string
function H.fold_key(key)
  local row = vim.fn.line('.')
  local header = vim.fn.getline(row):match('^(%S+) ')
  local below = row + 1
  local is_tool = false
  for _, icon in pairs(H.icons) do
    is_tool = is_tool or header == icon
  end
  if not (is_tool and vim.fn.foldclosed(row) == -1 and vim.fn.foldlevel(below) > vim.fn.foldlevel(row)) then
    -- As Neovim's own key would: an error message (E490 where there is no fold), no stack trace.
    local ok, err = pcall(vim.cmd, 'normal! ' .. vim.v.count1 .. key)
    if not ok then vim.api.nvim_echo({ { tostring(err):gsub('^Vim%(normal%):', ''), 'ErrorMsg' } }, true, {}) end
    return
  end
  local view = vim.fn.winsaveview()
  vim.api.nvim_win_set_cursor(0, { below, 0 })
  vim.cmd('silent! normal! ' .. key)
  vim.fn.winrestview(view)
end

--- A named scratch buffer kept while hidden. The filetype is set last, after `prepare` (its
--- keymaps and the like), so that FileType autocmds see the rest and the user's win.
---@param prepare fun(buf: integer)
function H.scratch(name, filetype, prepare)
  local buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  prepare(buf)
  vim.bo[buf].filetype = filetype
  return buf
end

---@return integer
function M.input_buf()
  local buf = H.state.input
  if buf and vim.api.nvim_buf_is_valid(buf) then return buf end
  buf = H.scratch('agent://input', 'agent-input', H.prepare_input)
  H.state.input = buf
  return buf
end

---@param buf integer
function H.prepare_input(buf)
  -- @path and #buffer/#selection/#diagnostics/#quickfix completion.
  require('agent.context').attach(buf)
  local submit = function() M.submit() end
  vim.keymap.set('n', '<CR>', submit, { buffer = buf, desc = 'agent: send the message' })
  vim.keymap.set('i', '<C-CR>', submit, { buffer = buf, desc = 'agent: send the message' })
  vim.keymap.set('i', '<C-s>', submit, { buffer = buf, desc = 'agent: send the message' })
  vim.keymap.set('n', 'q', M.close, { buffer = buf, desc = 'agent: close the chat' })
  vim.keymap.set('n', '?', H.help, { buffer = buf, desc = 'agent: keys and modes' })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI', 'TextChangedP' }, {
    buffer = buf,
    callback = function() H.input_hint(buf) end,
  })
  H.input_hint(buf)
end

--- What the empty input is for and how to send, dim, until something is typed.
---@param buf integer
function H.input_hint(buf)
  vim.api.nvim_buf_clear_namespace(buf, H.state.hint_ns, 0, -1)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, 2, false)
  if #lines ~= 1 or lines[1] ~= '' then return end
  vim.api.nvim_buf_set_extmark(buf, H.state.hint_ns, 0, 0, {
    virt_text = { { 'Ask anything · Enter sends · @file #buffer attach · ? keys', 'AgentInputPrompt' } },
    virt_text_pos = 'overlay',
  })
end

function H.help()
  if H.state.callbacks and H.state.callbacks.on_help then H.state.callbacks.on_help() end
end

--- Sends the input's text through the callback and clears the input.
function M.submit()
  local buf = M.input_buf()
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  if vim.trim(text) == '' then return end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  H.input_hint(buf)
  if H.state.callbacks then H.state.callbacks.on_submit(text) end
end

-- Windows ------------------------------------------------------------------------------------

---@return integer|nil transcript window in the current tabpage
function M.transcript_win() return layout.find_win(H.state.transcript) end

---@return integer|nil input window in the current tabpage
function M.input_win() return layout.find_win(H.state.input) end

---@return boolean
function M.is_open() return M.transcript_win() ~= nil end

function M.open()
  if M.is_open() then return end
  local transcript, input = M.transcript_buf(), M.input_buf()
  local tw, iw = layout.open(require('agent.config').current.window, transcript, input)
  vim.wo[tw].conceallevel = 2
  -- Tool details are folded away (manual folds: an expression is not re-evaluated reliably when
  -- a window that is not current changes); `za` on a tool line opens them.
  vim.wo[tw].foldmethod = 'manual'
  vim.wo[tw].foldtext = "v:lua.require'agent.ui.chat'.foldtext()"
  H.refold(tw)
  H.scroll_to_end(tw)
  layout.watch(M.transcript_win, M.input_win)
  vim.api.nvim_set_current_win(iw)
end

function M.close() layout.close({ M.input_win(), M.transcript_win() }) end

function M.toggle()
  if M.is_open() then
    M.close()
  else
    M.open()
  end
end

function M.focus_input()
  M.open()
  local win = M.input_win()
  if win then
    vim.api.nvim_set_current_win(win)
    vim.cmd('startinsert!')
  end
end

-- Transcript ---------------------------------------------------------------------------------

--- Appends whole lines at the end of the transcript.
---@param lines string[]
---@param hl? string highlight group for the appended lines
function M.append_lines(lines, hl)
  local buf = M.transcript_buf()
  H.edit(buf, function()
    local count = vim.api.nvim_buf_line_count(buf)
    local empty = count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
    local start = empty and 0 or count
    vim.api.nvim_buf_set_lines(buf, start, empty and 1 or count, false, lines)
    if hl then
      vim.api.nvim_buf_set_extmark(buf, H.state.role_ns, start, 0, {
        end_row = start + #lines,
        hl_group = hl,
        hl_eol = false,
      })
    end
  end)
end

---@param text string
function M.append_user(text)
  M.append_lines({ '## You', '' })
  local buf = M.transcript_buf()
  H.highlight_line(buf, vim.api.nvim_buf_line_count(buf) - 2, 'AgentUser')
  M.append_lines(vim.split(text, '\n', { plain = true }))
  M.append_lines({ '' })
end

---@param id string
---@param model string|nil
function M.begin_assistant(id, model)
  H.state.streaming[id] = { reasoning_open = false, first_detail = #H.state.details + 1 }
  M.append_lines({ model and model ~= '' and ('## Agent · ' .. model) or '## Agent', '', '' })
  local buf = M.transcript_buf()
  H.highlight_line(buf, vim.api.nvim_buf_line_count(buf) - 3, 'AgentAssistant')
end

--- Appends streamed text at the end without moving the user's cursor; windows whose cursor sits
--- on the last line follow the new end.
---@param id string
---@param text string|nil
---@param reasoning string|nil
function M.stream(id, text, reasoning)
  local run = H.state.streaming[id] or { reasoning_open = false }
  H.state.streaming[id] = run
  markdown.hold(M.transcript_buf())
  if reasoning and reasoning ~= '' then
    if not run.reasoning_open then
      run.reasoning_open = true
      H.end_line()
      run.reasoning_start = vim.api.nvim_buf_line_count(M.transcript_buf())
    end
    H.append_text(reasoning, 'AgentReasoning')
  end
  if text and text ~= '' then
    if run.reasoning_open then
      H.close_reasoning(run)
      H.append_text('\n')
    end
    if run.after_tool then
      -- A blank line between a tool's folded details and the answer that follows them.
      run.after_tool = nil
      local tail = vim.api.nvim_buf_get_lines(M.transcript_buf(), -3, -1, false)
      if #tail == 2 and tail[2] == '' and tail[1] ~= '' then H.append_text('\n') end
    end
    H.append_text(text)
  end
end

--- Reasoning is shown dim while it streams and folds away once the answer or a tool starts.
function H.close_reasoning(run)
  if not run or not run.reasoning_open then return end
  run.reasoning_open = false
  local buf = M.transcript_buf()
  -- End the last reasoning line first: text appended to a fold's last line would shrink the fold.
  H.append_text('\n')
  local range = { run.reasoning_start, vim.api.nvim_buf_line_count(buf) - 1, 'thinking' }
  table.insert(H.state.details, range)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    H.fold(win, range)
  end
end

---@param id string
---@param outcome string
---@param err string|nil
function M.end_run(id, outcome, err)
  local run = H.state.streaming[id]
  H.close_reasoning(run)
  H.state.streaming[id] = nil
  markdown.release(M.transcript_buf())
  -- Every fold this run made exists in every transcript window (a window may have been busy or
  -- replaced while a fold was made); folds the user opened stay open.
  for i = run and run.first_detail or #H.state.details + 1, #H.state.details do
    local range = H.state.details[i]
    for _, win in ipairs(vim.fn.win_findbuf(M.transcript_buf())) do
      local missing = vim.api.nvim_win_call(win, function() return vim.fn.foldlevel(range[1]) == 0 end)
      if missing then H.fold(win, range) end
    end
  end
  H.end_line()
  if outcome == 'failed' then
    M.append_lines({ '', '> [!ERROR] ' .. (err or 'the run failed') }, 'AgentError')
  elseif outcome == 'cancelled' then
    M.append_lines({ '', '> Stopped.' }, 'AgentWarn')
  end
  M.append_lines({ '' })
end

--- A paragraph that is not model output (first-run help, host notices).
---@param text string
---@param level 'info'|'warn'|'error'
function M.notice(text, level)
  local hl = ({ info = 'AgentNotice', warn = 'AgentWarn', error = 'AgentError' })[level] or 'AgentNotice'
  M.append_lines(vim.split(text, '\n', { plain = true }), hl)
  M.append_lines({ '' })
end

H.icons = { running = '…', done = '✓', failed = '✗', denied = '⊘', cancelled = '■' }
H.tool_hl = { running = 'AgentToolRunning', done = 'AgentToolDone', failed = 'AgentError', denied = 'AgentWarn', cancelled = 'AgentWarn' }

---@param view { call_id: string, name: string, summary: string, status: string, detail?: string, duration_ms?: integer }
function M.tool(view)
  local buf = M.transcript_buf()
  local header = string.format(
    '%s %s%s%s',
    H.icons[view.status] or '?',
    view.name,
    view.summary ~= '' and (' ' .. view.summary) or '',
    view.duration_ms and string.format(' (%d ms)', view.duration_ms) or ''
  )
  if H.state.decisions[view.call_id] then header = header .. ' · ' .. H.state.decisions[view.call_id] end
  -- One line, whatever the summary holds (a buffer line cannot contain a newline).
  header = header:gsub('\r?\n', ' ⏎ ')
  local mark = H.state.tools[view.call_id]
  for _, run in pairs(H.state.streaming) do
    H.close_reasoning(run)
    run.after_tool = true
  end
  markdown.release(buf)
  if not mark then
    H.end_line()
    M.append_lines({ header })
    local row = vim.api.nvim_buf_line_count(buf) - 1
    H.state.tools[view.call_id] = vim.api.nvim_buf_set_extmark(buf, H.state.tool_ns, row, 0, {})
    H.highlight_line(buf, row, H.tool_hl[view.status])
    return
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.state.tool_ns, mark, {})
  if not pos[1] then return end
  local row = pos[1]
  H.edit(buf, function()
    vim.api.nvim_buf_set_lines(buf, row, row + 1, false, { header })
    if view.status ~= 'running' and view.detail and view.detail ~= '' then
      local detail = vim.split(view.detail, '\n', { plain = true })
      if #detail > 200 then detail = vim.list_extend(vim.list_slice(detail, 1, 200), { '... (' .. (#detail - 200) .. ' more lines)' }) end
      -- The fold starts on a plain line: a highlighter may conceal fence lines whole (Neovim
      -- 0.11+'s own Markdown query does), and a closed fold whose first line is concealed would
      -- vanish from the screen.
      local lines = { '  arguments and result:', '  ```' }
      for _, l in ipairs(detail) do
        table.insert(lines, '  ' .. l)
      end
      table.insert(lines, '  ```')
      table.insert(H.state.details, { row + 2, row + 1 + #lines })
      local at_end = row + 1 == vim.api.nvim_buf_line_count(buf)
      -- Text streamed after the call starts on a fresh line, not on the closing fence.
      if at_end then table.insert(lines, '') end
      vim.api.nvim_buf_set_lines(buf, row + 1, row + 1, false, lines)
    end
  end)
  local range = H.state.details[#H.state.details]
  if view.status ~= 'running' and range and range[1] == row + 2 then
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      H.fold(win, range)
    end
  end
  H.highlight_line(buf, row, H.tool_hl[view.status])
  if view.status ~= 'running' then
    H.state.tools[view.call_id] = nil
    H.state.decisions[view.call_id] = nil
  end
end

--- The user's answer to a permission prompt, on the header of the tool call that waits for it
--- (the last one running), or as a line of its own when no call is shown yet.
---@param text string e.g. 'allowed once'
---@param summary string what was asked about
function M.permission_decided(text, summary)
  -- A reason given through reply_permission() may hold line breaks; a header is one line.
  text = text:gsub('\r?\n', ' ⏎ ')
  local buf = M.transcript_buf()
  local waiting, row
  for call_id, mark in pairs(H.state.tools) do
    local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.state.tool_ns, mark, {})
    if pos[1] and (not row or pos[1] > row) then
      waiting, row = call_id, pos[1]
    end
  end
  if not waiting then
    M.notice(summary .. ': ' .. text, text:match('^denied') and 'warn' or 'info')
    return
  end
  H.state.decisions[waiting] = text
  H.edit(buf, function()
    local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
    vim.api.nvim_buf_set_text(buf, row, #line, row, #line, { ' · ' .. text })
  end)
end

--- The closed fold of a tool's details: one dim line saying what `za` opens.
---@return string
function M.foldtext()
  for _, range in ipairs(H.state.details) do
    if range[1] == vim.v.foldstart and range[3] == 'thinking' then
      return string.format('▸ thinking (%d lines, za opens)', vim.v.foldend - vim.v.foldstart + 1)
    end
  end
  return string.format('  ▸ details (%d lines, za opens)', vim.v.foldend - vim.v.foldstart - 2)
end

--- Closes the fold of one tool's details in a window.
function H.fold(win, range)
  vim.api.nvim_win_call(win, function() vim.cmd(string.format('silent! %d,%dfold', range[1], range[2])) end)
end

--- Folds are per window: a newly opened transcript window gets every tool's fold again.
function H.refold(win)
  vim.api.nvim_win_call(win, function() vim.cmd('silent! normal! zE') end)
  for _, range in ipairs(H.state.details) do
    H.fold(win, range)
  end
end

--- The completion entry: outcome, changed files and the checks actually run.
---@param p { outcome: string, changed_files?: string[], checks?: { command: string, exit_code: integer|nil, passed: boolean }[], steps?: integer }
function M.completion(p)
  local words = { done = 'Done', failed = 'Failed', cancelled = 'Stopped', budget = 'Step budget used up' }
  local line = '> **' .. (words[p.outcome] or p.outcome) .. '**'
  if p.steps then line = line .. string.format(' · %d step%s', p.steps, p.steps == 1 and '' or 's') end
  local checks = {}
  for _, c in ipairs(p.checks or {}) do
    table.insert(checks, string.format('`%s` %s', c.command, c.passed and 'passed' or ('failed (exit ' .. tostring(c.exit_code) .. ')')))
  end
  if #checks > 0 then
    line = line .. ' · checks: ' .. table.concat(checks, ', ')
  elseif (p.changed_files and #p.changed_files > 0) then
    line = line .. ' · no build or tests were run'
  end
  local lines = { line }
  H.state.last_changed = p.changed_files or {}
  if p.changed_files and #p.changed_files > 0 then
    local files = {}
    for _, f in ipairs(p.changed_files) do
      table.insert(files, '`' .. f .. '`')
    end
    table.insert(lines, '> Changed: ' .. table.concat(files, ', ') .. '  (<CR> opens, Q lists)')
  end
  H.end_line()
  M.append_lines(lines, p.outcome == 'done' and 'AgentNotice' or 'AgentWarn')
end

function H.highlight_line(buf, row, hl)
  if not hl then return end
  vim.api.nvim_buf_set_extmark(buf, H.state.role_ns, row, 0, { end_row = row + 1, hl_group = hl, hl_eol = false })
end

--- Redraws a restored session: its messages, tool calls (folded) and summaries.
---@param entries table[] from the host: { kind = 'user'|'assistant'|'summary', ... }
function M.restore(entries)
  M.clear()
  for i, e in ipairs(entries) do
    if e.kind == 'user' then
      M.append_user(e.text)
    elseif e.kind == 'summary' then
      M.notice('Summary of the earlier conversation:\n\n' .. e.text, 'info')
    else
      local id = 'restored' .. i
      M.begin_assistant(id, e.model)
      if e.reasoning and e.reasoning ~= vim.NIL then M.stream(id, nil, e.reasoning) end
      if e.text ~= '' then M.stream(id, e.text, nil) end
      for _, view in ipairs(e.tools or {}) do
        M.tool(vim.tbl_extend('force', view, { status = 'running' }))
        M.tool(view)
      end
      M.end_run(id, 'done')
    end
  end
end

---@return string[]
function M.lines() return vim.api.nvim_buf_get_lines(M.transcript_buf(), 0, -1, false) end

function M.clear()
  H.state.streaming = {}
  H.state.tools = {}
  H.state.decisions = {}
  H.state.details = {}
  local buf = M.transcript_buf()
  markdown.release(buf)
  H.edit(buf, function()
    vim.api.nvim_buf_clear_namespace(buf, -1, 0, -1)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  end)
end

-- Helpers ------------------------------------------------------------------------------------

function H.edit(buf, fn)
  local followers = {}
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local row = vim.api.nvim_win_get_cursor(win)[1]
    if row >= last or H.follow[win] == row then table.insert(followers, win) end
  end
  vim.bo[buf].modifiable = true
  local ok, err = pcall(fn)
  vim.bo[buf].modifiable = false
  markdown.sync(buf)
  for _, win in ipairs(followers) do
    H.follow_later(win)
  end
  if not ok then error(err) end
end

--- Windows following the end of the transcript -> the cursor row they were left on.
H.follow = {} ---@type table<integer, integer>

--- Moves a following window to the end at most every 100 ms. Moving the cursor makes the
--- Markdown highlighter re-parse the whole transcript at once (with conceal on), so doing it
--- on every streamed chunk would stall the editor as the answer grows.
function H.follow_later(win)
  H.follow[win] = vim.api.nvim_win_get_cursor(win)[1]
  if H.follow_timer then return end
  H.follow_timer = vim.defer_fn(function()
    H.follow_timer = nil
    local pending = H.follow
    H.follow = {}
    for w, row in pairs(pending) do
      -- The user moved away meanwhile: leave them where they are.
      if vim.api.nvim_win_is_valid(w) and vim.api.nvim_win_get_cursor(w)[1] == row then H.scroll_to_end(w) end
    end
  end, 100)
end

function H.scroll_to_end(win)
  local buf = vim.api.nvim_win_get_buf(win)
  pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
end

--- Ends the transcript's last line when it holds text, so what comes next starts a line.
function H.end_line()
  local last = vim.api.nvim_buf_get_lines(M.transcript_buf(), -2, -1, false)[1] or ''
  if last ~= '' then H.append_text('\n') end
end

--- Appends text (which may hold newlines) at the very end of the transcript.
function H.append_text(text, hl)
  local buf = M.transcript_buf()
  H.edit(buf, function()
    local row = vim.api.nvim_buf_line_count(buf) - 1
    local col = #(vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or '')
    local lines = vim.split(text, '\n', { plain = true })
    vim.api.nvim_buf_set_text(buf, row, col, row, col, lines)
    if hl then
      local end_row = row + #lines - 1
      local end_col = #lines == 1 and col + #lines[1] or #lines[#lines]
      vim.api.nvim_buf_set_extmark(buf, H.state.reasoning_ns, row, col, {
        end_row = end_row,
        end_col = end_col,
        hl_group = hl,
      })
    end
  end)
end

return M
