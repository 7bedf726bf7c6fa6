--- agent.nvim: a coding agent inside Neovim. Public Lua API.
--- Everything is required lazily: loading this module starts nothing.
local M = {}
local H = {}

H.state = {
  configured = false,
  mode = nil, ---@type 'ask'|'plan'|'agent'|nil
  model = nil, ---@type string|nil
  running = nil, ---@type string|nil id of the running prompt
  queue = {}, ---@type { text?: string, opts?: table, build?: true }[] prompts (or a plan build) sent when the run ends
  permissions = {}, ---@type table<string, { summary: string, pattern: string }> open permission prompts
  session = nil, ---@type string|nil the saved session the last run belonged to
  cleared = {}, ---@type table<string, true> runs stopped by a clear: what they still send is not drawn
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
  H.apply_keys(resolved.keys, type(opts) == 'table' and type(opts.keys) == 'table' and opts.keys.toggle ~= nil)
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
  H.remember_origin()
  require('agent.ui.chat').open()
  require('agent.ui.status').render()
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
---@field attachments? { label: string, detail: string }[] what `context` holds, one transcript line each

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
  H.remember_origin()
  local chat = require('agent.ui.chat')
  -- @path, #buffer, #selection, #diagnostics, #quickfix: resolved now, sent as context.
  local ctx = require('agent.context')
  local expanded = ctx.expand(prompt, { origin_buf = H.state.origin_buf })
  local id = H.next_request('')
  H.state.running = id
  chat.append_user(prompt)
  local attachments = vim.list_extend(vim.list_extend({}, opts.attachments or {}), expanded.attachments)
  if #attachments > 0 then
    chat.append_lines(vim.tbl_map(function(a) return '📎 ' .. ctx.format_attachment(a) end, attachments), 'AgentNotice')
    chat.append_lines({ '' })
  end
  for _, err in ipairs(expanded.errors) do
    chat.notice('Not attached: ' .. err, 'warn')
  end
  local parts = {}
  if opts.context then table.insert(parts, type(opts.context) == 'table' and table.concat(opts.context, '\n') or opts.context) end
  if #expanded.context > 0 then table.insert(parts, table.concat(expanded.context, '\n')) end
  table.insert(parts, prompt)
  local text = table.concat(parts, '\n\n')
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
  -- What the stopped run still sends (its last text, cancelled tools, its end) belongs to the
  -- conversation being cleared: it fires events but is not drawn in the new one.
  if H.state.running then H.state.cleared[H.state.running] = true end
  H.state.session = nil
  M.stop()
  require('agent.ui.chat').clear()
  require('agent.ui.status').reset()
  require('agent.ui.status').render()
  if require('agent.rpc').is_running() then require('agent.rpc').notify('clear') end
end

---@param mode 'ask'|'plan'|'agent'
function M.set_mode(mode)
  if not vim.tbl_contains({ 'ask', 'plan', 'agent' }, mode) then
    vim.notify(string.format('agent: mode must be ask|plan|agent, got %q', tostring(mode)), vim.log.levels.ERROR)
    return
  end
  H.state.mode = mode
  if require('agent.rpc').is_running() then require('agent.rpc').notify('set_mode', { mode = mode }) end
  if package.loaded['agent.ui.status'] then require('agent.ui.status').render() end
end

--- Answers an open permission prompt (the floating prompt calls this too).
---@param id string the `id` from `AgentPermissionAsked`
---@param decision 'once'|'always'|'deny'|{ deny: string }
function M.reply_permission(id, decision)
  local valid = decision == 'once' or decision == 'always' or decision == 'deny'
    or (type(decision) == 'table' and type(decision.deny) == 'string')
  if not valid then
    vim.notify('agent: decision must be once|always|deny or { deny = reason }', vim.log.levels.ERROR)
    return
  end
  require('agent.ui.prompt').cancel(id)
  require('agent.rpc').notify('permission_reply', { id = id, decision = decision })
  local asked = H.state.permissions[id]
  H.state.permissions[id] = nil
  if asked then
    local text = decision == 'once' and 'allowed once'
      or decision == 'always' and ('allowed always' .. (asked.pattern ~= '' and (' (' .. asked.pattern .. ')') or ''))
      or type(decision) == 'table' and ('denied: ' .. decision.deny)
      or 'denied'
    require('agent.ui.chat').permission_decided(text, asked.summary)
  end
end

--- Answers an open ask_user question: one of its options or free text. Without a reply the
--- question is dismissed: the model is told the user did not answer, and the run goes on.
---@param id string the `id` from `AgentAskUser`
---@param reply? string
function M.answer(id, reply)
  vim.validate({ id = { id, 'string' }, reply = { reply, 'string', true } })
  require('agent.ui.prompt').cancel(id)
  if reply == nil then
    require('agent.rpc').notify('answer', { id = id, dismissed = true })
  else
    require('agent.rpc').notify('answer', { id = id, reply = reply })
  end
end

--- Implements the latest plan: switches to Agent, seeds the todos from its `## Tasks`, starts.
function M.build()
  if not H.supported() then return end
  H.wire()
  require('agent.ui.plan').hide()
  if H.state.running then
    -- Usually the plan's own run, whose end reaches Neovim just after the plan: build once it ends
    -- well, in order with any prompts queued before.
    if not vim.iter(H.state.queue):any(function(item) return item.build end) then
      table.insert(H.state.queue, { build = true })
      require('agent.ui.chat').notice('Queued: the plan is built when the current run ends.', 'info')
    end
    return
  end
  local id = H.next_request('')
  H.state.running = id
  -- The host switches to Agent mode (and says so) once it has a plan to build.
  require('agent.ui.chat').append_user('Build the plan.')
  require('agent.rpc').notify('build', { id = id })
end

--- Closes the plan preview and leaves the plan unimplemented.
function M.close_plan()
  require('agent.ui.plan').hide()
  if require('agent.rpc').is_running() then require('agent.rpc').notify('close_plan') end
end

---@param model string "<provider id>/<model id>"
function M.set_model(model)
  if type(model) ~= 'string' or not model:find('/', 1, true) then
    vim.notify(string.format('agent: model must be "<provider id>/<model id>", got %q', tostring(model)), vim.log.levels.ERROR)
    return
  end
  H.state.model = model
  if package.loaded['agent.ui.status'] then require('agent.ui.status').render() end
end

--- Summarises older turns of the conversation now (it also happens on its own near the budget).
function M.compact()
  if not H.supported() then return end
  H.wire()
  require('agent.rpc').notify('compact', { id = H.next_request('compact') })
end

-- Sessions and checkpoints ------------------------------------------------------------------

--- Picks a saved session of this project and continues it.
function M.sessions()
  if not H.supported() then return end
  H.wire()
  require('agent.rpc').notify('list_sessions', { id = H.next_request('sessions') })
end

--- Continues a saved session: the given id, or the project's most recent one.
---@param id string|nil
function M.resume(id)
  if not H.supported() then return end
  if H.state.running then
    vim.notify('agent: a run is in progress; stop it before resuming', vim.log.levels.WARN)
    return
  end
  H.wire()
  H.state.session = id
  require('agent.ui.chat').open()
  require('agent.rpc').notify('resume', { id = H.next_request('resume'), session = id })
end

---@param title string
function M.rename(title)
  H.wire()
  require('agent.rpc').notify('rename_session', { title = title })
end

--- Exports the chat to Markdown: into `path`, or into a new buffer.
---@param path string|nil
function M.export(path)
  H.wire()
  local id = H.next_request('export')
  H.exports[id] = path or false
  require('agent.rpc').notify('export_session', { id = id })
end

--- Puts the files the last run changed back as they were (again for the run before it).
function M.undo()
  H.wire()
  require('agent.rpc').notify('undo', { id = H.next_request('undo'), force = false })
end

--- Re-applies what the last undo took back.
function M.redo()
  H.wire()
  require('agent.rpc').notify('redo', { id = H.next_request('redo'), force = false })
end

H.exports = {}

--- Writes this session's "always" answers into the project's `.agent/config.json` (kept, and
--- trusted again, so they apply in later sessions too).
function M.save_rules()
  H.wire()
  require('agent.rpc').notify('session_rules', { id = H.next_request('rules') })
end


--- A fresh id for a prompt or a request whose answer comes back as a dispatch.
function H.next_request(prefix)
  H.state.next_id = H.state.next_id + 1
  return prefix .. H.state.next_id
end


--- Opens the host's log (requests, tool calls, errors) in a split.
function M.log() vim.cmd.split(vim.fn.fnameescape(require('agent.rpc').log_path())) end

--- Deletes a saved session (its history and checkpoints).
---@param id string
function M.delete_session(id)
  vim.validate({ id = { id, 'string' } })
  H.wire()
  require('agent.rpc').notify('delete_session', { session = id })
end

function H.on_transcript(p)
  H.state.mode = p.mode
  if p.model and p.model ~= '' then H.state.model = p.model end
  require('agent.ui.chat').restore(p.entries)
  require('agent.ui.status').reset()
  require('agent.ui.status').render()
end



--- Turns auto-approval on or off: `'edits'` lets file edits through without asking (commands
--- still ask), `true` approves everything that no deny rule forbids.
---@param value false|'edits'|true
function M.set_auto_approve(value)
  if value ~= false and value ~= true and value ~= 'edits' then
    vim.notify('agent: auto_approve must be false|true|"edits"', vim.log.levels.ERROR)
    return
  end
  require('agent.config').current.auto_approve = value
  require('agent.rpc').reconfigure()
  if package.loaded['agent.ui.status'] then require('agent.ui.status').render() end
end

--- Lists the models the providers offer (asking their servers) and lets the user pick one.
function M.pick_model()
  if not H.supported() then return end
  H.wire()
  local id = H.next_request('models')
  H.model_requests[id] = true
  vim.notify('agent: asking the providers for their models...', vim.log.levels.INFO)
  require('agent.rpc').notify('list_models', { id = id })
end

H.model_requests = {}


---@return { mode: string, model: string|nil, running: boolean, host: 'stopped'|'starting'|'ready' }
function M.status()
  local cfg = require('agent.config').current
  local rpc = require('agent.rpc')
  local status = {
    mode = H.state.mode or cfg.mode,
    model = H.state.model or cfg.model or H.state.active_model,
    running = H.state.running ~= nil,
    host = rpc.is_ready() and 'ready' or (rpc.is_running() and 'starting' or 'stopped'),
  }
  -- The chat's winbar text, for statusline plugins (`tostring(status())` gives it too).
  status.text = require('agent.ui.status').text(status)
  return setmetatable(status, { __tostring = function(s) return s.text end })
end

--- The chat's status text for a 'statusline': `%{v:lua.require'agent'.statusline()}`.
---@return string
function M.statusline() return M.status().text end

-- Helpers ------------------------------------------------------------------------------------

--- The buffer the user was working in (not one of ours): what #buffer and #selection refer to.
function H.remember_origin()
  local buf = vim.api.nvim_get_current_buf()
  if not vim.startswith(vim.bo[buf].filetype, 'agent-') and vim.bo[buf].buftype == '' then H.state.origin_buf = buf end
end

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
  require('agent.ui.prompt').setup({ reopen_hint = ':Agent prompt' })
  local function cleared(p) return p.id ~= nil and H.state.cleared[p.id] == true end
  rpc.on('status', function(p)
    if cleared(p) then return end
    require('agent.ui.status').update(p)
    require('agent.ui.status').render()
  end)
  rpc.on('run_started', function(p)
    if not cleared(p) then
      H.state.active_model = p.model
      require('agent.ui.status').render()
      chat.begin_assistant(p.id, p.model)
    end
    events.fire('AgentRunStarted', { id = p.id, model = p.model, mode = M.status().mode })
  end)
  rpc.on('stream', function(p)
    if not cleared(p) then chat.stream(p.id, p.text, p.reasoning) end
  end)
  rpc.on('run_done', function(p) H.finish(p.id, p.outcome, p.error, p) end)
  rpc.on('notice', function(p) chat.notice(p.text, p.level) end)
  rpc.on('tool', function(p)
    if not cleared(p) then chat.tool(p) end
    local data = { id = p.id, call_id = p.call_id, tool = p.name, summary = p.summary, status = p.status }
    events.fire(p.status == 'running' and 'AgentToolStarted' or 'AgentToolDone', data)
  end)
  rpc.on('permission', function(p)
    H.state.permissions[p.id] = { summary = p.summary or p.tool, pattern = p.pattern or '' }
    events.fire('AgentPermissionAsked', { id = p.id, tool = p.tool, summary = p.summary, pattern = p.pattern })
    require('agent.ui.prompt').permission(p, function(decision) M.reply_permission(p.id, decision) end)
  end)
  rpc.on('ask_user', function(p)
    events.fire('AgentAskUser', { id = p.id, question = p.question, options = p.options })
    require('agent.ui.prompt').ask(p, function(reply) M.answer(p.id, reply) end)
  end)
  rpc.on('models', function(p)
    if not H.model_requests[p.id] then return end
    H.model_requests[p.id] = nil
    require('agent.ui.model-picker').pick(p, M.status().model, M.set_model)
  end)
  rpc.on('sessions', function(p)
    require('agent.ui.sessions').on_sessions(p, {
      resume = M.resume,
      delete = M.delete_session,
      next_request = H.next_request,
      exports = H.exports,
    })
  end)
  rpc.on('rules', function(p) require('agent.project-rules').on_rules(p) end)
  rpc.on('transcript', function(p) H.on_transcript(p) end)
  rpc.on('session_deleted', function(p)
    if not p.open then return end
    -- What the chat shows and the model would be sent belonged to the deleted session.
    M.clear()
    chat.notice('The open chat was deleted; this is a new one.', 'info')
  end)
  rpc.on('exported', function(p) require('agent.ui.sessions').on_exported(p, H.exports) end)
  rpc.on('restored', function(p) require('agent.ui.sessions').on_restored(p, H.next_request) end)
  rpc.on('activity', function(p)
    if cleared(p) then return end
    require('agent.ui.status').set_activity(p.text)
    require('agent.ui.status').render()
  end)
  rpc.on('prompt_cancel', function(p)
    H.state.permissions[p.id] = nil
    require('agent.ui.prompt').cancel(p.id)
  end)
  rpc.on('file_changed', function(p) require('agent.reload').file_changed(p.path) end)
  rpc.on('mode_changed', function(p)
    H.state.mode = p.mode
    require('agent.ui.status').render()
  end)
  rpc.on('plan_ready', function(p)
    local path = vim.fs.joinpath(require('agent.rpc').project_root(), p.path)
    events.fire('AgentPlanReady', { path = path })
    if cleared(p) then return end
    -- Scheduled so the run's completion entry is drawn before the preview takes focus.
    vim.schedule(function()
      require('agent.ui.plan').show(path, { on_build = M.build, on_close = M.close_plan })
    end)
  end)
  rpc.on('exit', function(p)
    vim.schedule(function() require('agent.ui.prompt').cancel_all() end)
    if H.state.running then
      -- Scheduled: on_exit runs in a fast event where buffers cannot be edited.
      local id = H.state.running
      local why = p and p.message and p.message:gsub('^agent: ', '') or 'the host exited during the run'
      vim.schedule(function() H.finish(id, 'failed', why, nil) end)
    end
  end)
end

function H.finish(id, outcome, err, completion)
  if H.state.running ~= id then return end
  H.state.running = nil
  local cleared = H.state.cleared[id]
  if completion and completion.session and not cleared then H.state.session = completion.session end
  local chat = require('agent.ui.chat')
  require('agent.ui.status').render()
  if not cleared then
    chat.end_run(id, outcome, err)
    if completion and completion.steps then chat.completion(completion) end
  end
  require('agent.events').fire('AgentRunDone', {
    id = id,
    -- A run the host did not end (it exited) belongs to the session of the runs before it.
    session = completion and completion.session or H.state.session,
    outcome = outcome,
    changed_files = completion and completion.changed_files or {},
    checks = completion and completion.checks or {},
    error = err,
  })
  local next_prompt = table.remove(H.state.queue, 1)
  if next_prompt and next_prompt.build and outcome ~= 'done' then
    -- The plan may not be whole, or the host is gone: the user decides again, also on what they
    -- queued to follow the build.
    local dropped = #H.state.queue > 0 and ', nor the messages queued after it' or ''
    H.state.queue = {}
    require('agent.ui.chat').notice(
      'The plan was not built' .. dropped .. ': the run before it did not finish. Build it with :Agent build.',
      'warn'
    )
  elseif next_prompt and next_prompt.build then
    M.build()
  elseif next_prompt then
    M.send(next_prompt.text, next_prompt.opts)
  end
end

--- `?` in the chat: keys, modes and commands in a float; `q`, `?` or <Esc> close it.
function H.show_help()
  local status = M.status()
  local lines = {
    'Modes (now: ' .. status.mode .. ')',
    '  ask    answers and explains; never changes files',
    '  plan   researches and writes a plan you can Build',
    '  agent  edits files and runs commands, with your permission',
    '',
    'Input',
    '  <CR> (Normal), <C-CR> or <C-s> (Insert)   send (queued while a run streams)',
    '  @path  @path:10-20  #buffer  #selection  #diagnostics  #quickfix   attach context',
    '  <C-x><C-o>                                  complete them',
    '',
    'Chat',
    '  i  type    q  close    za  open a tool call (on its header) or the reasoning',
    '  <CR>  open the file under the cursor    Q  changed files to quickfix',
    '',
    'Prompts',
    '  permission  o once   a always   d/Esc deny   r deny with a reason',
    '  question    1-9/<CR> pick   i type   q/Esc dismiss (the model is told)',
    '              <C-w>c hide, :Agent prompt shows it again',
    '  plan        b build   c/q/Esc close',
    '',
    'Commands',
    '  :Agent mode | model | approve off|edits|all | stop | clear | compact',
    '  :Agent build | prompt | sessions | resume | rename | export | undo | redo',
    '  :Agent save_rules | log              :help agent',
  }
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, vim.o.columns - 4)
  local height = math.min(#lines, vim.o.lines - 4)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    border = 'rounded',
    style = 'minimal',
    title = ' agent.nvim ',
    title_pos = 'center',
  })
  for _, key in ipairs({ 'q', '?', '<Esc>' }) do
    vim.keymap.set('n', key, function() pcall(vim.api.nvim_win_close, win, true) end, { buffer = buf, desc = 'agent: close the help' })
  end
end

--- Maps the toggle key from the config (false removes it). The default key goes only where the
--- user has no mapping of their own; a key the user named in `keys` is theirs to give.
---@param keys { toggle: string|false }
---@param named boolean whether the user's options named the toggle key
function H.apply_keys(keys, named)
  local function ours(lhs)
    local map = vim.fn.maparg(lhs, 'n', false, true)
    return vim.tbl_isempty(map) or map.rhs == '<Plug>(AgentToggle)'
  end
  if vim.g.agent_toggle_key then
    if ours(vim.g.agent_toggle_key) then pcall(vim.keymap.del, 'n', vim.g.agent_toggle_key) end
    vim.g.agent_toggle_key = nil
  end
  if keys.toggle and (named or ours(keys.toggle)) then
    vim.keymap.set('n', keys.toggle, '<Plug>(AgentToggle)', { desc = 'agent: toggle the chat' })
    vim.g.agent_toggle_key = keys.toggle
  end
end

return M
