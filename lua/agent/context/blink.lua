--- blink.cmp source for `@` and `#` attachment tokens in the chat input. Registered by
--- `require('agent.context').attach()` when blink.cmp is loaded; to list it yourself:
---   sources.providers.agent = { name = 'agent', module = 'agent.context.blink' }
---   sources.per_filetype['agent-input'] = { 'agent', inherit_defaults = true }
local source = {}

-- LSP CompletionItemKind values, without requiring blink.cmp or vim.lsp.
local kind_file, kind_keyword = 17, 14

---@param opts? table `sources.providers.agent.opts`
function source.new(opts) return setmetatable({ opts = opts or {} }, { __index = source }) end

function source.enabled(_) return vim.bo.filetype == 'agent-input' end

function source.get_trigger_characters(_) return { '@', '#' } end

---@param ctx { line: string, cursor: integer[] } blink's context: cursor is (1,0)-indexed
---@param callback fun(response: { items: table[], is_incomplete_forward: boolean, is_incomplete_backward: boolean })
---@return fun() cancel
function source:get_completions(ctx, callback)
  local complete = require('agent.context.complete')
  local row, col = ctx.cursor[1], ctx.cursor[2]
  local c = complete.context(ctx.line:sub(1, col))
  if not c then
    callback({ items = {}, is_incomplete_forward = false, is_incomplete_backward = false })
    return function() end
  end
  return complete.collect(c, { cwd = vim.fn.getcwd(), limit = self.opts.limit }, function(candidates, incomplete)
    local items = {}
    for i, cand in ipairs(candidates) do
      items[i] = {
        label = cand.word,
        filterText = cand.word,
        kind = cand.kind == 'file' and kind_file or kind_keyword,
        documentation = cand.info,
        -- Byte columns: the token is replaced from just after the trigger to the cursor.
        textEdit = {
          newText = cand.word,
          range = {
            start = { line = row - 1, character = c.col },
            ['end'] = { line = row - 1, character = col },
          },
        },
      }
    end
    callback({ items = items, is_incomplete_forward = incomplete, is_incomplete_backward = incomplete })
  end)
end

return source
