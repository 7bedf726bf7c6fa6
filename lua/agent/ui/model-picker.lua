--- The model picker: the models the providers' servers offer, plus the configured ones.
local M = {}

---@param p { models: { ref: string, context_window: integer }[] }
---@param current string|nil
---@param on_choice fun(ref: string)
function M.pick(p, current, on_choice)
  local refs = {}
  local context = {}
  for _, m in ipairs(p.models or {}) do
    table.insert(refs, m.ref)
    context[m.ref] = m.context_window
  end
  local config = require('agent.config')
  for id, provider in pairs(config.current.providers) do
    for _, model in ipairs(config.provider_models(provider)) do
      local ref = id .. '/' .. model
      if context[ref] == nil then
        table.insert(refs, ref)
        context[ref] = 0
      end
    end
  end
  if #refs == 0 then
    vim.notify('agent: no models found; check :checkhealth agent', vim.log.levels.WARN)
    return
  end
  table.sort(refs)
  vim.ui.select(refs, {
    prompt = 'Model (now ' .. tostring(current or 'none') .. ')',
    format_item = function(ref)
      local ctx = context[ref]
      return ctx and ctx > 0 and string.format('%s  (%dk context)', ref, math.floor(ctx / 1000)) or ref
    end,
  }, function(choice)
    if choice then on_choice(choice) end
  end)
end

return M
