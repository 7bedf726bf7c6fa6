--- Floating prompts: permission requests and questions for the user.
---
--- It only draws and reads keys; what happens with an answer is the caller's callback, called
--- exactly once per request and never for a request removed with `cancel()`. An answer that
--- arrives another way (a script calling `require('agent').answer()`) should `cancel()` the prompt.
---
--- One prompt is visible at a time; later requests wait in a queue and show in order. Focus goes
--- back to the window (and Insert mode) the user was in when the last one is answered.
--- Permission prompt: `o`/`y` allow once, `a` allow always (`req.pattern`, shown in the hint),
--- `d`/`n`/`q`/`<Esc>` deny, `r` deny with a reason (an empty or cancelled reason goes back to
--- the prompt).
--- Question prompt: `1`..`9` or `<CR>` on a row pick an option, `j`/`k` move between rows,
--- `i`/`c` (or `<CR>` on the last row) type an answer; `q`/`<Esc>` dismiss it: the callback gets
--- nil and the model is told the user did not answer.
--- Closing a prompt's window any other way (`:q`, `<C-w>c`, `:edit` in it) only hides it, for
--- a look at the code before answering: `reopen()` brings it back. A hidden prompt keeps its
--- place at the head of the queue.
--- Buffers have filetype `agent-prompt` and `b:agent_prompt = { id, kind }` for autocmds.
local M = {}
local H = {}

---@class agent.PermissionRequest
---@field id string
---@field tool string
---@field summary string
---@field pattern string what "allow always" covers
---@field diff? string unified diff of the change, for edits and patches
---@field paths? string[]

---@alias agent.PermissionDecision 'once'|'always'|'deny'|{ deny: string }

---@class agent.AskRequest
---@field id string
---@field question string
---@field options string[] 2 to 5 choices; a free-text answer is always offered too

---@class agent.PromptEntry
---@field kind 'permission'|'ask'
---@field id string
---@field req agent.PermissionRequest|agent.AskRequest
---@field callback fun(result: any)
---@field done boolean answered or cancelled
---@field rows? table<integer, integer|'text'> ask prompts: buffer row (1-based) -> option index

---@class agent.PromptOptions
---@field reopen_hint? string how the hint line tells the user to bring a hidden question back

H.default_options = {
  reopen_hint = ":lua require('agent.ui.prompt').reopen()",
}

H.state = {
  options = vim.deepcopy(H.default_options), ---@type agent.PromptOptions
  queue = {}, ---@type agent.PromptEntry[] the head is the visible or hidden prompt
  win = nil, ---@type integer|nil
  buf = nil, ---@type integer|nil
  view = nil, ---@type agent.PromptView|nil
  hidden = false, -- the head was dismissed by the user and waits for reopen()
  origin = nil, ---@type { win: integer, insert: boolean, cursor: integer[], eol: boolean }|nil
  deferred = false, -- a show waits for the command line to close
  highlighted = false,
  ns = vim.api.nvim_create_namespace('agent.prompt'),
  augroup = vim.api.nvim_create_augroup('agent.prompt', { clear = true }),
}

local typing = require('agent.ui.typing')

---@param opts agent.PromptOptions|nil
function M.setup(opts)
  vim.validate({ opts = { opts, 'table', true } })
  vim.validate({ ['opts.reopen_hint'] = { (opts or {}).reopen_hint, 'string', true } })
  H.state.options = vim.tbl_extend('force', vim.deepcopy(H.default_options), opts or {})
end

-- Public API ---------------------------------------------------------------------------------

--- Asks whether a tool call may run. `on_decision` receives `'once'`, `'always'`, `'deny'` or
--- `{ deny = reason }`, exactly once.
---@param req agent.PermissionRequest
---@param on_decision fun(decision: agent.PermissionDecision)
function M.permission(req, on_decision)
  vim.validate({
    req = { req, 'table' },
    on_decision = { on_decision, 'function' },
  })
  req = H.without_nil(req)
  vim.validate({
    ['req.id'] = { req.id, 'string' },
    ['req.tool'] = { req.tool, 'string' },
    ['req.summary'] = { req.summary, 'string', true },
    ['req.pattern'] = { req.pattern, 'string', true },
    ['req.diff'] = { req.diff, 'string', true },
    ['req.paths'] = { req.paths, 'table', true },
  })
  H.enqueue({ kind = 'permission', id = req.id, req = req, callback = on_decision, done = false })
end

