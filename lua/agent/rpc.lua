--- The channel to the Node host: started lazily, calls queued until it is ready, one dispatcher for
--- everything the host sends, and a fresh host after a crash.
local M = {}
local H = {}

--- Must equal PROTOCOL_VERSION in src/rpc/protocol.ts: a host from another build is refused.
M.PROTOCOL = 2

H.root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')

H.state = {
  chan = nil, ---@type integer|nil
  job = nil, ---@type integer|nil
  ready = false,
  queue = {}, ---@type { kind: 'notify'|'request', method: string, payload: table, cb?: fun(err: any, result: any) }[]
  stopping = false,
  info = nil, ---@type table|nil  payload of the host's `ready`
  stderr = {},
}

---@type table<string, fun(payload: table)>
H.handlers = {}

---@return string
function M.root() return H.root end

---@return string path of the host's log file
function M.log_path()
  local ok, dir = pcall(vim.fn.stdpath, 'log')
  if not ok or type(dir) ~= 'string' then dir = vim.fn.stdpath('cache') end
  return dir .. '/agent.log'
end

---@return string
function M.bundle_path() return H.root .. '/dist/host.cjs' end

---@return string
function M.node_binary()
  local cfg = require('agent.config').current
  return cfg.node or vim.g.agent_node or 'node'
end

--- Registers the handler for one host->Lua method.
---@param method string
---@param fn fun(payload: table)
function M.on(method, fn) H.handlers[method] = fn end

--- The one entry point for host->Lua calls (`nvim_exec_lua` from the host).
---@param method string
---@param payload table
function M.dispatch(method, payload)
  if method == 'ready' then return H.on_ready(payload) end
  local handler = H.handlers[method]
  if handler then
    local ok, err = pcall(handler, payload)
    if not ok then vim.notify('agent: ' .. tostring(err), vim.log.levels.ERROR) end
  end
end

---@return boolean
function M.is_running() return H.state.job ~= nil end

---@return boolean
function M.is_ready() return H.state.ready end

---@return table|nil
function M.host_info() return H.state.info end

--- Sends a notification, starting the host first if needed.
---@param method string
---@param payload table|nil
function M.notify(method, payload)
  payload = payload or vim.empty_dict()
  if H.state.ready then return H.send(method, payload) end
  table.insert(H.state.queue, { kind = 'notify', method = method, payload = payload })
  M.start()
end

--- A quick query answered from the host's memory. Never blocks before the host is ready:
--- the callback runs once it is.
---@param method string
---@param payload table|nil
---@param cb fun(err: any, result: any)
function M.request(method, payload, cb)
  payload = payload or vim.empty_dict()
  if H.state.ready then return H.do_request(method, payload, cb) end
  table.insert(H.state.queue, { kind = 'request', method = method, payload = payload, cb = cb })
  M.start()
end

--- Starts the host in the background if it is not running. Returns false with a message shown
--- when it cannot start.
---@return boolean
function M.start()
  if H.state.job then return true end
  if require('agent.config').current.host == 'rplugin' then return H.start_rplugin() end
  local bundle = M.bundle_path()
  if vim.fn.filereadable(bundle) == 0 then
    H.fail(
      string.format(
        'agent: the host is not built. Run `npm ci && npm run build` in %s (with lazy.nvim: :Lazy build agent.nvim)',
        H.root
      )
    )
    return false
  end
  local node = M.node_binary()
  if vim.fn.executable(node) == 0 then
    H.fail(string.format('agent: Node.js not found (%q); install Node 20.3+ or set g:agent_node', node))
    return false
  end
  local cfg = require('agent.config').current
  H.state.stopping = false
  H.state.stderr = {}
  local ok, job = pcall(vim.fn.jobstart, { node, bundle }, {
    rpc = true,
    cwd = vim.fn.getcwd(),
    env = { AGENT_NVIM_LOG = M.log_path(), AGENT_NVIM_LOG_LEVEL = cfg.log_level },
    on_stderr = function(_, data)
      for _, line in ipairs(data or {}) do
        if line ~= '' and #H.state.stderr < 50 then table.insert(H.state.stderr, line) end
      end
    end,
    on_exit = function(_, code) H.on_exit(code) end,
  })
  if not ok or job <= 0 then
    H.fail(string.format('agent: could not start the host with %q: %s', node, tostring(job)))
    return false
  end
  H.state.job = job
  H.state.chan = job
  -- A host that never says it is ready (a node wrapper that prints to stdout, a hang) must not
  -- leave every command queued behind it.
  vim.defer_fn(function()
    if H.state.job ~= job or H.state.ready then return end
    M.stop()
    local said = H.state.stderr[1] and (': ' .. H.state.stderr[1]) or ''
    H.fail(string.format('agent: the host did not start within %g s%s. Log: %s', M.ready_timeout_ms / 1000, said, M.log_path()))
  end, M.ready_timeout_ms)
  return true
end

--- How long the host may take to start (a cold start takes well under a second).
M.ready_timeout_ms = 15000

--- Stops the host (used on :qa and by tests); queued calls are dropped.
function M.stop()
  if not H.state.job then return end
  if H.state.job == 'rplugin' then return end
  H.state.stopping = true
  pcall(vim.fn.jobstop, H.state.job)
end

-- Helpers ------------------------------------------------------------------------------------

