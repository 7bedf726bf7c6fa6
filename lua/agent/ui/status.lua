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
  status = status or require('agent').status()
  local cfg = require('agent.config').current
  local parts = { status.mode, status.model or 'no model yet' }
  local f = H.state.figures
  if status.running and f then
    table.insert(parts, string.format("step %d/%d", f.step, f.max_steps))
  end
  if status.running and not f then table.insert(parts, 'working') end
  if f then
    table.insert(parts, string.format('%s in / %s out', H.count(f.input_tokens), H.count(f.output_tokens)))
    if f.context_window and f.context_window > 0 then
      local pct = function(n) return math.floor(100 * n / f.context_window + 0.5) end
      -- The provider's count of the last request, and our estimate of the next one.
      table.insert(parts, string.format('ctx %d%% (est %d%%)', pct(f.context_tokens), pct(f.context_estimate or 0)))
    end
    if (not f.context_window or f.context_window == 0) and f.context_tokens > 0 then
      table.insert(parts, string.format('ctx %s (est %s)', H.count(f.context_tokens), H.count(f.context_estimate or 0)))
    end
    if f.cost and f.cost ~= vim.NIL then table.insert(parts, string.format('$%.4f', f.cost)) end
  end
  if H.state.activity then table.insert(parts, H.state.activity) end
  if cfg.auto_approve == true then
    table.insert(parts, 'AUTO-APPROVE')
  elseif cfg.auto_approve == 'edits' then
    table.insert(parts, 'auto-edits')
  end
  return table.concat(parts, ' · ')
end

--- Redraws the winbar of every window showing the transcript.
function M.render()
  local ok, chat = pcall(require, 'agent.ui.chat')
  if not ok then return end
  local escaped = M.text():gsub('%%', '%%%%')
  -- Mode and model stay visible in a narrow window: anything cut goes from the end.
  local mode, model, rest = escaped:match('^(.-) · (.-) · (.*)$')
  local text = mode and string.format(' %s · %s · %%<%s', mode, model, rest) or (' ' .. escaped)
  for _, win in ipairs(vim.fn.win_findbuf(chat.transcript_buf())) do
    vim.wo[win].winbar = '%#AgentStatus#' .. text
  end
end

return M
