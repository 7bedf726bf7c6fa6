--- Completion of attachment tokens in the chat input: the built-in omnifunc, an nvim-cmp source
--- and the shared logic the blink.cmp source uses. Nothing here waits for the file list.
local M = {}
local H = {}

--- The words after `#`, in the order the menu shows them.
M.hash_words = { 'buffer', 'selection', 'diagnostics', 'diagnostics:all', 'quickfix' }
M.hash_info = {
  buffer = 'the buffer you came from, with unsaved text',
  selection = 'the last visual selection in that buffer',
  diagnostics = 'diagnostics of that buffer',
  ['diagnostics:all'] = 'diagnostics of all buffers',
  quickfix = 'the quickfix list',
}
--- At most this many files are offered at once; typing more of the name narrows the list.
M.max_items = 200

-- LSP CompletionItemKind values, without requiring vim.lsp.
H.kind_file, H.kind_keyword = 17, 14

---@class agent.context.CompletionContext
---@field trigger '@'|'#'
---@field col integer 0-based byte column just after the trigger (where the completed word starts)
---@field prefix string what was typed after the trigger

--- The attachment token that ends at the cursor, if any.
---@param before string the line up to the cursor
---@return agent.context.CompletionContext|nil
function M.context(before)
  local start, trigger, prefix = before:match('()([@#])([^%s@#`]*)$')
  if not start then return nil end
  if start > 1 and not before:sub(start - 1, start - 1):match('[%s%(%[]') then return nil end
  return { trigger = trigger, col = start, prefix = prefix }
end

---@class agent.context.Candidate
---@field word string inserted after the trigger
---@field kind 'file'|'buffer'|'token'
---@field info? string

--- Candidates for a completion context. When there is no file list yet, `pending` is true and
--- `on_ready` runs later (scheduled) once it has been computed.
---@param c agent.context.CompletionContext
---@param opts? { cwd?: string, limit?: integer, on_ready?: fun() }
---@return agent.context.Candidate[] candidates, boolean pending, boolean incomplete
function M.candidates(c, opts)
  opts = opts or {}
  local limit = opts.limit or M.max_items
  if c.trigger == '#' then return H.hash_candidates(c.prefix, opts.cwd), false, false end
  local lister = require('agent.context.files')
  local files = lister.get(opts.cwd)
  if not files then
    -- Only a first list is waited for: a refresh of a stale one must not pop a menu up later.
    if opts.on_ready then lister.get(opts.cwd, function() opts.on_ready() end) end
    return {}, true, false
  end
  local prefix = c.prefix:gsub(':[%d-]*$', '')
  local matched
  if prefix == '' then
    matched = vim.list_slice(files, 1, limit)
  else
    matched = vim.fn.matchfuzzy(files, prefix, { limit = limit })
  end
  local out = {}
  for _, f in ipairs(matched) do
    -- A token ends at whitespace: such a name could not be attached.
    if not f:find('%s') then table.insert(out, { word = f, kind = 'file' }) end
  end
  return out, false, #matched >= limit
end

