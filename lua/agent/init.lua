--- agent.nvim: a coding agent inside Neovim. Public Lua API.
--- Everything is required lazily: loading this module starts nothing.
local M = {}
local H = {}

H.state = {
  configured = false,
  mode = nil, ---@type 'ask'|'plan'|'agent'|nil
  model = nil, ---@type string|nil
  running = nil, ---@type string|nil id of the running prompt
  queue = {}, ---@type { text: string, opts: table }[]
  next_id = 0,
  wired = false,
}

--- Configures the plugin. Works with no argument; calling it again replaces the options.
---@param opts agent.Config|nil
---@return table module
function M.setup(opts)
  if not H.supported() then return M end
  local config = require('agent.config')
  local resolved, err = config.resolve(opts)
  if not resolved then
    vim.notify(err, vim.log.levels.ERROR)
    return M
  end
  config.current = resolved
  H.state.configured = true
  H.state.mode = nil
  H.state.model = nil
  require('agent.highlight').setup()
  H.apply_keys(resolved.keys)
  require('agent.rpc').reconfigure()
  return M
end

--- Opens the chat if it is closed, closes it if it is open.
function M.toggle()
  if not H.supported() then return end
  if require('agent.ui.chat').is_open() then
    M.close()
  else
    M.open()
  end
end

--- Opens the chat at once and starts the host in the background, so the first prompt is fast.
function M.open()
  if not H.supported() then return end
  H.wire()
  require('agent.ui.chat').open()
  vim.schedule(function() require('agent.rpc').start() end)
end

function M.close()
  if not H.supported() then return end
  require('agent.ui.chat').close()
end

---@class agent.SendOpts
---@field mode? 'ask'|'plan'|'agent'
---@field model? string
---@field context? string|string[] extra context sent with the prompt (not shown as typed text)

--- Sends a prompt. While a run streams, the prompt is queued and sent when it ends.
---@param prompt string
---@param opts agent.SendOpts|nil
function M.send(prompt, opts)
  if not H.supported() then return end
  vim.validate({ prompt = { prompt, 'string' }, opts = { opts, 'table', true } })
  H.wire()
  opts = opts or {}
  if H.state.running then
    table.insert(H.state.queue, { text = prompt, opts = opts })
    require('agent.ui.chat').notice('Queued: it is sent when the current run ends.', 'info')
    return
  end
  H.state.next_id = H.state.next_id + 1
  local id = tostring(H.state.next_id)
  H.state.running = id
  local chat = require('agent.ui.chat')
  chat.append_user(prompt)
  local text = prompt
  if opts.context then
    local context = type(opts.context) == 'table' and table.concat(opts.context, '\n') or opts.context
    text = context .. '\n\n' .. prompt
  end
  require('agent.rpc').notify('prompt', {
    id = id,
    text = text,
    mode = opts.mode or M.status().mode,
    model = opts.model or H.state.model,
  })
end

--- Stops the running prompt (stream, tools, pending questions) and drops queued prompts.
function M.stop()
  if not H.supported() then return end
  H.state.queue = {}
  if H.state.running and require('agent.rpc').is_running() then require('agent.rpc').notify('stop') end
end

--- Stops the run first, then starts a new conversation.
function M.clear()
  if not H.supported() then return end
  M.stop()
  require('agent.ui.chat').clear()
  if require('agent.rpc').is_running() then require('agent.rpc').notify('clear') end
end

---@param mode 'ask'|'plan'|'agent'
function M.set_mode(mode)
  if not vim.tbl_contains({ 'ask', 'plan', 'agent' }, mode) then
    vim.notify(string.format('agent: mode must be ask|plan|agent, got %q', tostring(mode)), vim.log.levels.ERROR)
    return
  end
  H.state.mode = mode
end

---@param model string "<provider id>/<model id>"
function M.set_model(model)
  if type(model) ~= 'string' or not model:find('/', 1, true) then
    vim.notify(string.format('agent: model must be "<provider id>/<model id>", got %q', tostring(model)), vim.log.levels.ERROR)
    return
  end
  H.state.model = model
end

---@return { mode: string, model: string|nil, running: boolean, host: 'stopped'|'starting'|'ready' }
function M.status()
  local cfg = require('agent.config').current
  local rpc = require('agent.rpc')
  return {
    mode = H.state.mode or cfg.mode,
    model = H.state.model or cfg.model or H.state.active_model,
    running = H.state.running ~= nil,
    host = rpc.is_ready() and 'ready' or (rpc.is_running() and 'starting' or 'stopped'),
  }
end

-- Helpers ------------------------------------------------------------------------------------

function H.supported()
  if vim.fn.has('nvim-0.10') == 1 then return true end
  require('agent.compat').too_old()
  return false
end

--- Connects host messages to the UI, once.
function H.wire()
  if H.state.wired then return end
  H.state.wired = true
  if not H.state.configured then M.setup({}) end
  local chat, rpc, events = require('agent.ui.chat'), require('agent.rpc'), require('agent.events')
  chat.setup({ on_submit = function(text) M.send(text) end, on_help = H.show_help })
  rpc.on('run_started', function(p)
    H.state.active_model = p.model
    chat.begin_assistant(p.id, p.model)
    events.fire('AgentRunStarted', { id = p.id, model = p.model, mode = M.status().mode })
  end)
  rpc.on('stream', function(p) chat.stream(p.id, p.text, p.reasoning) end)
  rpc.on('run_done', function(p) H.finish(p.id, p.outcome, p.error, p.changed_files) end)
  rpc.on('notice', function(p) chat.notice(p.text, p.level) end)
  rpc.on('exit', function()
    if H.state.running then
      -- Scheduled: on_exit runs in a fast event where buffers cannot be edited.
      local id = H.state.running
      vim.schedule(function() H.finish(id, 'failed', 'the host exited during the run') end)
    end
  end)
end

function H.finish(id, outcome, err, changed_files)
  if H.state.running ~= id then return end
  H.state.running = nil
  require('agent.ui.chat').end_run(id, outcome, err)
  require('agent.events').fire('AgentRunDone', {
    session = id,
    outcome = outcome,
    changed_files = changed_files or {},
    error = err,
  })
  local next_prompt = table.remove(H.state.queue, 1)
  if next_prompt then M.send(next_prompt.text, next_prompt.opts) end
end

function H.show_help()
  local lines = {
    'agent.nvim keys',
    '  input  <CR> (Normal), <C-CR> or <C-s> (Insert)   send',
    '  chat   i   type a message    q   close    ?   this help',
    '  :Agent mode ask|plan|agent   :Agent model <provider/model>   :Agent stop   :Agent clear   :Agent log',
    'Modes: ask answers without touching files; plan writes a plan; agent edits and runs commands.',
  }
  vim.notify(table.concat(lines, '\n'), vim.log.levels.INFO)
end

--- Maps the toggle key from the config (false removes it).
---@param keys { toggle: string|false }
function H.apply_keys(keys)
  if vim.g.agent_toggle_key then
    pcall(vim.keymap.del, 'n', vim.g.agent_toggle_key)
    vim.g.agent_toggle_key = nil
  end
  if keys.toggle then
    vim.keymap.set('n', keys.toggle, '<Plug>(AgentToggle)', { desc = 'agent: toggle the chat' })
    vim.g.agent_toggle_key = keys.toggle
  end
end

return M