--- Asks the user a question. `on_answer` receives the chosen option or the typed text, or nil
--- when the user dismisses the question (`q`/`<Esc>`), exactly once. Closing the window only
--- hides it: `reopen()` shows it again.
---@param req agent.AskRequest
---@param on_answer fun(answer: string|nil)
function M.ask(req, on_answer)
  vim.validate({
    req = { req, 'table' },
    on_answer = { on_answer, 'function' },
  })
  req = H.without_nil(req)
  vim.validate({
    ['req.id'] = { req.id, 'string' },
    ['req.question'] = { req.question, 'string' },
    ['req.options'] = { req.options, 'table', true },
  })
  req.options = vim.tbl_map(tostring, req.options or {})
  H.enqueue({ kind = 'ask', id = req.id, req = req, callback = on_answer, done = false })
end

--- Removes a waiting or visible prompt without calling its callback (the host gave up on it).
---@param id string
---@return boolean removed
function M.cancel(id)
  for i, entry in ipairs(H.state.queue) do
    if entry.id == id then
      entry.done = true
      if i == 1 then
        H.advance()
      else
        table.remove(H.state.queue, i)
      end
      return true
    end
  end
  return false
end

--- Removes every prompt without calling any callback (a stop, or the host went away).
function M.cancel_all()
  local head = H.state.queue[1]
  for _, entry in ipairs(H.state.queue) do
    entry.done = true
  end
  H.state.queue = { head }
  if head then H.advance() end
end

--- Shows the hidden prompt again (or focuses the visible one).
---@return boolean shown false when no prompt is waiting
function M.reopen()
  if not H.state.queue[1] then
    vim.notify('agent: no question is waiting', vim.log.levels.INFO)
    return false
  end
  if H.win_valid() then
    vim.api.nvim_set_current_win(H.state.win)
    return true
  end
  H.state.hidden = false
  H.show()
  return true
end

--- Ids of the prompts not answered yet, in order; the first is the visible or hidden one.
---@return string[]
function M.pending()
  return vim.tbl_map(function(entry) return entry.id end, H.state.queue)
end

--- Id of the prompt on screen, if any.
---@return string|nil
function M.visible()
  if H.win_valid() and H.state.queue[1] then return H.state.queue[1].id end
  return nil
end

--- The prompt window, if one is on screen.
---@return integer|nil
function M.win() return H.win_valid() and H.state.win or nil end

-- Queue --------------------------------------------------------------------------------------

--- Requests decoded from the host carry `vim.NIL` for JSON nulls; optional fields become nil.
---@generic T: table
---@param req T
---@return T
function H.without_nil(req)
  local copy = {}
  for key, value in pairs(req) do
    if value ~= vim.NIL then copy[key] = value end
  end
  return copy
end

---@param entry agent.PromptEntry
function H.enqueue(entry)
  for _, waiting in ipairs(H.state.queue) do
    -- The host asks once per id; a repeat is a resend of the same question.
    if waiting.id == entry.id then return end
  end
  table.insert(H.state.queue, entry)
  if #H.state.queue == 1 then
    H.state.hidden = false
    H.show()
  end
end

--- Records the answer, then moves on to the next prompt and hands the answer to the caller.
---@param entry agent.PromptEntry
---@param result any
function H.finish(entry, result)
  if entry.done then return end
  entry.done = true
  if H.state.queue[1] == entry then
    H.advance()
  else
    for i, waiting in ipairs(H.state.queue) do
      if waiting == entry then table.remove(H.state.queue, i) end
    end
  end
  local ok, err = pcall(entry.callback, result)
  if not ok then vim.notify('agent: prompt callback failed: ' .. tostring(err), vim.log.levels.ERROR) end
end

--- Drops the head of the queue (already marked done) and shows the next prompt, or gives focus
--- back when none is left.
function H.advance()
  table.remove(H.state.queue, 1)
  H.state.hidden = false
  H.close_win()
  if H.state.queue[1] then
    H.show()
  else
    H.restore_focus()
  end
end

-- Windows ------------------------------------------------------------------------------------

function H.win_valid() return H.state.win ~= nil and vim.api.nvim_win_is_valid(H.state.win) end

