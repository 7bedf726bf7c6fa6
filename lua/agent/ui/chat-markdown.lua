--- Keeps the answer being streamed out of the transcript's Markdown parser.
---
--- Every change to a Treesitter-highlighted buffer makes the highlighter re-parse it and re-run
--- the injection query (markdown -> markdown_inline for every paragraph) over the whole document:
--- on Neovim 0.10 synchronously on each redraw, on 0.12 in 3 ms slices, and on every version with
--- a cost that grows with the transcript. Streamed text changes the buffer 30 times a second, so a
--- long answer stalled the editor more the longer it got.
---
--- While text streams, the parser's root is limited (`LanguageTree:set_included_regions`) to the
--- lines before the text being written, so appends below it leave every tree valid and a redraw
--- only highlights what is on screen. The region moves down at paragraph boundaries (at most once
--- a second: each move runs the injection query once) and to the end when the text stops (a tool
--- call, the end of the run). Until then the newest lines show as plain text.
local M = {}
local H = {}

--- An included range ending this far away covers the buffer and everything appended to it
--- (Treesitter shifts a range's end by each edit before it), like the default "no regions".
--- Not `{}` (Neovim 0.12 then loops in the injection pass) nor much larger (2^30 hangs 0.12's
--- highlighter too).
H.WHOLE = { { { 0, 0, 0, 2 ^ 20, 0, 2 ^ 20 } } }

--- How often the parsed region may move down while text streams, in ms.
M.advance_ms = 1000

H.ns = vim.api.nvim_create_namespace('agent.chat.markdown')

---@class agent.MarkdownHold
---@field mark integer extmark at the end of the parsed region
---@field scanned integer 0-based row up to which the streamed lines were scanned for boundaries
---@field fence string|nil the fence (``` or ~~~) open at row `scanned`
---@field boundary integer|nil 0-based row of the last blank line outside a fence seen so far
---@field moved number hrtime (ms) of the last move
---@field released boolean|nil the whole buffer is asked for; the entry goes once the parser has it

H.holds = {} ---@type table<integer, agent.MarkdownHold>

---@param buf integer
---@return vim.treesitter.LanguageTree|nil
function H.parser(buf)
  -- The tree the highlighter parses (the buffer's filetype is not the parser's language).
  local highlighter = vim.treesitter.highlighter.active[buf]
  local parser = highlighter and highlighter.tree
  if parser and parser.set_included_regions and parser.trees then return parser end
end

---@param buf integer
---@param region table
function H.set(buf, region)
  local parser = H.parser(buf)
  if parser then pcall(parser.set_included_regions, parser, region) end
end

--- Parses only what is above the last line from now on (text streams into the last line).
---@param buf integer
function M.hold(buf)
  if M.held(buf) or not H.parser(buf) then return end
  local last = vim.api.nvim_buf_line_count(buf) - 1
  if last < 1 then return end
  -- End before the newline of the line above: an insert exactly at a range's end would stretch
  -- the range without invalidating its tree.
  local col = #(vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or '')
  H.holds[buf] = {
    mark = vim.api.nvim_buf_set_extmark(buf, H.ns, last - 1, col, {}),
    scanned = last,
    moved = vim.uv.hrtime() / 1e6,
  }
  M.sync(buf)
end

--- Lets the parser see the whole buffer again.
---@param buf integer
function M.release(buf)
  local hold = H.holds[buf]
  if not hold or hold.released then return end
  hold.released = true
  pcall(vim.api.nvim_buf_del_extmark, buf, H.ns, hold.mark)
  M.sync(buf)
end

---@param buf integer
---@return boolean whether the newest lines are kept from the parser
function M.held(buf) return H.holds[buf] ~= nil and not H.holds[buf].released end

--- After an edit: moves the region down to the last paragraph boundary when it is time, and
--- (re)applies it: Neovim 0.10 and 0.12 rebuild the regions from the current tree on an edit,
--- so a region set after the last parse is lost when an edit comes first.
---@param buf integer
function M.sync(buf)
  local hold = H.holds[buf]
  if not hold then return end
  local parser = H.parser(buf)
  if not parser then
    H.holds[buf] = nil
    return
  end
  -- What the parser has applied: the tree's ranges (the regions it was told are set at once).
  local tree = parser:trees()[1]
  local ranges = tree and tree:included_ranges(false) or {}
  local range = #ranges == 1 and ranges[1][1] == 0 and ranges[1][2] == 0 and ranges[1] or nil
  if hold.released then
    if range and range[3] >= H.WHOLE[1][1][4] / 2 then
      H.holds[buf] = nil
    else
      H.set(buf, vim.deepcopy(H.WHOLE))
    end
    return
  end
  local now = vim.uv.hrtime() / 1e6
  if now - hold.moved >= M.advance_ms then
    H.scan(buf, hold)
    if hold.boundary then
      hold.moved = now
      local row = hold.boundary - 1
      local col = #(vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or '')
      vim.api.nvim_buf_set_extmark(buf, H.ns, row, col, { id = hold.mark })
      hold.boundary = nil
    end
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(buf, H.ns, hold.mark, {})
  if not pos[1] or (range and range[3] == pos[1] and range[4] == pos[2]) then return end
  H.set(buf, { { { 0, 0, pos[1], pos[2] } } })
end

--- Finds the last blank line outside a code fence among the complete lines streamed since the
--- last scan (the last line is still being written).
function H.scan(buf, hold)
  local last = vim.api.nvim_buf_line_count(buf) - 1
  if last <= hold.scanned then return end
  local lines = vim.api.nvim_buf_get_lines(buf, hold.scanned, last, false)
  for i, line in ipairs(lines) do
    local fence = line:match('^%s*(```)') or line:match('^%s*(~~~)')
    if fence then
      if not hold.fence then
        hold.fence = fence
      elseif hold.fence == fence then
        hold.fence = nil
      end
    elseif not hold.fence and line:match('^%s*$') then
      hold.boundary = hold.scanned + i - 1
    end
  end
  hold.scanned = last
end

return M
