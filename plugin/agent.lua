-- agent.nvim entry: defines commands and mappings only. Nothing is required and no process is
-- started until one of them is used.
if vim.g.loaded_agent then return end
vim.g.loaded_agent = true

local function agent() return require('agent') end

local function supported()
  if vim.fn.has('nvim-0.10') == 1 then return true end
  require('agent.compat').too_old()
  return false
end

--- Sends a question about lines of the current buffer: they go as context (file name, range,
--- filetype and text) and show in the chat as one attachment line.
local function ask_about_lines(question, line1, line2)
  local selected = require('agent.context').lines(vim.api.nvim_get_current_buf(), line1, line2)
  agent().open()
  agent().send(question ~= '' and question or 'Explain the selected code.', {
    context = selected.context,
    attachments = { selected.attachment },
  })
end

vim.api.nvim_create_user_command('AgentChat', function(args)
  if not supported() then return end
  local prompt = args.args
  if args.range > 0 then
    ask_about_lines(prompt, args.line1, args.line2)
  elseif prompt ~= '' then
    agent().open()
    agent().send(prompt)
  else
    agent().toggle()
  end
end, { nargs = '*', range = true, desc = 'agent: toggle the chat, or send a prompt (about the selection)' })

vim.api.nvim_create_user_command('Agent', function(args)
  if not supported() then return end
  require('agent.commands').run(args.fargs)
end, {
  nargs = '+',
  desc = 'agent: mode, model, stop, clear, build, sessions, resume, rename, export, undo, redo, log, ...',
  complete = function(arglead, cmdline) return require('agent.commands').complete(arglead, cmdline) end,
})

vim.keymap.set('n', '<Plug>(AgentToggle)', function()
  if supported() then agent().toggle() end
end, { desc = 'agent: toggle the chat' })

vim.keymap.set('x', '<Plug>(AgentAskSelection)', function()
  if not supported() then return end
  local line1, line2 = vim.fn.line('v'), vim.fn.line('.')
  if line1 > line2 then
    line1, line2 = line2, line1
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'nx', false)
  local buf = vim.api.nvim_get_current_buf()
  vim.ui.input({ prompt = 'Ask about the selection: ' }, function(question)
    if question == nil or not vim.api.nvim_buf_is_valid(buf) then return end
    vim.api.nvim_buf_call(buf, function() ask_about_lines(question, line1, line2) end)
  end)
end, { desc = 'agent: ask about the selection' })

-- The default toggle key, unless the user mapped it already; setup({ keys = { toggle = ... } })
-- replaces or removes it.
if vim.fn.mapcheck('<C-M-a>', 'n') == '' then
  vim.keymap.set('n', '<C-M-a>', '<Plug>(AgentToggle)', { desc = 'agent: toggle the chat' })
  vim.g.agent_toggle_key = '<C-M-a>'
end