function H.show()
  local entry = H.state.queue[1]
  if not entry or H.state.hidden or H.win_valid() or H.state.deferred then return end
  -- Focus cannot leave a command line being typed (input() included) or the command-line
  -- window: show when the user is done with it.
  local cmdline = vim.api.nvim_get_mode().mode:sub(1, 1) == 'c'
  if cmdline or vim.fn.getcmdwintype() ~= '' then
    H.state.deferred = true
    vim.api.nvim_create_autocmd(cmdline and 'CmdlineLeave' or 'CmdwinLeave', {
      group = H.state.augroup,
      once = true,
      callback = function()
        vim.schedule(function()
          H.state.deferred = false
          H.show()
        end)
      end,
    })
    return
  end
  H.ensure_highlights()

  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  local render = require('agent.ui.prompt-view')
  local view = entry.kind == 'permission' and render.permission(entry) or render.ask(entry, H.state.options.reopen_hint)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, view.lines)
  for _, mark in ipairs(view.marks) do
    H.mark(buf, mark)
  end
  vim.bo[buf].modifiable = false
  vim.b[buf].agent_prompt = { id = entry.id, kind = entry.kind }

  local had_origin = H.state.origin ~= nil
  -- The user is typing: the next keys are meant for their text, not as answers.
  H.state.guard = typing.guard(typing.inserting() and typing.typed_recently())
  H.remember_origin()
  local ok, win = pcall(vim.api.nvim_open_win, buf, true, H.layout(view))
  if not ok then
    -- Some moment where windows cannot change (a textlock); try again shortly, and say why if
    -- it keeps failing (the prompt can be shown again with :Agent prompt).
    vim.api.nvim_buf_delete(buf, { force = true })
    if not had_origin then H.state.origin = nil end
    H.state.retries = (H.state.retries or 0) + 1
    if H.state.retries > 40 then
      H.state.retries = 0
      H.state.hidden = true
      vim.notify('agent: the prompt could not be shown (' .. tostring(win) .. '); ' .. H.state.options.reopen_hint .. ' tries again', vim.log.levels.ERROR)
      return
    end
    H.state.deferred = true
    vim.defer_fn(function()
      H.state.deferred = false
      H.show()
    end, 50)
    return
  end
  H.state.retries = 0
  H.state.win, H.state.buf, H.state.view = win, buf, view
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true
  vim.wo[win].cursorline = entry.kind == 'ask'
  vim.wo[win].winhighlight = table.concat({
    'NormalFloat:AgentPromptNormal',
    'FloatBorder:AgentPromptBorder',
    'FloatTitle:AgentPromptTitle',
    'FloatFooter:AgentPromptHint',
    'CursorLine:AgentPromptSelected',
  }, ',')
  H.fit(win, view)
  vim.api.nvim_win_set_cursor(win, { view.cursor or 1, 0 })
  if entry.kind == 'permission' then
    H.map_permission(buf, entry)
  else
    H.map_ask(buf, entry)
  end
  -- Filetype last, so FileType autocmds see the finished buffer, window and keys.
  vim.bo[buf].filetype = 'agent-prompt'
  H.watch(win, buf)
end

--- Closes the prompt window without treating it as the user hiding it.
function H.close_win()
  vim.api.nvim_clear_autocmds({ group = H.state.augroup, event = { 'WinClosed', 'VimResized', 'BufWipeout' } })
  local win = H.state.win
  H.state.win, H.state.buf, H.state.view = nil, nil, nil
  if win and vim.api.nvim_win_is_valid(win) then pcall(vim.api.nvim_win_close, win, true) end
end

--- Losing the window (:q, <C-w>c, :only) or its buffer (:edit in the float, :bwipeout) hides the
--- prompt: it is not an answer.
function H.watch(win, buf)
  local function lost()
    if H.state.win ~= win then return end
    H.state.hidden = true
    H.state.win, H.state.buf, H.state.view = nil, nil, nil
    vim.api.nvim_clear_autocmds({ group = H.state.augroup, event = { 'WinClosed', 'VimResized', 'BufWipeout' } })
    -- Windows cannot change inside these autocmds; tidy up on the next tick.
    vim.schedule(function()
      if vim.api.nvim_win_is_valid(win) then pcall(vim.api.nvim_win_close, win, true) end
      H.restore_focus()
    end)
  end
  vim.api.nvim_create_autocmd('WinClosed', { group = H.state.augroup, pattern = tostring(win), once = true, callback = lost })
  vim.api.nvim_create_autocmd('BufWipeout', { group = H.state.augroup, buffer = buf, once = true, callback = lost })
  vim.api.nvim_create_autocmd('VimResized', {
    group = H.state.augroup,
    callback = function()
      if H.win_valid() and H.state.view then
        vim.api.nvim_win_set_config(H.state.win, H.layout(H.state.view))
        H.fit(H.state.win, H.state.view)
      end
    end,
  })
