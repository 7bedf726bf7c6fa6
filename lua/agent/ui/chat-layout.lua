--- Where the chat's two windows go: a split on one side of the editor (the default) or a float
--- pair in the middle, sized from the `window` options. Closing either closes the other.
local M = {}
local H = {}

--- Opens the transcript and input windows; the input one ends up current.
---@param cfg agent.WindowConfig the `window` options
---@param transcript integer buffer
---@param input integer buffer
---@return integer transcript_win, integer input_win
function M.open(cfg, transcript, input)
  local tw, iw
  if cfg.layout == 'float' then
    tw, iw = H.open_float(cfg, transcript, input)
  else
    tw, iw = H.open_split(cfg, transcript, input)
  end
  for _, win in ipairs({ tw, iw }) do
    vim.wo[win].number = false
    vim.wo[win].relativenumber = false
    vim.wo[win].signcolumn = 'no'
    vim.wo[win].foldcolumn = '0'
    vim.wo[win].wrap = true
    vim.wo[win].linebreak = true
    vim.wo[win].spell = false
  end
  return tw, iw
end

--- Closes the windows; the last window of a tab cannot close, so it gets an empty buffer.
---@param wins (integer|nil)[]
function M.close(wins)
  for _, win in pairs(wins) do
    if win and vim.api.nvim_win_is_valid(win) then
      if #vim.api.nvim_tabpage_list_wins(0) == 1 then
        vim.api.nvim_win_set_buf(win, vim.api.nvim_create_buf(true, false))
      else
        vim.api.nvim_win_close(win, true)
      end
    end
  end
end

---@param buf integer|nil
---@return integer|nil the window showing `buf` in the current tabpage
function M.find_win(buf)
  if not buf or not vim.api.nvim_buf_is_valid(buf) then return nil end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then return win end
  end
end

--- Closing either window of the pair closes the other; resizing the transcript refits the
--- status in its winbar.
---@param transcript_win fun(): integer|nil
---@param input_win fun(): integer|nil
function M.watch(transcript_win, input_win)
  local group = vim.api.nvim_create_augroup('agent.chat.windows', { clear = true })
  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    callback = function(args)
      local closed = tonumber(args.match)
      local tw, iw = transcript_win(), input_win()
      if closed ~= tw and closed ~= iw then return end
      vim.schedule(function()
        for _, win in ipairs({ tw, iw }) do
          if win ~= closed and win and vim.api.nvim_win_is_valid(win) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
            pcall(vim.api.nvim_win_close, win, true)
          end
        end
      end)
    end,
  })
  vim.api.nvim_create_autocmd('WinResized', {
    group = group,
    callback = function()
      local tw = transcript_win()
      if tw and vim.tbl_contains(vim.v.event.windows or {}, tw) then require('agent.ui.status').render() end
    end,
  })
end

--- A size option: a fraction of `total` below 1, else cells.
---@param size number
---@param total integer
function H.size(size, total)
  if size < 1 then return math.max(1, math.floor(total * size)) end
  return math.floor(size)
end

function H.open_split(cfg, transcript, input)
  local vertical = cfg.side == 'right' or cfg.side == 'left'
  local placement = (cfg.side == 'right' or cfg.side == 'bottom') and 'botright' or 'topleft'
  local size = vertical and H.size(cfg.width, vim.o.columns) or H.size(cfg.height, vim.o.lines)
  vim.cmd(string.format('%s %d%s', placement, size, vertical and 'vsplit' or 'split'))
  local tw = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(tw, transcript)
  vim.wo[tw].winfixwidth = vertical
  vim.wo[tw].winfixheight = not vertical
  vim.cmd(string.format('belowright %dsplit', cfg.input_height))
  local iw = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(iw, input)
  vim.wo[iw].winfixheight = true
  return tw, iw
end

function H.open_float(cfg, transcript, input)
  local width = H.size(cfg.width, vim.o.columns)
  local height = H.size(cfg.height, vim.o.lines - 2)
  local input_height = math.min(cfg.input_height, math.max(1, height - 4))
  local top_height = math.max(1, height - input_height - 2)
  local col = math.floor((vim.o.columns - width) / 2)
  local row = math.floor((vim.o.lines - height) / 2)
  local base = { relative = 'editor', style = 'minimal', border = 'rounded', width = width - 2, col = col }
  local tw = vim.api.nvim_open_win(
    transcript,
    false,
    vim.tbl_extend('force', base, { row = row, height = top_height - 2, title = ' agent ', title_pos = 'center' })
  )
  local iw = vim.api.nvim_open_win(input, true, vim.tbl_extend('force', base, { row = row + top_height, height = input_height }))
  for _, win in ipairs({ tw, iw }) do
    vim.wo[win].winhighlight = 'FloatBorder:AgentBorder'
  end
  return tw, iw
end

return M
