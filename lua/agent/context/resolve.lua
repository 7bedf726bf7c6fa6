--- Turns one attachment token into the text the model reads. Each resolver returns a block
--- (`label`, `detail` for the transcript, `lines` for the model) or `nil, reason`.
local M = {}
local H = {}

---@class agent.context.Block
---@field label string the token as the transcript shows it, e.g. `@src/a.ts:10-20`
---@field detail string e.g. `lines 10-20, 1.2 KiB`
---@field lines string[] what the model reads

---@class agent.context.Ctx
---@field cwd string normalized current directory (the project)
---@field root string the project with links resolved
---@field origin_buf integer|nil the buffer the user was in before the chat
---@field max_bytes integer cap per attachment

--- Files larger than this are not read even for a line range.
M.max_read_bytes = 64 * 1024 * 1024
--- Diagnostics and quickfix entries past this count are summarized.
M.max_items = 300

-- Files --------------------------------------------------------------------------------------

---@param tok agent.context.Token
---@param ctx agent.context.Ctx
---@return agent.context.Block|nil, string|nil
function M.file(tok, ctx)
  local path = tok.path --[[@as string]]
  if path:sub(1, 2) == '~/' then path = vim.uv.os_homedir() .. path:sub(2) end
  local abs = vim.fs.normalize(path:sub(1, 1) == '/' and path or (ctx.cwd .. '/' .. path))
  if not H.inside(abs, ctx.cwd) and not H.inside(abs, ctx.root) then
    return nil, 'outside the project; only files under ' .. vim.fn.fnamemodify(ctx.cwd, ':~') .. ' can be attached'
  end
  local rel = H.relative(abs, ctx.cwd)
  local real = vim.uv.fs_realpath(abs)
  local buf = H.loaded_buf(abs, real)
  if real and not H.inside(real, ctx.root) then return nil, 'links outside the project; not attached' end
  local stat = real and vim.uv.fs_stat(real)
  if stat and stat.type == 'directory' then return nil, 'is a directory; attach the files in it' end

  local lines, info
  if buf and vim.bo[buf].modified then
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    info = { unsaved = true }
  elseif not stat then
    return nil, 'no such file in the project'
  else
    lines, info = H.read(real, stat.size, tok.first ~= nil, ctx.max_bytes)
    if not lines then return nil, info end
  end

  local total = #lines
  local first, last = 1, total
  if tok.first then
    first, last = tok.first, math.min(tok.last, total)
    if first > total then
      return nil, string.format('the file has only %d line%s', total, total == 1 and '' or 's')
    end
  end
  local slice = (first == 1 and last == total) and lines or vim.list_slice(lines, first, last)
  local kept, bytes, cut = H.cap(slice, ctx.max_bytes)
  last = first + #kept - 1
  cut = cut or info.cut

  local ft = H.filetype(rel, buf, kept)
  local facts = {}
  if total == 0 then
    table.insert(facts, 'empty')
  elseif tok.first or cut then
    table.insert(facts, string.format('%s of %s', H.lines_word(first, last), info.cut and 'a longer file' or tostring(total)))
  else
    table.insert(facts, string.format('%d line%s', total, total == 1 and '' or 's'))
  end
  if info.unsaved then table.insert(facts, 'unsaved changes in the editor') end
  local header = string.format('File: %s (%s)', rel, table.concat(facts, ', '))
  local out = H.fenced(header, ft, kept)
  if cut then
    local whole = (tok.first or not info.size) and H.bytes(slice) or info.size
    table.insert(out, string.format('(Cut at %s of %s; read the rest with read_file.)', H.size(bytes), H.size(whole)))
  end

  local detail = {}
  if total == 0 then
    table.insert(detail, 'empty')
  else
    table.insert(detail, H.lines_word(first, last))
  end
  table.insert(detail, H.size(bytes))
  if cut then table.insert(detail, 'cut at ' .. H.size(ctx.max_bytes)) end
  if info.unsaved then table.insert(detail, 'unsaved') end
  return { label = tok.raw, detail = table.concat(detail, ', '), lines = out }
