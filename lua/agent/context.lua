--- Context the user attaches in the chat input:
---   `@path`, `@path:10-20`, `@path:7`   a project file (unsaved buffer text when it is modified)
---   `#buffer`, `#buffer:<name>`         the buffer the chat was opened from, or a listed buffer
---   `#selection`                        the last visual selection in that buffer
---   `#diagnostics`, `#diagnostics:all`  diagnostics of that buffer, or of all buffers
---   `#quickfix`                         the quickfix list
--- A token starts the text or follows whitespace (or `(`, `[`), so `me@example.com` and `#` in
--- code spans and fences are left alone. Tokens stay in the prompt as typed; `expand` returns the
--- resolved text separately, for the model, and a one-line summary per attachment for the chat.
local M = {}
local H = {}

--- Default cap of one attachment; a longer file is cut at a line boundary and says so.
M.max_bytes = 256 * 1024
--- Default cap of all attachments of one prompt together.
M.max_total_bytes = 1024 * 1024

---@class agent.context.Token
---@field kind 'file'|'buffer'|'selection'|'diagnostics'|'quickfix'
---@field raw string the token as typed, trailing punctuation removed (`@src/a.ts:1-9`)
---@field path? string for `file`: the path without the range
---@field first? integer for `file`: first line of the range
---@field last? integer for `file`: last line of the range
---@field arg? string the part after `:` of a `#` token (`all`, a buffer name)

---@class agent.context.ExpandOpts
---@field origin_buf? integer the buffer the user was in before the chat (`#buffer`, `#selection`, `#diagnostics`)
---@field cwd? string the project (default: the current directory)
---@field max_bytes? integer cap per attachment (default `M.max_bytes`)
---@field max_total_bytes? integer cap of all attachments (default `M.max_total_bytes`)

---@class agent.context.Attachment
---@field label string the token, e.g. `@src/a.ts:10-20`
---@field detail string e.g. `lines 10-20, 1.2 KiB`

---@class agent.context.Expanded
---@field text string the prompt, unchanged: tokens stay as typed
---@field context string[] lines for the model (`send(text, { context = context })`); empty when nothing resolved
---@field attachments agent.context.Attachment[] one per resolved token, for the transcript
---@field errors string[] one sentence per token that could not be resolved, e.g. `@nope.ts: no such file in the project`

-- Public API ---------------------------------------------------------------------------------

--- Lines of a buffer as context for a question about them (`:'<,'>AgentChat`): the text for the
--- model and the attachment line for the transcript.
---@param buf integer
---@param first integer 1-based
---@param last integer 1-based, inclusive
---@return { context: string[], attachment: agent.context.Attachment }
function M.lines(buf, first, last)
  local cwd = vim.fs.normalize(vim.fn.getcwd())
  local block = require('agent.context.resolve').line_range(buf, first, last, { cwd = cwd, root = cwd, max_bytes = M.max_bytes })
  return { context = block.lines, attachment = { label = block.label, detail = block.detail } }
end

--- Finds the attachment tokens in a typed prompt and resolves them. Never throws for a token:
--- what cannot be attached is reported in `errors` and the rest is still sent.
---@param text string
---@param opts? agent.context.ExpandOpts
---@return agent.context.Expanded
function M.expand(text, opts)
  vim.validate({ text = { text, 'string' }, opts = { opts, 'table', true } })
  opts = opts or {}
  local resolve = require('agent.context.resolve')
  local cwd = vim.fs.normalize(opts.cwd or vim.fn.getcwd())
  local ctx = {
    cwd = cwd,
    root = vim.uv.fs_realpath(cwd) or cwd,
    origin_buf = H.origin_buf(opts.origin_buf),
    max_bytes = opts.max_bytes or M.max_bytes,
  }
  local budget = opts.max_total_bytes or M.max_total_bytes
  local result = { text = text, context = {}, attachments = {}, errors = {} }
  local seen = {}
  for _, tok in ipairs(M.tokens(text)) do
    if not seen[tok.raw] then
      seen[tok.raw] = true
      local ok, block, err = pcall(resolve[tok.kind], tok, ctx)
      if not ok then
        block, err = nil, 'could not be read (' .. tostring(block) .. ')'
      end
      if block then
        local size = 0
        for _, l in ipairs(block.lines) do
          size = size + #l + 1
        end
        if size > budget then
          block, err = nil, string.format('not attached: the attachments of this message reach %s', resolve.size(opts.max_total_bytes or M.max_total_bytes))
        else
          budget = budget - size
        end
      end
      if block then
        if #result.context > 0 then table.insert(result.context, '') end
        vim.list_extend(result.context, block.lines)
        table.insert(result.attachments, { label = block.label, detail = block.detail })
      else
        table.insert(result.errors, tok.raw .. ': ' .. err)
      end
    end
  end
  return result
end

--- The attachment tokens of a text, in order, skipping fenced code blocks and code spans.
---@param text string
---@return agent.context.Token[]
function M.tokens(text)
  local out = {}
  local fence ---@type string|nil the opening fence while inside a fenced block
  for line in (text .. '\n'):gmatch('(.-)\r?\n') do
    local marker = line:match('^%s*(```+)') or line:match('^%s*(~~~+)')
    if fence then
      if marker and marker:sub(1, 1) == fence:sub(1, 1) and #marker >= #fence and vim.trim(line) == marker then fence = nil end
    elseif marker then
      fence = marker
    else
      H.line_tokens(H.blank_code_spans(line), out)
    end
  end
  return out
