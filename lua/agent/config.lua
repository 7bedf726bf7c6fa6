--- Defaults and validation of `require('agent').setup()` options.
--- One schema drives both: every option has a default, an expected type and a line for `:help`.
local M = {}
local H = {}

M.provider_types = {
  'openai',
  'anthropic',
  'openrouter',
  'ollama',
  'vllm',
  'lmstudio',
  'llamacpp',
  'openai_compatible',
}

---@class agent.WindowConfig
---@field layout 'split'|'float'
---@field side 'right'|'left'|'top'|'bottom'
---@field width number  columns, or a fraction of the editor when < 1
---@field height number rows, or a fraction of the editor when < 1 (top/bottom splits and floats)
---@field input_height integer rows of the input area

---@class agent.Config
---@field providers table<string, table>
---@field model string|nil  "<provider id>/<model id>"
---@field mode 'ask'|'plan'|'agent'
---@field permissions table[]
---@field auto_approve boolean|'edits'
---@field keys { toggle: string|false }
---@field node string|nil  Node binary for the host (else g:agent_node, else "node")
---@field host 'job'|'rplugin'
---@field window agent.WindowConfig
---@field log_level 'debug'|'info'|'warn'|'error'
---@field max_steps integer model requests one prompt may take
---@field context_budget integer|nil input-context budget in tokens (default: 80% of the model's window, else 32768)
---@field keep_turns integer completed turns kept verbatim when older ones are summarised
---@field titles 'model'|'heuristic' session titles: refined by the model after the first turn, or only from the first prompt
M.defaults = {
  providers = {},
  model = nil,
  mode = 'ask',
  permissions = {},
  auto_approve = false,
  keys = { toggle = '<C-M-a>' },
  node = nil,
  host = 'job',
  window = { layout = 'split', side = 'right', width = 0.4, height = 0.8, input_height = 5 },
  log_level = 'info',
  max_steps = 50,
  context_budget = nil,
  keep_turns = 2,
  titles = 'model',
}

-- Each entry: expected type(s), and for strings an optional set of allowed values.
H.schema = {
  providers = { types = { 'table' } },
  model = { types = { 'string', 'nil' } },
  mode = { types = { 'string' }, one_of = { 'ask', 'plan', 'agent' } },
  permissions = { types = { 'table' } },
  auto_approve = { types = { 'boolean', 'string' }, one_of = { 'edits' } },
  keys = { types = { 'table' } },
  ['keys.toggle'] = { types = { 'string', 'false' } },
  node = { types = { 'string', 'nil' } },
  host = { types = { 'string' }, one_of = { 'job', 'rplugin' } },
  window = { types = { 'table' } },
  ['window.layout'] = { types = { 'string' }, one_of = { 'split', 'float' } },
  ['window.side'] = { types = { 'string' }, one_of = { 'right', 'left', 'top', 'bottom' } },
  ['window.width'] = { types = { 'number' } },
  ['window.height'] = { types = { 'number' } },
  ['window.input_height'] = { types = { 'number' } },
  log_level = { types = { 'string' }, one_of = { 'debug', 'info', 'warn', 'error' } },
  max_steps = { types = { 'number' } },
  context_budget = { types = { 'number', 'nil' } },
  keep_turns = { types = { 'number' } },
  titles = { types = { 'string' }, one_of = { 'model', 'heuristic' } },
}

H.provider_schema = {
  type = { types = { 'string' }, one_of = M.provider_types },
  base_url = { types = { 'string', 'nil' } },
  api_key = { types = { 'string', 'nil' } },
  api_key_cmd = { types = { 'table', 'string', 'nil' } },
  models = { types = { 'table', 'nil' } },
  headers = { types = { 'table', 'nil' } },
  context_window = { types = { 'number', 'table', 'nil' } },
  pricing = { types = { 'table', 'nil' } },
  default_model = { types = { 'string', 'nil' } },
  text_tools = { types = { 'boolean', 'table', 'nil' } },
  api = { types = { 'string', 'nil' }, one_of = { 'chat', 'responses' } },
  timeout = { types = { 'number', 'nil' } },
  max_retries = { types = { 'number', 'nil' } },
}

---@param value any
---@param types string[]
---@return boolean
function H.type_matches(value, types)
  for _, t in ipairs(types) do
    if t == 'false' and value == false then return true end
    if t ~= 'false' and type(value) == t then
      if not (t == 'boolean' and vim.tbl_contains(types, 'false') and value == true) then return true end
    end
  end
  return false
end

---@return string|nil error
function H.check(path, value, rule)
  if not H.type_matches(value, rule.types) then
    return string.format('agent: %s must be %s, got %s', path, table.concat(rule.types, '|'), type(value))
  end
  if rule.one_of and type(value) == 'string' and not vim.tbl_contains(rule.one_of, value) then
    return string.format('agent: %s must be one of %s, got %q', path, table.concat(rule.one_of, '|'), value)
  end
end

--- Validates user options. Returns the merged config, or nil and the first error (one message
--- naming the dotted path and the expected type).
---@param opts table|nil
---@return agent.Config|nil, string|nil
function M.resolve(opts)
  if opts == nil then opts = {} end
  if type(opts) ~= 'table' then return nil, 'agent: setup() takes a table, got ' .. type(opts) end
  for key, value in pairs(opts) do
    local rule = H.schema[key]
    if not rule then return nil, string.format('agent: unknown option %q', tostring(key)) end
    local err = H.check(key, value, rule)
    if err then return nil, err end
    if type(value) == 'table' and (key == 'keys' or key == 'window') then
      for sub, subvalue in pairs(value) do
        local path = key .. '.' .. tostring(sub)
        local subrule = H.schema[path]
        if not subrule then return nil, string.format('agent: unknown option %q', path) end
        err = H.check(path, subvalue, subrule)
        if err then return nil, err end
      end
    end
  end
  for id, provider in pairs(opts.providers or {}) do
    local path = 'providers.' .. tostring(id)
    if type(provider) ~= 'table' then return nil, string.format('agent: %s must be table, got %s', path, type(provider)) end
    for field, value in pairs(provider) do
      local rule = H.provider_schema[field]
      if not rule then return nil, string.format('agent: unknown option %q', path .. '.' .. tostring(field)) end
      local err = H.check(path .. '.' .. field, value, rule)
      if err then return nil, err end
    end
    if provider.type == nil then
      return nil, string.format('agent: %s.type must be one of %s', path, table.concat(M.provider_types, '|'))
    end
  end
  if opts.model ~= nil and not opts.model:find('/', 1, true) then
    return nil, string.format('agent: model must be "<provider id>/<model id>", got %q', opts.model)
  end
  return vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts), nil
end

--- Model ids a provider entry names: `models` is a list of ids or a table keyed by id.
---@param provider table
---@return string[]
function M.provider_models(provider)
  local out = {}
  if type(provider.models) == 'table' then
    if vim.islist(provider.models) then
      vim.list_extend(out, provider.models)
    else
      out = vim.tbl_keys(provider.models)
    end
  end
  if provider.default_model and not vim.tbl_contains(out, provider.default_model) then table.insert(out, provider.default_model) end
  table.sort(out)
  return out
end

---@type agent.Config
M.current = vim.deepcopy(M.defaults)

return M