end

--- Reads a file as lines: all of it for a line range (up to `M.max_read_bytes`), else at most
--- `max_bytes` (the caller cuts at a line boundary). Refuses binary files.
---@return string[]|nil lines, table|string info_or_error
function H.read(path, size, whole, max_bytes)
  if whole and size > M.max_read_bytes then return nil, 'too large to read (' .. H.size(size) .. ')' end
  local want = whole and size or math.min(size, max_bytes + 1)
  local fd = vim.uv.fs_open(path, 'r', 438)
  if not fd then return nil, 'cannot be read' end
  local data = vim.uv.fs_read(fd, want, 0) or ''
  vim.uv.fs_close(fd)
  -- Like git: a NUL byte early in the file means binary.
  if data:sub(1, 8000):find('\0', 1, true) then return nil, 'is a binary file; not attached' end
  local cut = #data < size
  if cut then
    -- Drop the partial last line of a capped read.
    local nl = data:match('.*()\n')
    data = nl and data:sub(1, nl - 1) or data
  elseif data:sub(-1) == '\n' then
    data = data:sub(1, -2)
  end
  local lines = data == '' and {} or vim.split(data, '\n', { plain = true })
  for i, l in ipairs(lines) do
    if l:sub(-1) == '\r' then lines[i] = l:sub(1, -2) end
  end
  return lines, { cut = cut, size = size }
end

-- Buffers ------------------------------------------------------------------------------------

