--- `:checkhealth agent`: only checks that can really fail, each with the fix.
local M = {}
local H = {}

H.key_env = {
  openai = 'OPENAI_API_KEY',
  anthropic = 'ANTHROPIC_API_KEY',
  openrouter = 'OPENROUTER_API_KEY',
}
-- Local servers run without a key.
H.keyless = { ollama = true, vllm = true, lmstudio = true, llamacpp = true }

function M.check()
  local health = vim.health
  local rpc = require('agent.rpc')

  health.start('agent.nvim: editor and runtime')
  local v = vim.version()
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  else
    health.error(string.format('Neovim %d.%d.%d is too old', v.major, v.minor, v.patch), 'Install Neovim 0.10 or newer')
  end

  local node = rpc.node_binary()
  local node_ok = false
  if vim.fn.executable(node) == 0 then
    health.error(string.format('Node.js not found (%q)', node), 'Install Node.js 20+ or set g:agent_node / setup({ node = ... })')
  else
    local out = vim.system({ node, '--version' }, { text = true }):wait(5000)
    local major, minor = (out.stdout or ''):match('^v(%d+)%.(%d+)')
    major, minor = tonumber(major), tonumber(minor)
    if major and (major > 20 or major == 20 and minor >= 3) then
      node_ok = true
      health.ok(string.format('Node.js %s (%s)', vim.trim(out.stdout), node))
    else
      health.error(
        string.format('Node.js %s is too old (%s)', vim.trim(out.stdout or '?'), node),
        'Install Node.js 20.3 or newer, or point g:agent_node at it'
      )
    end
  end

  health.start('agent.nvim: host')
  local bundle = rpc.bundle_path()
  local bundle_ok = false
  if vim.fn.filereadable(bundle) == 0 then
    health.error('dist/host.cjs is not built', string.format('Run `npm ci && npm run build` in %s', rpc.root()))
  else
    local stale = H.newer_source(rpc.root(), vim.fn.getftime(bundle))
    if stale then
      health.warn(
        string.format('dist/host.cjs is older than %s', stale),
        string.format('Run `npm run build` in %s', rpc.root())
      )
    else
      health.ok('dist/host.cjs is built and current')
    end
    bundle_ok = true
  end
  if node_ok and bundle_ok then H.ping(rpc) end

  health.start('agent.nvim: providers')
  H.providers()

  health.start('agent.nvim: tools')
  for _, tool in ipairs({ { 'git', 'git tools and change tracking' }, { 'rg', 'fast code search (a slower built-in search is used without it)' } }) do
    if vim.fn.executable(tool[1]) == 1 then
      health.ok(string.format('%s found', tool[1]))
    else
      health.warn(string.format('%s not found: needed for %s', tool[1], tool[2]), 'Install it with your package manager')
    end
  end
end

--- The first source file newer than the bundle, if any (a checkout updated without a rebuild).
function H.newer_source(root, built)
  for _, dir in ipairs({ 'src' }) do
    for name, kind in vim.fs.dir(root .. '/' .. dir, { depth = 10 }) do
      local path = root .. '/' .. dir .. '/' .. name
      if kind == 'file' and vim.fn.getftime(path) > built then return dir .. '/' .. name end
    end
  end
end

function H.ping(rpc)
  local result, err
  local done = false
  rpc.request('ping', {}, function(e, r)
    err, result, done = e, r, true
  end)
  vim.wait(10000, function() return done end, 20)
  if not done then
    vim.health.error('the host did not answer a ping within 10 s', 'See the log: ' .. rpc.log_path())
  elseif err then
    vim.health.error('the host failed: ' .. tostring(err), 'See the log: ' .. rpc.log_path())
  elseif result and result.pong then
    vim.health.ok(string.format('host answers (pid %d, version %s)', result.pid, tostring(result.version)))
  end
end

function H.providers()
  local cfg = require('agent.config').current
  if next(cfg.providers) == nil then
    local found = {}
    for _, name in pairs(H.key_env) do
      if (vim.env[name] or '') ~= '' then table.insert(found, name) end
    end
    table.sort(found)
    if #found > 0 then
      vim.health.ok('no providers configured; found ' .. table.concat(found, ', ') .. ' in the environment')
    else
      vim.health.warn(
        'no providers configured and no API key in the environment',
        'Set ANTHROPIC_API_KEY or OPENAI_API_KEY, run a local Ollama/llama.cpp/LM Studio server, or configure providers in setup()'
      )
    end
    return
  end
  for id, p in pairs(cfg.providers) do
    local env_name = H.key_env[p.type]
    if p.api_key and p.api_key ~= '' then
      vim.health.ok(string.format('%s (%s): key set in setup()', id, p.type))
    elseif p.api_key_cmd then
      vim.health.ok(string.format('%s (%s): key from api_key_cmd', id, p.type))
    elseif env_name and (vim.env[env_name] or '') ~= '' then
      vim.health.ok(string.format('%s (%s): key from %s', id, p.type, env_name))
    elseif H.keyless[p.type] or (p.type == 'openai_compatible' and p.base_url) then
      vim.health.ok(string.format('%s (%s): no key needed%s', id, p.type, p.base_url and (' at ' .. p.base_url) or ''))
    else
      vim.health.error(
        string.format('%s (%s): no API key', id, p.type),
        env_name and ('Set ' .. env_name .. ', api_key or api_key_cmd') or 'Set api_key or api_key_cmd'
      )
    end
  end
end

return M
