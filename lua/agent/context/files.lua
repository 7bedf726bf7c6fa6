--- The project's file list for `@` completion. Computed off the main loop (`rg --files`, else
--- `git ls-files`, else a sliced `vim.fs.dir` walk) and cached per cwd for a few seconds, so a
--- completion request never waits for it: it gets the cached (maybe stale) list or nothing yet.
local M = {}
local H = {}

--- A cached list younger than this is served without starting a refresh.
M.ttl_ms = 5000
--- More files than this are not collected (huge monorepos): completion stays responsive.
M.max_files = 50000

---@class agent.context.FileCache
---@field files string[]|nil the last complete list, relative to the cwd, '/'-separated
---@field time number when `files` was produced (ms, monotonic)
---@field running boolean a refresh is in flight
---@field waiters fun(files: string[])[]
---@field truncated boolean|nil the list stopped at `M.max_files`

---@type table<string, agent.context.FileCache>
H.cache = {}

--- The cached file list of `cwd` (default: the current directory). Starts a refresh when there is
--- none or it is older than `M.ttl_ms`; `on_ready` then runs (scheduled, on the main loop) with the
--- new list. Never blocks.
---@param cwd? string
---@param on_ready? fun(files: string[])
---@return string[]|nil files nil while the first list is being computed
function M.get(cwd, on_ready)
  cwd = H.key(cwd)
  local entry = H.cache[cwd]
  if not entry then
    entry = { time = 0, running = false, waiters = {} }
    H.cache[cwd] = entry
  end
  local fresh = entry.files ~= nil and (H.now() - entry.time) < M.ttl_ms
  if not fresh then
    if on_ready then table.insert(entry.waiters, on_ready) end
    if not entry.running then H.refresh(cwd, entry) end
  end
  return entry.files
end

--- True while a list for `cwd` is being computed.
---@param cwd? string
---@return boolean
function M.pending(cwd)
  local entry = H.cache[H.key(cwd)]
  return entry ~= nil and entry.running
end

--- Forgets the cached list of `cwd` (all cwds when nil); the next `get` recomputes it.
---@param cwd? string
function M.invalidate(cwd)
  if cwd == nil then
    for _, entry in pairs(H.cache) do
      entry.time = 0
    end
    return
  end
  local entry = H.cache[H.key(cwd)]
  if entry then entry.time = 0 end
end

-- Helpers ------------------------------------------------------------------------------------

function H.key(cwd) return vim.fs.normalize(cwd or vim.fn.getcwd()) end

function H.now() return vim.uv.hrtime() / 1e6 end

--- The listers in order of preference; each reports `nil` when it cannot run here.
function H.refresh(cwd, entry)
  entry.running = true
  local strategies = { H.list_rg, H.list_git, H.list_walk }
  local function try(i)
    local started = strategies[i](cwd, function(files, truncated)
      if files == nil then return vim.schedule(function() try(i + 1) end) end
      vim.schedule(function() H.finish(entry, files, truncated) end)
    end)
    if not started then try(i + 1) end
  end
  try(1)
end

function H.finish(entry, files, truncated)
  entry.files, entry.truncated = files, truncated
  entry.time = H.now()
  entry.running = false
  local waiters = entry.waiters
  entry.waiters = {}
  for _, fn in ipairs(waiters) do
    pcall(fn, files)
  end
end

--- Runs a lister command, collecting stdout line by line as it streams (so no single callback
--- splits a huge buffer) and stopping at `M.max_files`.
---@param ok_codes table<integer, boolean> exit codes that mean "this is the list"
function H.run(cmd, cwd, ok_codes, done)
  local files, partial, truncated = {}, '', false
  local proc
  local function on_stdout(_, data)
    if not data or truncated then return end
    local chunk = partial .. data
    local from = 1
    while true do
      local nl = chunk:find('\n', from, true)
      if not nl then break end
      local line = chunk:sub(from, nl - 1):gsub('\r$', '')
      if line ~= '' then
        files[#files + 1] = line:gsub('^%./', '')
        if #files >= M.max_files then
          truncated = true
          if proc then pcall(proc.kill, proc, 15) end
          break
        end
      end
      from = nl + 1
    end
    partial = chunk:sub(from)
  end
  local ok, obj = pcall(vim.system, cmd, { cwd = cwd, text = true, stdout = on_stdout, stderr = false }, function(res)
    if truncated then return done(files, true) end
    if partial ~= '' then files[#files + 1] = partial:gsub('^%./', '') end
    if not ok_codes[res.code] then return done(nil) end
    done(files, false)
  end)
  if not ok then return false end
  proc = obj
  return true
end

function H.list_rg(cwd, done)
  if vim.fn.executable('rg') ~= 1 then return false end
  -- Hidden files count (.github/...), .git does not; .gitignore applies even outside a repository.
  local cmd = { 'rg', '--files', '--hidden', '--no-require-git', '--glob', '!.git', '--sort', 'path' }
  -- rg exits 1 when there is no file at all: that is an empty project, not a failure.
  return H.run(cmd, cwd, { [0] = true, [1] = true }, done)
end

function H.list_git(cwd, done)
  if vim.fn.executable('git') ~= 1 then return false end
  local cmd = { 'git', 'ls-files', '--cached', '--others', '--exclude-standard', '--deduplicate' }
  return H.run(cmd, cwd, { [0] = true }, function(files, truncated)
    if files then table.sort(files) end
    done(files, truncated)
  end)
end

H.walk_skip = { ['.git'] = true, node_modules = true, ['.hg'] = true, ['.svn'] = true }
H.walk_slice = 500

--- Without rg or git: walks the tree a slice per tick so the main loop keeps running.
function H.list_walk(cwd, done)
  local iter = vim.fs.dir(cwd, {
    depth = 32,
    skip = function(name) return not H.walk_skip[name] end,
  })
  local files = {}
  local function step()
    for _ = 1, H.walk_slice do
      local name, kind = iter()
      if name == nil then
        table.sort(files)
        return done(files, false)
      end
      if kind == 'file' or kind == 'link' then
        files[#files + 1] = name
        if #files >= M.max_files then
          table.sort(files)
          return done(files, true)
        end
      end
    end
    vim.schedule(step)
  end
  vim.schedule(step)
  return true
end

return M
