--- The chat's status line (the transcript window's winbar): mode, model, step while running,
--- tokens, context use, session cost when known, and the auto-approve switch when on.
local M = {}
local H = {}

H.state = { figures = nil } ---@type { figures: table|nil }

---@param n number
---@return string
function H.count(n)
  if n >= 1e6 then return string.format('%.1fM', n / 1e6) end
  if n >= 1e4 then return string.format('%.0fk', n / 1e3) end
  if n >= 1e3 then return string.format('%.1fk', n / 1e3) end
  return tostring(n)
end

--- Remembers the latest figures from the host.
---@param figures table step, max_steps, input_tokens, output_tokens, context_tokens, context_window, cost?
function M.update(figures) H.state.figures = figures end

function M.reset() H.state.figures = nil end

--- Background work shown in the status (e.g. "summarising older turns 1/3"); nil clears it.
---@param text string|nil
function M.set_activity(text) H.state.activity = text end

--- The status text for the current state (also used by tests and statusline plugins).
---@param status? { mode: string, model?: string, running: boolean } `require('agent').status()`
---@return string
function M.text(status)
  return table.concat(vim.tbl_map(function(f) return f.text end, H.fields(status)), ' · ')
end

--- The status's fields in display order, each with its rank: what a narrow window keeps first
--- (mode and model, then the auto-approve switch, which changes what runs unasked).
---@param status? { mode: string, model?: string, running: boolean }
---@return { text: string, rank: integer }[]
function H.fields(status)
  status = status or require('agent').status()
  local cfg = require('agent.config').current
  local fields = {}
  local function add(rank, text) table.insert(fields, { text = text, rank = rank }) end
  add(1, status.mode)
  add(1, status.model or 'no model yet')
  local f = H.state.figures
  if status.running then add(3, f and string.format('step %d/%d', f.step, f.max_steps) or 'working') end
  if f then
    add(6, string.format('%s in / %s out', H.count(f.input_tokens), H.count(f.output_tokens)))
    if f.context_window and f.context_window > 0 then
      local pct = function(n) return math.floor(100 * n / f.context_window + 0.5) end
      -- The provider's count of the last request, and our estimate of the next one.
      add(5, string.format('ctx %d%% (est %d%%)', pct(f.context_tokens), pct(f.context_estimate or 0)))
    elseif f.context_tokens > 0 then
      add(5, string.format('ctx %s (est %s)', H.count(f.context_tokens), H.count(f.context_estimate or 0)))
    end
    if f.cost and f.cost ~= vim.NIL then add(7, string.format('$%.4f', f.cost)) end
  end
  if H.state.activity then add(4, H.state.activity) end
  if cfg.auto_approve == true then
    add(2, 'AUTO-APPROVE')
  elseif cfg.auto_approve == 'edits' then
    add(2, 'auto-edits')
  end
  return fields
end

--- Redraws the winbar of every window showing the transcript.
function M.render()
  local ok, chat = pcall(require, 'agent.ui.chat')
  if not ok then return end
  local fields = H.fields()
  for _, win in ipairs(vim.fn.win_findbuf(chat.transcript_buf())) do
    local fitted = H.fit(fields, vim.api.nvim_win_get_width(win) - 1)
    vim.wo[win].winbar = '%#AgentStatus# ' .. fitted:gsub('%%', '%%%%')
  end
end

--- The fields that fit in `width` cells, best rank first, shown in their order; `…` says some
--- did not fit. Mode and model always show.
---@param fields { text: string, rank: integer }[]
---@param width integer
---@return string
function H.fit(fields, width)
  local order = {}
  for i in ipairs(fields) do
    order[i] = i
  end
  table.sort(order, function(a, b) return fields[a].rank < fields[b].rank or fields[a].rank == fields[b].rank and a < b end)
  local shown, dropped = {}, false
  local function line(extra)
    local texts = {}
    for i, field in ipairs(fields) do
      if shown[i] or i == extra then table.insert(texts, field.text) end
    end
    return table.concat(texts, ' · ')
  end
  for _, i in ipairs(order) do
    if fields[i].rank == 1 or vim.fn.strdisplaywidth(line(i)) + 2 <= width then
      shown[i] = true
    else
      dropped = true
    end
  end
  return line() .. (dropped and ' …' or '')
end

return M