end

--- One line of the transcript per attachment: `@src/a.ts (lines 1-120, 3.2 KiB)`.
---@param attachment agent.context.Attachment
---@return string
function M.format_attachment(attachment)
  return string.format('%s (%s)', attachment.label, attachment.detail)
end

--- Sets up completion of `@` and `#` tokens in the chat input buffer: `'omnifunc'`
--- (`<C-x><C-o>`), the nvim-cmp and blink.cmp sources when those plugins are loaded, and starts
--- computing the project's file list so the first completion finds it ready.
---@param buf integer
function M.attach(buf)
  vim.validate({ buf = { buf, 'number' } })
  vim.bo[buf].omnifunc = "v:lua.require'agent.context'.omnifunc"
  require('agent.context.files').get(vim.fn.getcwd())
  require('agent.context.complete').register_plugins(buf)
end

--- The `'omnifunc'` set by `attach` (see `:h complete-functions`).
---@param findstart integer
---@param base string
---@return integer|table
function M.omnifunc(findstart, base) return require('agent.context.complete').omnifunc(findstart, base) end

--- A completion source for nvim-cmp, available in `agent-input` buffers. `attach` registers it
--- as `agent` when nvim-cmp is loaded; `require('cmp').register_source('agent', ...)` works too.
---@return table source with `complete`, `get_trigger_characters`, `is_available`, `get_keyword_pattern`
function M.cmp_source() return require('agent.context.complete').cmp_source() end

-- Helpers ------------------------------------------------------------------------------------

--- Replaces inline code spans (`` `x` ``, ``` ``x`` ```) by spaces, so tokens inside are not seen.
function H.blank_code_spans(line)
  if not line:find('`', 1, true) then return line end
  local out, i = {}, 1
  while i <= #line do
    local s, e = line:find('`+', i)
    if not s then
      table.insert(out, line:sub(i))
      break
    end
    table.insert(out, line:sub(i, s - 1))
    local run = line:sub(s, e)
    -- The span closes at the next run of exactly the same length.
    local close_s, close_e = e + 1, nil
    while true do
      local cs, ce = line:find('`+', close_s)
      if not cs then break end
      if ce - cs + 1 == #run then
        close_e = ce
        break
      end
      close_s = ce + 1
    end
    if close_e then
      table.insert(out, string.rep(' ', close_e - s + 1))
      i = close_e + 1
    else
      table.insert(out, run)
      i = e + 1
    end
  end
  return table.concat(out)
end

H.hash_kinds = { buffer = 'buffer', selection = 'selection', diagnostics = 'diagnostics', quickfix = 'quickfix' }

function H.line_tokens(line, out)
  for pos, trigger, body in line:gmatch('()([@#])(%S*)') do
    local prev = pos > 1 and line:sub(pos - 1, pos - 1) or ''
    if prev == '' or prev:match('[%s%(%[]') then
      -- Prose punctuation after a token is not part of it: "see @a.ts, then ...".
      body = body:gsub('[%.,;:!%?%)%]%}\'"]+$', '')
      local tok = body ~= '' and H.parse(trigger, body)
      if tok then table.insert(out, tok) end
    end
  end
end

function H.parse(trigger, body)
  if trigger == '@' then
    local path, first, last = body:match('^(.-):(%d+)%-(%d+)$')
    if not path then
      path, first = body:match('^(.-):(%d+)$')
      last = first
    end
    if not path or path == '' then
      path, first, last = body, nil, nil
    end
    first, last = tonumber(first), tonumber(last)
    if first and last and first > last then
      first, last = last, first
    end
    if first then first, last = math.max(first, 1), math.max(last, 1) end
    return { kind = 'file', raw = '@' .. body, path = path, first = first, last = last }
  end
  local name, arg = body:match('^(%a+):(.*)$')
  name = name or body
  local kind = H.hash_kinds[name]
  -- Other words after `#` (#123, #include, a heading) are not tokens.
  if not kind then return nil end
  return { kind = kind, raw = '#' .. body, arg = arg }
end

--- The buffer `#buffer` and friends refer to: the one given, else the current or previous
--- window's, else the most recently used listed buffer holding the user's text.
function H.origin_buf(given)
  local resolve = require('agent.context.resolve')
  if given and given ~= 0 and vim.api.nvim_buf_is_valid(given) then return given end
  local prev = vim.fn.winnr('#')
  for _, win in ipairs({ 0, prev > 0 and vim.fn.win_getid(prev) or nil }) do
    local buf = vim.api.nvim_win_get_buf(win)
    if resolve.is_user_buffer(buf) then return buf end
  end
  local infos = vim.fn.getbufinfo({ buflisted = 1 })
  table.sort(infos, function(a, b) return a.lastused > b.lastused end)
  for _, info in ipairs(infos) do
    if resolve.is_user_buffer(info.bufnr) then return info.bufnr end
  end
end

return M