---@param tok agent.context.Token
---@param ctx agent.context.Ctx
---@return agent.context.Block|nil, string|nil
function M.buffer(tok, ctx)
  local buf, err
  if tok.arg and tok.arg ~= '' then
    buf, err = H.find_buffer(tok.arg, ctx.cwd)
  else
    buf = ctx.origin_buf
    if not buf then err = 'no buffer to attach (the chat was not opened from a file buffer)' end
  end
  if not buf then return nil, err end
  local name = H.buf_label(buf, ctx.cwd)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local kept, bytes, cut = H.cap(lines, ctx.max_bytes)
  local unsaved = vim.bo[buf].modified
  local facts = { string.format('%d line%s', #lines, #lines == 1 and '' or 's') }
  if cut then facts[1] = string.format('lines 1-%d of %d', #kept, #lines) end
  if unsaved then table.insert(facts, 'unsaved changes in the editor') end
  local out = H.fenced(string.format('Buffer: %s (%s)', name, table.concat(facts, ', ')), H.filetype(name, buf, kept), kept)
  if cut then table.insert(out, string.format('(Cut at %s of %s.)', H.size(bytes), H.size(H.bytes(lines)))) end
  local detail = { name, string.format('lines 1-%d', #kept), H.size(bytes) }
  if cut then table.insert(detail, 'cut at ' .. H.size(ctx.max_bytes)) end
  if unsaved then table.insert(detail, 'unsaved') end
  return { label = tok.raw, detail = table.concat(detail, ', '), lines = out }
end

--- Finds a listed buffer by a fragment of its name: the exact relative name wins, then the file
--- name, then any part of the path; a tie is an error that names the candidates.
function H.find_buffer(fragment, cwd)
  local levels = { {}, {}, {} }
  for _, buf in ipairs(M.listed_buffers()) do
    local rel = H.buf_label(buf, cwd)
    local full = vim.api.nvim_buf_get_name(buf)
    if rel == fragment or full == fragment then
      table.insert(levels[1], buf)
    elseif vim.fs.basename(rel) == fragment or vim.endswith(rel, '/' .. fragment) then
      table.insert(levels[2], buf)
    elseif rel:find(fragment, 1, true) then
      table.insert(levels[3], buf)
    end
  end
  for _, found in ipairs(levels) do
    if #found == 1 then return found[1] end
    if #found > 1 then
      local names = {}
      for i = 1, math.min(#found, 5) do
        names[i] = H.buf_label(found[i], cwd)
      end
      return nil, string.format('matches several buffers (%s); give more of the name', table.concat(names, ', '))
    end
  end
  return nil, 'no open buffer matches'
end

--- Listed buffers with a name that the user could mean (not the chat's own buffers).
---@return integer[]
function M.listed_buffers()
  local out = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[buf].buflisted and vim.api.nvim_buf_is_loaded(buf) and M.is_user_buffer(buf) and vim.api.nvim_buf_get_name(buf) ~= '' then
      table.insert(out, buf)
    end
  end
  return out
end

--- A buffer holding the user's text: not a help, terminal, prompt or agent buffer.
---@param buf integer
---@return boolean
function M.is_user_buffer(buf)
  if not vim.api.nvim_buf_is_valid(buf) then return false end
  local bt, ft = vim.bo[buf].buftype, vim.bo[buf].filetype
  return (bt == '' or bt == 'acwrite') and not vim.startswith(ft, 'agent-')
    and not vim.startswith(vim.api.nvim_buf_get_name(buf), 'agent://')
end

---@param buf integer
---@param cwd string
---@return string
function H.buf_label(buf, cwd)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' then return '[No Name ' .. buf .. ']' end
  return H.relative(vim.fs.normalize(name), cwd)
end

-- Selection ----------------------------------------------------------------------------------

---@param tok agent.context.Token
---@param ctx agent.context.Ctx
---@return agent.context.Block|nil, string|nil
function M.selection(tok, ctx)
  local buf = ctx.origin_buf
  if not buf then return nil, 'no buffer to take the selection from' end
  local s = vim.api.nvim_buf_get_mark(buf, '<')
  local e = vim.api.nvim_buf_get_mark(buf, '>')
  local count = vim.api.nvim_buf_line_count(buf)
  if s[1] == 0 or e[1] == 0 or s[1] > count then return nil, 'no visual selection in ' .. H.buf_label(buf, ctx.cwd) end
  if e[1] < s[1] or (e[1] == s[1] and e[2] < s[2]) then
    s, e = e, s
  end
  e[1] = math.min(e[1], count)
  local name = H.buf_label(buf, ctx.cwd)
  local lines, where
  if vim.fn.visualmode() == 'v' then
    local last = vim.api.nvim_buf_get_lines(buf, e[1] - 1, e[1], false)[1] or ''
    -- The mark is on the first byte of the last character: include all of its bytes.
    local end_col = math.min(#last, e[2] + 1 + (e[2] < #last and vim.str_utf_end(last, e[2] + 1) or 0))
    local start_line = vim.api.nvim_buf_get_lines(buf, s[1] - 1, s[1], false)[1] or ''
    lines = vim.api.nvim_buf_get_text(buf, s[1] - 1, math.min(s[2], #start_line), e[1] - 1, end_col, {})
    where = s[1] == e[1] and string.format('line %d', s[1]) or string.format('lines %d-%d', s[1], e[1])
  else
    lines = vim.api.nvim_buf_get_lines(buf, s[1] - 1, e[1], false)
    where = string.format('lines %d-%d', s[1], e[1])
  end
  return H.selected(buf, name, where, lines, ctx, tok.raw)
end

--- Lines `first` to `last` of a buffer (1-based), as a Visual-mode question sends them.
---@param buf integer
---@param first integer
---@param last integer
---@param ctx agent.context.Ctx
---@return agent.context.Block
function M.line_range(buf, first, last, ctx)
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, last, false)
  local where = first == last and string.format('line %d', first) or string.format('lines %d-%d', first, last)
  return H.selected(buf, H.buf_label(buf, ctx.cwd), where, lines, ctx, 'selection')
end

---@return agent.context.Block
function H.selected(buf, name, where, lines, ctx, label)
  local kept, bytes, cut = H.cap(lines, ctx.max_bytes)
  local header = string.format('Selected %s of %s%s:', where, name, vim.bo[buf].modified and ' (unsaved changes in the editor)' or '')
  local out = H.fenced(header, H.filetype(name, buf, kept), kept)
  if cut then table.insert(out, string.format('(Cut at %s.)', H.size(bytes))) end
  return { label = label, detail = string.format('%s %s, %s', name, where, H.size(bytes)), lines = out }
end

-- Diagnostics --------------------------------------------------------------------------------

H.severity_names = { 'error', 'warning', 'info', 'hint' }

---@param tok agent.context.Token
---@param ctx agent.context.Ctx
---@return agent.context.Block|nil, string|nil
function M.diagnostics(tok, ctx)
  local all = tok.arg == 'all'
  if tok.arg and tok.arg ~= '' and not all then return nil, 'use #diagnostics (this buffer) or #diagnostics:all' end
  if not all and not ctx.origin_buf then return nil, 'no buffer to take diagnostics from; use #diagnostics:all' end
  local list = vim.diagnostic.get(not all and ctx.origin_buf or nil)
  table.sort(list, function(a, b)
    if a.bufnr ~= b.bufnr then return H.buf_label(a.bufnr, ctx.cwd) < H.buf_label(b.bufnr, ctx.cwd) end
    if a.lnum ~= b.lnum then return a.lnum < b.lnum end
    if a.col ~= b.col then return a.col < b.col end
    return (a.severity or 1) < (b.severity or 1)
  end)
  local scope = all and 'all buffers' or H.buf_label(ctx.origin_buf, ctx.cwd)
  local counts = {}
  for _, d in ipairs(list) do
    counts[d.severity or 1] = (counts[d.severity or 1] or 0) + 1
  end
  local summary = {}
  for sev, word in ipairs(H.severity_names) do
    local n = counts[sev]
    if n then table.insert(summary, string.format('%d %s%s', n, word, n == 1 and '' or 's')) end
  end
  local total = #list
  local summary_text = total == 0 and 'none' or table.concat(summary, ', ')
  if total == 0 then
    return { label = tok.raw, detail = scope .. ', none', lines = { string.format('Diagnostics for %s: none.', scope) } }
  end
  local body = {}
  for i = 1, math.min(total, M.max_items) do
    local d = list[i]
    local name = H.buf_label(d.bufnr, ctx.cwd)
    local source = vim.trim(table.concat({ d.source or '', d.code and tostring(d.code) or '' }, ' '))
    local message = (d.message or ''):gsub('\n', ' ')
    table.insert(body, string.format('%s:%d:%d: %s: %s%s', name, d.lnum + 1, d.col + 1,
      H.severity_names[d.severity or 1] or 'error', message, source ~= '' and (' [' .. source .. ']') or ''))
    local code = vim.api.nvim_buf_is_loaded(d.bufnr) and vim.api.nvim_buf_get_lines(d.bufnr, d.lnum, d.lnum + 1, false)[1]
    if code and vim.trim(code) ~= '' then table.insert(body, string.format('  %d | %s', d.lnum + 1, code)) end
  end
  if total > M.max_items then table.insert(body, string.format('... and %d more', total - M.max_items)) end
  local out = H.fenced(string.format('Diagnostics for %s (%s):', scope, summary_text), 'text', body)
  return { label = tok.raw, detail = scope .. ', ' .. summary_text, lines = out }
end

-- Quickfix -----------------------------------------------------------------------------------

---@param tok agent.context.Token
---@param ctx agent.context.Ctx
---@return agent.context.Block|nil, string|nil
function M.quickfix(tok, ctx)
  if tok.arg and tok.arg ~= '' then return nil, 'takes no argument; use #quickfix' end
  local qf = vim.fn.getqflist({ items = 1, title = 1 })
  local items = qf.items or {}
  if #items == 0 then return nil, 'the quickfix list is empty' end
  local body = {}
  for i = 1, math.min(#items, M.max_items) do
    local it = items[i]
    local text = (it.text or ''):gsub('\n', ' ')
    local kind = (it.type and it.type ~= '') and (it.type .. ': ') or ''
    if it.bufnr and it.bufnr > 0 then
      local name = H.buf_label(it.bufnr, ctx.cwd)
      if it.lnum and it.lnum > 0 then
        name = name .. ':' .. it.lnum .. (it.col and it.col > 0 and (':' .. it.col) or '')
      end
      table.insert(body, string.format('%s: %s%s', name, kind, text))
    else
      table.insert(body, kind .. text)
    end
  end
  if #items > M.max_items then table.insert(body, string.format('... and %d more', #items - M.max_items)) end
  local title = (qf.title and qf.title ~= '') and string.format(' "%s"', qf.title) or ''
  local count = string.format('%d entr%s', #items, #items == 1 and 'y' or 'ies')
  local out = H.fenced(string.format('Quickfix list%s (%s):', title, count), 'text', body)
  return { label = tok.raw, detail = count, lines = out }
end

-- Helpers ------------------------------------------------------------------------------------

function H.inside(path, root)
  if root == '/' then return vim.startswith(path, '/') end
  return path == root or vim.startswith(path, root .. '/')
end

function H.relative(abs, cwd)
  if abs == cwd then return '.' end
  if vim.startswith(abs, cwd .. '/') then return abs:sub(#cwd + 2) end
  return vim.fn.fnamemodify(abs, ':~')
end

--- A loaded buffer showing this file, matched by name or, through links, by real path.
function H.loaded_buf(abs, real)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= '' then
        name = vim.fs.normalize(name)
        if name == abs or (real and (name == real or vim.uv.fs_realpath(name) == real)) then return buf end
      end
    end
  end
end

--- Keeps whole lines up to `max` bytes (counting newlines).
---@return string[] kept, integer bytes, boolean cut
function H.cap(lines, max)
  local bytes = 0
  for i, l in ipairs(lines) do
    local add = #l + (i > 1 and 1 or 0)
    if bytes + add > max then
      if i == 1 then return { l:sub(1, max) }, max, true end
      return vim.list_slice(lines, 1, i - 1), bytes, true
    end
    bytes = bytes + add
  end
  return lines, bytes, false
end

function H.lines_word(first, last)
  if first == last then return 'line ' .. first end
  return string.format('lines %d-%d', first, last)
end

function H.bytes(lines)
  local n = 0
  for _, l in ipairs(lines) do
    n = n + #l + 1
  end
  return math.max(0, n - 1)
end

---@param n number
---@return string
function M.size(n)
  if n < 1024 then return string.format('%d B', n) end
  if n < 1024 * 1024 then return string.format('%.1f KiB', n / 1024) end
  return string.format('%.1f MiB', n / (1024 * 1024))
end
H.size = M.size

--- The fence's info string: the buffer's filetype, else detection by name and content, else the
--- extension (0.10 cannot detect some types, e.g. TypeScript, without a buffer).
function H.filetype(name, buf, lines)
  if buf and vim.bo[buf].filetype ~= '' then return vim.bo[buf].filetype end
  local ok, ft = pcall(vim.filetype.match, { filename = name, contents = vim.list_slice(lines, 1, 20) })
  if ok and ft then return ft end
  return name:match('%.([%w_+-]+)$') or ''
end

--- A header line, then the text in a fence longer than any backtick run that starts a line in it.
function H.fenced(header, ft, lines)
  local longest = 2
  for _, l in ipairs(lines) do
    local run = l:match('^%s*(`+)')
    if run and #run > longest then longest = #run end
  end
  local fence = string.rep('`', longest + 1)
  local out = { header, fence .. ft }
  vim.list_extend(out, lines)
  table.insert(out, fence)
  return out
end

return M
