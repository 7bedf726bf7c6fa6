--- Keeps the transcript's Markdown parsing cheap while answers stream into it.
---
--- Treesitter's Markdown parser re-reads a whole document on every change: an incremental parse
--- costs as much as a fresh one (about 30 ms for a 20,000-word transcript). Streamed text changes
--- the buffer 30 times a second, so a long answer stalled the editor more the longer it got.
---
--- Two things bound that cost:
--- - **Chunks.** The parser's root is given several regions (`LanguageTree:set_included_regions`),
---   each parsed as its own tree: the transcript up to the first answer, then the pieces each
---   answer was streamed in. A change re-parses only the chunk it lands in. The slot count is
---   fixed because Neovim drops every tree when the number of regions changes; free slots hold
---   an empty range. When they run out, the two smallest neighbours merge.
--- - **Holding.** While text streams, the newest lines belong to no chunk, so appends leave every
---   tree valid. At a paragraph boundary (at most every 1.5 s, never inside a fence) the held
---   lines become a new chunk; when the text stops (a tool call, the end of the run) the rest does.
---   Until then the newest paragraph shows as plain text.
---
--- A chunk boundary is a blank line outside a fence, so every chunk is whole Markdown blocks.
local M = {}
local H = {}

--- Regions the root parser always has. More slots mean fewer merges and a little more work per
--- parse (one tree each).
H.SLOTS = 24