end

function H.remember_origin()
  if H.state.origin then return end
  local win = vim.api.nvim_get_current_win()
  local cursor = vim.api.nvim_win_get_cursor(win)
  local line = vim.api.nvim_get_current_line()
  local insert = typing.inserting()
  H.state.origin = { win = win, insert = insert, cursor = cursor, eol = cursor[2] >= #line }
  if insert then vim.cmd('stopinsert') end
end

function H.restore_focus()
  -- Reopened before this ran: the origin now belongs to the new window.
  if H.win_valid() then return end
  local origin = H.state.origin
  H.state.origin = nil
  if not origin or not vim.api.nvim_win_is_valid(origin.win) then return end
  vim.api.nvim_set_current_win(origin.win)
  if origin.insert then
    pcall(vim.api.nvim_win_set_cursor, origin.win, origin.cursor)
    vim.cmd(origin.eol and 'startinsert!' or 'startinsert')
  end
end

--- Width and height available to a float, borders excluded, and the rows the editor has.
function H.room()
  local rows = math.max(1, vim.o.lines - vim.o.cmdheight)
  return math.max(1, math.min(120, vim.o.columns - 4)), math.max(1, math.min(math.floor(rows * 0.8), rows - 2)), rows
end

--- As wide as the longest line within limits; H.fit() then sets the height and the position.
function H.layout(view)
  local max_width = H.room()
  local longest = vim.fn.strdisplaywidth(view.title) + 4
  -- The hint line wraps instead of widening the window.
  for row, line in ipairs(view.lines) do
    if row ~= #view.lines then longest = math.max(longest, vim.fn.strdisplaywidth(line)) end
  end
  local width = math.min(max_width, math.max(math.min(60, max_width), longest))
  return {
    relative = 'editor',
    style = 'minimal',
    border = H.border(),
    width = width,
    height = 1,
    row = 0,
    col = 0,
    title = H.truncate(view.title, width),
    title_pos = 'center',
    zindex = 60,
  }
end

--- Sizes the window to its wrapped text, never taller than the editor, and places it near the
--- chat: centred over the transcript, at its end where the call is shown (centred in the editor
--- when the chat is not open). When the text does not fit, the keys also go in the footer so they
--- stay visible while the rest scrolls.
function H.fit(win, view)
  local _, max_height, rows = H.room()
  local width = vim.api.nvim_win_get_width(win)
  local text = vim.api.nvim_win_text_height(win, {}).all
  local height = math.max(1, math.min(max_height, text))
  local row = math.floor((rows - height - 2) / 2)
  local col = math.floor((vim.o.columns - width - 2) / 2)
  local chat = H.chat_area()
  if chat then
    row = chat.row + chat.height - height - 2
    col = chat.col + math.floor((chat.width - width - 2) / 2)
  end
  local config = {
    relative = 'editor',
    width = width,
    height = height,
    row = math.max(0, math.min(row, rows - height - 2)),
    col = math.max(0, math.min(col, vim.o.columns - width - 2)),
    footer = '',
  }
  if text > height then
    config.footer = H.truncate(view.footers[#view.footers], width)
    for _, footer in ipairs(view.footers) do
      if vim.fn.strdisplaywidth(footer) <= width then
        config.footer = footer
        break
      end
    end
    config.footer_pos = 'center'
  end
  vim.api.nvim_win_set_config(win, config)
end

--- The transcript window's place on the screen, when the chat is open in this tab.
---@return { row: integer, col: integer, width: integer, height: integer }|nil
function H.chat_area()
  local chat = package.loaded['agent.ui.chat']
  local win = chat and chat.transcript_win()
  if not win then return end
  local pos = vim.api.nvim_win_get_position(win)
  return { row = pos[1], col = pos[2], width = vim.api.nvim_win_get_width(win), height = vim.api.nvim_win_get_height(win) }
end

--- The user's 'winborder' (Neovim 0.11+) when set: a style name, or the eight characters of a
--- custom border, which nvim_open_win() takes as a list.
function H.border()
  local ok, winborder = pcall(function() return vim.o.winborder end)
  if not ok or type(winborder) ~= 'string' or winborder == '' or winborder == 'none' then return 'rounded' end
  if winborder:find(',', 1, true) then return vim.split(winborder, ',', { plain = true }) end
  return winborder
end

---@param text string
---@param width integer
function H.truncate(text, width)
  if vim.fn.strdisplaywidth(text) <= width then return text end
  if width <= 1 then return vim.fn.strcharpart(text, 0, width) end
  local out = text
  while vim.fn.strdisplaywidth(out) > width - 1 do
    out = vim.fn.strcharpart(out, 0, vim.fn.strchars(out) - 1)
  end
  return out .. '…'
end

function H.ensure_highlights()
  if H.state.highlighted then return end
  H.state.highlighted = true
  -- Links are `default`, so this never overrides a colorscheme or the user.
  require('agent.highlight').apply()
end

function H.mark(buf, mark)
  if mark.line_hl then
    vim.api.nvim_buf_set_extmark(buf, H.state.ns, mark.row, 0, { line_hl_group = mark.line_hl })
  else
    vim.api.nvim_buf_set_extmark(buf, H.state.ns, mark.row, mark.col, { end_col = mark.end_col, hl_group = mark.hl })
  end
end

-- Keys ---------------------------------------------------------------------------------------

function H.map(buf, keys, fn, desc)
  local answer = H.state.guard(fn)
  for _, lhs in ipairs(keys) do
    vim.keymap.set('n', lhs, answer, { buffer = buf, nowait = true, silent = true, desc = 'agent: ' .. desc })
  end
end

---@param entry agent.PromptEntry
function H.map_permission(buf, entry)
  -- No y/n: yy and n (search) are what a user reading the diff types.
  H.map(buf, { 'o' }, function() H.finish(entry, 'once') end, 'allow once')
  H.map(buf, { 'a' }, function() H.finish(entry, 'always') end, 'allow always: ' .. (entry.req.pattern or ''))
  H.map(buf, { 'd', 'q', '<Esc>' }, function() H.finish(entry, 'deny') end, 'deny')
  H.map(buf, { 'r' }, function()
    H.read_text(entry, { prompt = 'Reason for denying: ' }, function(reason) H.finish(entry, { deny = reason }) end)
  end, 'deny with a reason')
end

---@param entry agent.PromptEntry
function H.map_ask(buf, entry)
  local options = entry.req.options
  local function choose(index)
    if index == 'text' then
      H.read_text(entry, { prompt = 'Your answer: ' }, function(text) H.finish(entry, text) end)
    elseif options[index] then
      H.finish(entry, options[index])
    end
  end
  for i = 1, math.min(#options, 9) do
    H.map(buf, { tostring(i) }, function() choose(i) end, 'answer: ' .. options[i])
  end
  H.map(buf, { 'i', 'c' }, function() choose('text') end, 'type an answer')
  H.map(buf, { '<CR>' }, function()
    local row = vim.api.nvim_win_get_cursor(0)[1]
    if entry.rows[row] then choose(entry.rows[row]) end
  end, 'pick the answer under the cursor')
  H.map(buf, { 'q', '<Esc>' }, function() H.finish(entry, nil) end, 'dismiss the question (the model is told)')
  H.map(buf, { 'j', '<Down>' }, function() H.move(entry, 1) end, 'next answer')
  H.map(buf, { 'k', '<Up>' }, function() H.move(entry, -1) end, 'previous answer')
end

--- Moves the cursor between answer rows only.
function H.move(entry, step)
  local rows = vim.tbl_keys(entry.rows)
  table.sort(rows)
  local current = vim.api.nvim_win_get_cursor(0)[1]
  local target
  for _, row in ipairs(rows) do
    if step > 0 and row > current and not target then target = row end
    if step < 0 and row < current then target = row end
  end
  if target then
    vim.api.nvim_win_set_cursor(0, { target, 0 })
  else
    -- Past the answers: the question above and the hints below scroll into view as usual.
    vim.cmd('normal! ' .. (step > 0 and 'j' or 'k'))
  end
end

--- Reads a line of text with vim.ui.input (synchronous or not); empty or cancelled input goes
--- back to the prompt. Ignores the result when the prompt was cancelled or answered meanwhile.
function H.read_text(entry, opts, on_text)
  vim.ui.input(opts, function(text)
    if entry.done then return end
    if text and vim.trim(text) ~= '' then
      on_text(vim.trim(text))
    elseif H.state.queue[1] == entry then
      if H.win_valid() then
        pcall(vim.api.nvim_set_current_win, H.state.win)
      else
        M.reopen()
      end
    end
  end)
end

return M
