--- `:Agent {subcommand} ...`: one command with completion, mirroring the Lua API.
local M = {}

---@type table<string, { run: fun(args: string[]), complete?: fun(arglead: string): string[] }>
M.subcommands = {
  mode = {
    run = function(args)
      if not args[1] then
        local current = require('agent').status().mode
        vim.ui.select({ 'ask', 'plan', 'agent' }, {
          prompt = 'Mode (now ' .. current .. ')',
          format_item = function(m)
            return ({
              ask = 'ask    answer and explain; never changes files',
              plan = 'plan   research and write a plan to build',
              agent = 'agent  edit files and run commands, with your permission',
            })[m]
          end,
        }, function(choice)
          if choice then require('agent').set_mode(choice) end
        end)
      else
        require('agent').set_mode(args[1])
      end
    end,
    complete = function() return { 'ask', 'plan', 'agent' } end,
  },
  model = {
    run = function(args)
      if not args[1] then
        require('agent').pick_model()
      else
        require('agent').set_model(args[1])
      end
    end,
    complete = function()
      local out = {}
      local config = require('agent.config')
      for id, provider in pairs(config.current.providers) do
        for _, model in ipairs(config.provider_models(provider)) do
          table.insert(out, id .. '/' .. model)
        end
      end
      table.sort(out)
      return out
    end,
  },
  approve = {
    run = function(args)
      local map = { off = false, edits = 'edits', all = true }
      if args[1] == nil or map[args[1]] == nil then
        vim.notify('agent: :Agent approve off|edits|all', vim.log.levels.ERROR)
        return
      end
      require('agent').set_auto_approve(map[args[1]])
    end,
    complete = function() return { 'off', 'edits', 'all' } end,
  },
  sessions = { run = function() require('agent').sessions() end },
  save_rules = { run = function() require('agent').save_rules() end },
  resume = { run = function(args) require('agent').resume(args[1]) end },
  rename = {
    run = function(args)
      if #args == 0 then
        vim.notify('agent: :Agent rename {title}', vim.log.levels.ERROR)
        return
      end
      require('agent').rename(table.concat(args, ' '))
    end,
  },
  export = { run = function(args) require('agent').export(args[1]) end, complete = function(arglead) return vim.fn.getcompletion(arglead, 'file') end },
  undo = { run = function() require('agent').undo() end },
  redo = { run = function() require('agent').redo() end },
  stop = { run = function() require('agent').stop() end },
  build = { run = function() require('agent').build() end },
  compact = { run = function() require('agent').compact() end },
  prompt = { run = function() require('agent.ui.prompt').reopen() end },
  clear = { run = function() require('agent').clear() end },
  log = { run = function() require('agent').log() end },
}

---@param fargs string[]
function M.run(fargs)
  local name = fargs[1]
  local sub = M.subcommands[name]
  if not sub then
    local names = vim.tbl_keys(M.subcommands)
    table.sort(names)
    vim.notify(
      string.format('agent: unknown subcommand %q; use one of %s', tostring(name), table.concat(names, ', ')),
      vim.log.levels.ERROR
    )
    return
  end
  sub.run(vim.list_slice(fargs, 2))
end

---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, '%s+', { trimempty = true })
  -- From the command's own name on (`:silent Agent ...`, `:vert Agent ...`).
  for i, word in ipairs(words) do
    if word:match('^:*Agent!?$') then
      words = vim.list_slice(words, i)
      break
    end
  end
  local completing_sub = #words == 1 or (#words == 2 and arglead ~= '')
  local candidates
  if completing_sub then
    candidates = vim.tbl_keys(M.subcommands)
    table.sort(candidates)
  else
    local sub = M.subcommands[words[2]]
    candidates = sub and sub.complete and sub.complete(arglead) or {}
  end
  return vim.tbl_filter(function(c) return vim.startswith(c, arglead) end, candidates)
end

return M