--- The last chunk ends this far away, covering the buffer and everything appended to it
--- (Treesitter shifts a range's end by each edit before it). Not `{}` (Neovim 0.12 then loops in
--- the injection pass) nor a row of 2^30 (that hangs 0.12's highlighter too).
H.FAR_ROW = 2 ^ 20
H.FAR_BYTE = 2 ^ 30

--- An unused slot: an empty range at the top, where the transcript never changes.
H.EMPTY = { 0, 0, 0, 0, 0, 0 }

--- How often the held lines may become a chunk while text streams, in ms: each time costs a
--- parse of what streamed since (a few ms), so this bounds how many late timer ticks a stream
--- causes, and how long the newest paragraph stays plain.
M.advance_ms = 1500

H.ns = vim.api.nvim_create_namespace('agent.chat.markdown')

---@class agent.MarkdownChunk
---@field slot integer the parser region it is parsed as
---@field mark integer|nil extmark at its first row (nil: the first chunk, which starts at row 0)

---@class agent.MarkdownState
---@field chunks agent.MarkdownChunk[] in buffer order
---@field hold integer|nil extmark at the end of the parsed text while text streams below it
---@field scanned integer 0-based row up to which the held lines were scanned for boundaries
---@field fence string|nil the fence (``` or ~~~) open at row `scanned`
---@field boundary integer|nil 0-based row of the last blank line outside a fence seen so far
---@field moved number hrtime (ms) the held lines last became a chunk
---@field off boolean|nil chunks do not work with this Neovim: the parser sees the whole buffer

H.states = {} ---@type table<integer, agent.MarkdownState>

---@param buf integer
---@return vim.treesitter.LanguageTree|nil
function H.parser(buf)
  -- The tree the highlighter parses (the buffer's filetype is not the parser's language).
  local highlighter = vim.treesitter.highlighter.active[buf]
  local parser = highlighter and highlighter.tree
  if parser and parser.set_included_regions and parser.included_regions and parser.trees then return parser end
end

---@param buf integer
---@return agent.MarkdownState|nil
function H.state(buf)
  local state = H.states[buf]
  if state or not H.parser(buf) then return state end
  state = { chunks = { { slot = 1 } }, scanned = 0, moved = 0 }
  H.states[buf] = state
  return state
end

--- A query from the query files on 'runtimepath' (so plugins' and the user's files count), without
--- the directives that match `drop`; nil when there is nothing to drop, when the query in use was
--- set another way (`vim.treesitter.query.set`), or when what is left does not parse.
---@param lang string
---@param kind string 'injections'|'highlights'
---@param drop string Lua pattern of the directive to remove
---@return string|nil
function H.runtime_query(lang, kind, drop)
  local ok, files = pcall(vim.treesitter.query.get_files, lang, kind)
  local text = {}
  for _, file in ipairs(ok and files or {}) do
    local f = io.open(file, 'r')
    if f then
      text[#text + 1] = f:read('*a')
      f:close()
    end
  end
  local whole = table.concat(text, '\n')
  local query, dropped = whole:gsub(drop, '')
  if dropped == 0 then return end
  local parsed, from_files = pcall(vim.treesitter.query.parse, lang, whole)
  local got, in_use = pcall(vim.treesitter.query.get, lang, kind)
  if not (parsed and got and in_use and #in_use.captures == #from_files.captures) then return end
  if vim.tbl_count(in_use.info.patterns) ~= vim.tbl_count(from_files.info.patterns) then return end
  if pcall(vim.treesitter.query.parse, lang, query) then return query end
end

--- The queries the transcript is parsed and highlighted with on Neovim 0.11+: the runtime's, minus
--- two directives that cost most there as a long transcript streams (0.10 has no
--- `conceal_lines` and scans injections whole anyway, so it keeps its queries).
--- - `injection.combined` (Markdown's HTML blocks, inline HTML tags) makes Neovim run the
---   injection query over the whole document after every parse instead of over the rows it
---   draws; each HTML block or tag is parsed on its own instead.
--- - `conceal_lines` (a fence's delimiter lines) makes the highlighter parse the rows on screen
---   one at a time after every change, each with an injection pass of its own; fence lines show
---   empty instead of vanishing, as on Neovim 0.10.
---@return { injections: table<string, string>, highlights: table<string, string> }
function H.queries()
  local queries = { injections = {}, highlights = {} }
  if vim.fn.has('nvim-0.11') == 0 then return queries end
  for _, lang in ipairs({ 'markdown', 'markdown_inline' }) do
    queries.injections[lang] = H.runtime_query(lang, 'injections', '%(#set!%s+"?injection%.combined"?%s*%)')
    queries.highlights[lang] = H.runtime_query(lang, 'highlights', '%(#set!%s+"?conceal_lines"?%s+""%s*%)')
  end
  return queries
end

--- Neovim 0.10 looks up injections (each paragraph's inline Markdown, each fence's language) in
--- every chunk after any chunk is parsed: 4 to 7 ms for a 20,000-word transcript at each chunk
--- move. A chunk's injections change only when its tree does: a parse makes a new tree, and an
--- edit above it moves its range. So each tree's are kept, and only a new or moved tree's are
--- looked up again. (Injections are grouped per tree there, so the union is the same.) 0.11+
--- looks them up only where it draws.
---@param parser vim.treesitter.LanguageTree
function H.keep_injections(parser)
  if vim.fn.has('nvim-0.11') == 1 or type(parser._get_injections) ~= 'function' then return end
  if rawget(parser, '_get_injections') then return end
  local lookup = parser._get_injections
  local kept = setmetatable({}, { __mode = 'k' }) ---@type table<TSTree, { range: string, by_lang: table }>
  parser._get_injections = function(self)
    local indexes = vim.tbl_keys(self._trees)
    table.sort(indexes)
    local result = {}
    for _, index in ipairs(indexes) do
      local tree = self._trees[index]
      local range = table.concat({ tree:root():range(true) }, ',')
      local entry = kept[tree]
      if not entry or entry.range ~= range then
        -- The runtime's own lookup, shown just this tree.
        local one = setmetatable({ _trees = { [index] = tree } }, { __index = self })
        entry = { range = range, by_lang = lookup(one) }
        kept[tree] = entry
      end
      for lang, regions in pairs(entry.by_lang) do
        result[lang] = result[lang] or {}
        vim.list_extend(result[lang], regions)
      end
    end
    return result
  end
end

--- The chat's and the plan's filetypes are Markdown to Treesitter, and so to plugins that ask it
--- which parser a buffer has.
function M.register() pcall(vim.treesitter.language.register, 'markdown', { 'agent-chat', 'agent-plan' }) end

H.highlighters = setmetatable({}, { __mode = 'v' }) ---@type table<integer, vim.treesitter.highlighter>

--- Starts Markdown highlighting on the (empty) transcript and gives its parser the slots. Called
--- before the buffer gets its filetype, so that the buffer's parser is created here with the
--- queries below, and again after it, to take the transcript back from a highlighter a FileType
--- autocmd started (`vim.treesitter.start` reuses the parser, with its slots).
---@param buf integer
function M.attach(buf)
  local active = vim.treesitter.highlighter.active
  if active[buf] and active[buf] == H.highlighters[buf] then return end
  -- As `vim.treesitter.start` does, with the queries above. Another highlighter goes first, so
  -- that one highlighter draws the transcript.
  if active[buf] then pcall(active[buf].destroy, active[buf]) end
  local queries = H.queries()
  local ok, parser = pcall(vim.treesitter.get_parser, buf, 'markdown', { injections = queries.injections })
  local highlighter
  if ok and parser then
    ok, highlighter = pcall(vim.treesitter.highlighter.new, parser, { queries = queries.highlights })
  end
  ok = ok and parser ~= nil
  if ok then H.highlighters[buf] = highlighter end
  if not ok and not active[buf] then pcall(vim.treesitter.start, buf, 'markdown') end
  local state = H.state(buf)
  if state and not state.off then
    H.keep_injections(H.parser(buf))
    H.apply(buf, state)
  end
  vim.api.nvim_create_autocmd('WinScrolled', {
    group = vim.api.nvim_create_augroup('agent.chat.markdown.' .. buf, { clear = true }),
    callback = function()
      if not vim.api.nvim_buf_is_valid(buf) then return true end
      if M.held(buf) and H.scrolled_away(buf) then H.refresh_later(buf) end
    end,
  })
end

--- Whether a window shows the transcript above its end (a window following the end shows
--- only what is being parsed as it streams).
function H.scrolled_away(buf)
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if vim.fn.line('w$', win) < last - 1 then return true end
  end
  return false
end

--- While text streams, a window scrolled up over the answer may show paragraphs whose Markdown
--- injections (bold, code spans) the parser has dropped: it keeps those only for what it parsed
--- on screen, and parses a chunk again only when the chunk changes. Re-parsing the chunks on
--- screen brings them back; at most every 200 ms while the user scrolls.
function H.refresh_later(buf)
  if H.refresh_timer then return end
  H.refresh_timer = vim.defer_fn(function()
    H.refresh_timer = nil
    local parser = vim.api.nvim_buf_is_valid(buf) and H.parser(buf)
    if not parser then return end
    pcall(parser.invalidate, parser)
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      pcall(parser.parse, parser, { vim.fn.line('w0', win) - 1, 0, vim.fn.line('w$', win), 0 })
    end
  end, 200)
end

--- Parses only what is above the last line from now on (text streams into the last line).
---@param buf integer
function M.hold(buf)
  local state = H.state(buf)
  if not state or state.off or state.hold then return end
  local last = vim.api.nvim_buf_line_count(buf) - 1
  if last < 1 then return end
  H.tidy(buf, state)
  -- A last chunk holding nothing above the streamed line gives its slot back.
  local rows = H.rows(buf, state)
  while #state.chunks > 1 and rows[#rows] >= last do
    H.drop(buf, state, #state.chunks)
    rows[#rows] = nil
  end
  state.hold = H.line_end_mark(buf, last - 1)
  state.scanned = last
  state.fence, state.boundary = nil, nil
  state.moved = vim.uv.hrtime() / 1e6
  H.apply(buf, state)
end

--- Lets the parser see every line again: the held ones become the last chunk.
---@param buf integer
function M.release(buf)
  local state = H.states[buf]
  if not state or not state.hold then return end
  local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, state.hold, {})
  pcall(vim.api.nvim_buf_del_extmark, buf, H.ns, state.hold)
  state.hold = nil
  H.tidy(buf, state)
  if pos[1] and pos[1] + 1 < vim.api.nvim_buf_line_count(buf) then H.add_chunk(buf, state, pos[1] + 1) end
  H.apply(buf, state)
end

---@param buf integer
---@return boolean whether the newest lines are kept from the parser
function M.held(buf) return H.states[buf] ~= nil and H.states[buf].hold ~= nil end

--- After an edit: turns the held lines into a chunk when it is time, and (re)applies the regions.
--- Neovim rebuilds the regions from its trees on an edit, so regions set after the last parse
--- are lost when an edit comes first.
---@param buf integer
function M.sync(buf)
  local state = H.states[buf]
  if not state or state.off then return end
  if not H.parser(buf) then
    H.states[buf] = nil
    return
  end
  H.tidy(buf, state)
  local now = vim.uv.hrtime() / 1e6
  if state.hold and now - state.moved >= M.advance_ms then
    H.scan(buf, state)
    local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, state.hold, {})
    -- The lines from below the parsed text to the boundary's blank line make the new chunk.
    if pos[1] and state.boundary and state.boundary - 1 > pos[1] then
      state.moved = now
      H.add_chunk(buf, state, pos[1] + 1)
      H.line_end_mark(buf, state.boundary - 1, state.hold)
      state.boundary = nil
    end
  end
  H.apply(buf, state)
end

--- Drops chunks whose first line is gone (the transcript was cleared or replaced).
function H.tidy(buf, state)
  local last = -1
  local i = 2
  while i <= #state.chunks do
    local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, state.chunks[i].mark, {})
    if not pos[1] or pos[1] <= last or pos[1] == 0 then
      H.drop(buf, state, i)
    else
      last = pos[1]
      i = i + 1
    end
  end
  if state.hold and not vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, state.hold, {})[1] then state.hold = nil end
end

---@return integer[] the first row of each chunk
function H.rows(buf, state)
  local rows = { 0 }
  for i = 2, #state.chunks do
    rows[i] = vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, state.chunks[i].mark, {})[1]
  end
  return rows
end

--- Merges chunk i into the one before it; its slot becomes free.
function H.drop(buf, state, i)
  pcall(vim.api.nvim_buf_del_extmark, buf, H.ns, state.chunks[i].mark)
  table.remove(state.chunks, i)
end

--- Starts a chunk at `row`, merging the two smallest neighbours first when no slot is free.
function H.add_chunk(buf, state, row)
  if #state.chunks >= H.SLOTS then
    local rows = H.rows(buf, state)
    local function size(i)
      return vim.api.nvim_buf_get_offset(buf, rows[i + 1] or row) - vim.api.nvim_buf_get_offset(buf, rows[i])
    end
    local best, smallest = 2, math.huge
    for i = 2, #state.chunks do
      local joined = size(i - 1) + size(i)
      if joined < smallest then
        best, smallest = i, joined
      end
    end
    H.drop(buf, state, best)
  end
  local used = {}
  for _, chunk in ipairs(state.chunks) do
    used[chunk.slot] = true
  end
  local slot = 1
  while used[slot] do
    slot = slot + 1
  end
  table.insert(state.chunks, { slot = slot, mark = vim.api.nvim_buf_set_extmark(buf, H.ns, row, 0, {}) })
end

--- Places (or moves) a mark at the end of `row`, before its newline: an insert exactly at a
--- range's end would stretch the range without invalidating its tree, and on Neovim 0.10 a range
--- ending just after a newline can crash Treesitter.
function H.line_end_mark(buf, row, id)
  return vim.api.nvim_buf_set_extmark(buf, H.ns, row, H.line_length(buf, row), { id = id })
end

---@return integer the byte length of `row` (0-based)
function H.line_length(buf, row) return #(vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or '') end

--- The regions the parser should have, one per slot.
---@return table[]
function H.regions(buf, state)
  local regions = {}
  for slot = 1, H.SLOTS do
    regions[slot] = { vim.deepcopy(H.EMPTY) }
  end
  local rows = H.rows(buf, state)
  local offset = function(row, col) return vim.api.nvim_buf_get_offset(buf, row) + col end
  for i, chunk in ipairs(state.chunks) do
    local range
    local start = rows[i]
    if rows[i + 1] then
      local row = rows[i + 1] - 1
      local col = H.line_length(buf, row)
      range = { start, 0, offset(start, 0), row, col, offset(row, col) }
    elseif state.hold then
      local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, state.hold, {})
      range = { start, 0, offset(start, 0), pos[1], pos[2], offset(pos[1], pos[2]) }
    else
      range = { start, 0, offset(start, 0), H.FAR_ROW, 0, H.FAR_BYTE }
    end
    regions[chunk.slot] = { range }
  end
  return regions
end

--- Hands the regions to the parser unless it has them already. A far end counts as applied
--- wherever edits have shifted it.
function H.apply(buf, state)
  local parser = H.parser(buf)
  if not parser then return end
  local want = H.regions(buf, state)
  local have = parser:included_regions()
  if vim.tbl_count(have) ~= H.SLOTS then
    -- New to this parser (or it lost slots): every slot needs a tree. Neovim rebuilds the
    -- regions from the trees after an edit, and empty ranges are only parsed by a full parse;
    -- a slot without a tree would vanish at the next edit and change the count again.
    pcall(parser.set_included_regions, parser, want)
    pcall(parser.parse, parser, true)
    if vim.tbl_count(parser:trees()) ~= H.SLOTS then
      -- This Neovim does not keep a tree per slot: parse the transcript whole, as by default,
      -- rather than re-parse all of it on every edit.
      pcall(parser.set_included_regions, parser, { { { 0, 0, 0, H.FAR_ROW, 0, H.FAR_BYTE } } })
      state.off = true
    end
    return
  end
  local same = true
  for slot = 1, #want do
    if not same then break end
    local a, b = want[slot][1], have[slot] and have[slot][1]
    same = b ~= nil
      and #(have[slot]) == 1
      and a[1] == b[1]
      and a[2] == b[2]
      and (a[4] == H.FAR_ROW and b[4] >= H.FAR_ROW or a[4] == b[4] and a[5] == b[5])
  end
  if not same then pcall(parser.set_included_regions, parser, want) end
end

--- Finds the last blank line outside a code fence among the complete lines streamed since the
--- last scan (the last line is still being written).
function H.scan(buf, state)
  local last = vim.api.nvim_buf_line_count(buf) - 1
  if last <= state.scanned then return end
  local lines = vim.api.nvim_buf_get_lines(buf, state.scanned, last, false)
  for i, line in ipairs(lines) do
    local fence = line:match('^%s*(```)') or line:match('^%s*(~~~)')
    if fence then
      if not state.fence then
        state.fence = fence
      elseif state.fence == fence then
        state.fence = nil
      end
    elseif not state.fence and line:match('^%s*$') then
      state.boundary = state.scanned + i - 1
    end
  end
  state.scanned = last
end

return M