--- The classic route: Neovim's global node host runs rplugin/node/agent.nvim, which registered
--- AgentRequest/AgentNotify (after :UpdateRemotePlugins). Same dispatcher, other transport.
function H.start_rplugin()
  -- Remote functions are defined on first call through a FuncUndefined autocmd.
  if vim.fn.exists('*AgentRequest') == 0 and vim.fn.exists('#FuncUndefined#AgentRequest') == 0 then
    H.fail('agent: host = "rplugin" needs :UpdateRemotePlugins (and a restart) with the neovim npm package installed globally')
    return false
  end
  H.state.job = 'rplugin'
  vim.schedule(function()
    -- Starts the remote host if needed; it answers by dispatching `ready`.
    local hello = { log = M.log_path(), log_level = require('agent.config').current.log_level }
    local ok, err = pcall(vim.fn.AgentRequest, 'hello', hello)
    if not ok then
      H.state.job = nil
      H.fail('agent: the remote plugin failed to start: ' .. tostring(err))
    end
  end)
  return true
end

function H.send(method, payload)
  if H.state.job == 'rplugin' then return vim.fn.AgentNotify(method, payload) end
  return vim.rpcnotify(H.state.chan, method, payload)
end

function H.do_request(method, payload, cb)
  local ok, result
  if H.state.job == 'rplugin' then
    ok, result = pcall(vim.fn.AgentRequest, method, payload)
  else
    ok, result = pcall(vim.rpcrequest, H.state.chan, method, payload)
  end
  if cb then
    if ok then
      cb(nil, result)
    else
      cb(result, nil)
    end
  end
end

function H.on_ready(info)
  if info.protocol ~= M.PROTOCOL then
    H.fail(
      string.format(
        'agent: the host was built from another version (protocol %s, plugin %s). Run `npm run build` in %s',
        tostring(info.protocol),
        M.PROTOCOL,
        H.root
      )
    )
    M.stop()
    return
  end
  H.state.info = info
  H.state.ready = true
  -- Flushing runs after this dispatch returns: the host is waiting on it.
  vim.schedule(function()
    if not H.state.ready then return end
    H.send('configure', { protocol = M.PROTOCOL, config = H.host_config() })
    local queue = H.state.queue
    H.state.queue = {}
    for _, item in ipairs(queue) do
      if item.kind == 'notify' then
        H.send(item.method, item.payload)
      else
        H.do_request(item.method, item.payload, item.cb)
      end
    end
    local handler = H.handlers.ready
    if handler then handler(info) end
  end)
end

--- `.agent/config.json` of the project, only when the user trusts it (vim.secure.read asks once).
function H.project_config()
  local path = vim.fn.getcwd() .. '/.agent/config.json'
  if vim.fn.filereadable(path) == 0 then return nil end
  local ok, content = pcall(vim.secure.read, path)
  if not ok or not content then return nil end
  local decoded_ok, decoded = pcall(vim.json.decode, content)
  if not decoded_ok or type(decoded) ~= 'table' then
    vim.schedule(function() vim.notify('agent: .agent/config.json is not valid JSON; ignored', vim.log.levels.WARN) end)
    return nil
  end
  return decoded
end

--- The part of the user's config the host needs (providers, model, mode, permissions ...).
function H.host_config()
  local cfg = require('agent.config').current
  -- The host takes this folder as the project; the paths it sends are relative to it.
  H.state.project = vim.fn.getcwd()
  return {
    project = H.project_config(),
    data_dir = vim.fn.stdpath('data') .. '/agent',
    providers = next(cfg.providers) and cfg.providers or vim.empty_dict(),
    model = cfg.model,
    mode = cfg.mode,
    permissions = cfg.permissions,
    auto_approve = cfg.auto_approve,
    max_steps = cfg.max_steps,
    context_budget = cfg.context_budget,
    keep_turns = cfg.keep_turns,
    titles = cfg.titles,
    cwd = H.state.project,
  }
end

--- The folder the host works in (the paths it sends are relative to it), though the user may
--- have changed Neovim's current directory since.
---@return string
function M.project_root() return H.state.project or vim.fn.getcwd() end

--- Sends the current config again (after setup() is called with the host running).
function M.reconfigure()
  if H.state.ready then H.send('configure', { protocol = M.PROTOCOL, config = H.host_config() }) end
end

function H.on_exit(code)
  local deliberate = H.state.stopping or vim.v.exiting ~= vim.NIL
  local pending = H.state.queue
  H.state.job, H.state.chan, H.state.ready, H.state.info = nil, nil, false, nil
  H.state.queue = {}
  if deliberate then return end
  -- Whatever node printed before dying goes to the log, so the one message can point there.
  local log = M.log_path()
  if #H.state.stderr > 0 then
    pcall(vim.fn.writefile, vim.list_extend({ os.date('%Y-%m-%dT%H:%M:%S') .. ' host stderr:' }, H.state.stderr), log, 'a')
  end
  -- The host's own reason, when it gave one before exiting (e.g. a Node.js too old).
  local reason
  for _, line in ipairs(H.state.stderr) do
    reason = reason or line:match('^agent: .*')
  end
  H.abandon(pending, 'the host exited', { code = code, message = reason })
  vim.schedule(function()
    vim.notify(
      reason or string.format('agent: the host exited (code %d); the next command starts a new one. Log: %s', code, log),
      vim.log.levels.ERROR
    )
  end)
end

--- The host could not start (or was refused): what waited for it fails, and a run the chat
--- started ends, so the next command tries again instead of queueing behind it.
function H.fail(msg)
  local pending = H.state.queue
  H.state.queue = {}
  H.abandon(pending, msg, { message = msg })
  vim.schedule(function() vim.notify(msg, vim.log.levels.ERROR) end)
end

--- The host is gone or never came: the calls that waited for it fail with `err`, and the chat
--- hears of it (`exit` handler: it ends the run that waited).
---@param pending table[] the queued calls
---@param err string
---@param exit { code?: integer, message?: string }
function H.abandon(pending, err, exit)
  for _, item in ipairs(pending) do
    if item.cb then pcall(item.cb, err, nil) end
  end
  local handler = H.handlers.exit
  if handler then pcall(handler, exit) end
end

return M