function H.hash_candidates(prefix, cwd)
  cwd = vim.fs.normalize(cwd or vim.fn.getcwd())
  local all = {}
  for _, w in ipairs(M.hash_words) do
    table.insert(all, { word = w, kind = 'token', info = M.hash_info[w] })
  end
  local resolve = require('agent.context.resolve')
  for _, buf in ipairs(resolve.listed_buffers()) do
    local name = vim.fs.normalize(vim.api.nvim_buf_get_name(buf))
    if vim.startswith(name, cwd .. '/') then name = name:sub(#cwd + 2) end
    if not name:find('%s') then table.insert(all, { word = 'buffer:' .. name, kind = 'buffer', info = 'buffer ' .. buf }) end
  end
  if prefix == '' then return all end
  local out = {}
  for _, cand in ipairs(all) do
    if vim.startswith(cand.word, prefix) then table.insert(out, cand) end
  end
  if #out > 0 then return out end
  return vim.fn.matchfuzzy(all, prefix, { key = 'word' })
end

-- Omnifunc -----------------------------------------------------------------------------------

H.omni = nil ---@type agent.context.CompletionContext|nil

--- `'omnifunc'` of the input buffer: `<C-x><C-o>` after `@` lists project files, after `#` the
--- other tokens. While the file list is first computed it returns nothing and shows the menu
--- itself once the list arrives (if the cursor has not moved on).
---@param findstart integer
---@param base string
---@return integer|table
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local col = vim.api.nvim_win_get_cursor(0)[2]
    H.omni = M.context(vim.api.nvim_get_current_line():sub(1, col))
    -- -3: cancel silently, no "Pattern not found".
    return H.omni and H.omni.col or -3
  end
  local c = H.omni
  if not c then return {} end
  local ctx = { trigger = c.trigger, col = c.col, prefix = base }
  local buf, row = vim.api.nvim_get_current_buf(), vim.api.nvim_win_get_cursor(0)[1]
  local candidates = M.candidates(ctx, { on_ready = function() H.reshow(buf, row, ctx) end })
  return H.complete_items(candidates)
end

function H.complete_items(candidates)
  local items = {}
  for i, cand in ipairs(candidates) do
    items[i] = {
      word = cand.word,
      menu = cand.kind == 'file' and '[file]' or (cand.kind == 'buffer' and '[buffer]' or '[agent]'),
      info = cand.info,
      icase = 1,
    }
  end
  return items
end

--- The list arrived after `<C-x><C-o>` returned nothing: show it, if the user still waits.
function H.reshow(buf, row, ctx)
  if vim.api.nvim_get_current_buf() ~= buf or vim.fn.mode() ~= 'i' or vim.fn.pumvisible() == 1 then return end
  local cursor = vim.api.nvim_win_get_cursor(0)
  if cursor[1] ~= row then return end
  local now = M.context(vim.api.nvim_get_current_line():sub(1, cursor[2]))
  if not now or now.col ~= ctx.col or now.trigger ~= ctx.trigger then return end
  local candidates = M.candidates(now)
  if #candidates > 0 then vim.fn.complete(now.col + 1, H.complete_items(candidates)) end
end

-- nvim-cmp -----------------------------------------------------------------------------------

--- A source object for nvim-cmp (`require('cmp').register_source('agent', source)`).
---@return table
function M.cmp_source()
  local source = {}
  function source.is_available() return vim.bo.filetype == 'agent-input' end
  function source.get_debug_name() return 'agent' end
  function source.get_trigger_characters() return { '@', '#' } end
  -- Paths hold '/', '.', '-' and ':': the whole token after the trigger is the keyword.
  function source.get_keyword_pattern() return [[\%([^[:space:]@#`]*\)]] end
  function source.complete(_, params, callback)
    local before = params.context.cursor_before_line
    local c = M.context(before)
    if not c then return callback({ items = {}, isIncomplete = false }) end
    M.collect(c, { cwd = vim.fn.getcwd() }, function(candidates, incomplete)
      local items = {}
      for i, cand in ipairs(candidates) do
        items[i] = {
          label = cand.word,
          filterText = cand.word,
          insertText = cand.word,
          kind = cand.kind == 'file' and H.kind_file or H.kind_keyword,
          documentation = cand.info,
        }
      end
      callback({ items = items, isIncomplete = incomplete })
    end)
  end
  return source
end

--- Candidates through a callback: at once when they are known, else when the file list is ready.
---@param c agent.context.CompletionContext
---@param opts { cwd?: string, limit?: integer }
---@param callback fun(candidates: agent.context.Candidate[], incomplete: boolean)
---@return fun() cancel
function M.collect(c, opts, callback)
  local cancelled = false
  local candidates, pending, incomplete = M.candidates(c, {
    cwd = opts.cwd,
    limit = opts.limit,
    on_ready = function()
      if cancelled then return end
      local later, _, more = M.candidates(c, { cwd = opts.cwd, limit = opts.limit })
      callback(later, more)
    end,
  })
  if not pending then callback(candidates, incomplete) end
  return function() cancelled = true end
end

-- Registration -------------------------------------------------------------------------------

H.registered = { cmp = false, blink = false }

--- Offers the sources to nvim-cmp and blink.cmp when they are loaded (never loads them): now,
--- and again on the buffer's first InsertEnter, when lazily loaded completion plugins appear.
---@param buf integer
function M.register_plugins(buf)
  H.register(buf)
  vim.api.nvim_create_autocmd('InsertEnter', {
    group = vim.api.nvim_create_augroup('agent.context.register.' .. buf, { clear = true }),
    buffer = buf,
    once = true,
    desc = 'agent: offer @ and # completion to nvim-cmp / blink.cmp',
    -- Scheduled: lazy.nvim loads completion plugins in its own InsertEnter handler.
    callback = function() vim.schedule(function() H.register(buf) end) end,
  })
end

function H.register(buf)
  local cmp = package.loaded['cmp']
  if cmp and type(cmp.register_source) == 'function' then
    if not H.registered.cmp then
      H.registered.cmp = pcall(cmp.register_source, 'agent', M.cmp_source())
    end
    if H.registered.cmp and vim.api.nvim_buf_is_valid(buf) and not vim.b[buf].agent_cmp then
      vim.b[buf].agent_cmp = true
      pcall(vim.api.nvim_buf_call, buf, function()
        local current = (cmp.get_config and cmp.get_config().sources) or {}
        local sources = { { name = 'agent' } }
        for _, s in ipairs(current) do
          if s.name ~= 'agent' then table.insert(sources, s) end
        end
        cmp.setup.buffer({ sources = sources })
      end)
    end
  end
  local blink = package.loaded['blink.cmp']
  if blink and not H.registered.blink then
    local add = blink.add_source_provider or blink.add_provider
    if type(add) == 'function' then
      pcall(add, 'agent', { name = 'agent', module = 'agent.context.blink' })
      if type(blink.add_filetype_source) == 'function' then pcall(blink.add_filetype_source, 'agent-input', 'agent') end
      H.registered.blink = true
    end
  end
end

return M
