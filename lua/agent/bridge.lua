--- Answers the host's questions about the editor: unsaved buffer text, diagnostics, LSP.
--- Called by the host through nvim_exec_lua; every function returns quickly.
local M = {}
local H = {}

---@param path string absolute path
---@return integer|nil
function H.loaded_buf(path) return require('agent.buffers').loaded(path) end

--- Text of the buffer for `path` when it has unsaved changes, else nil.
---@param path string
---@return string|nil
function M.buffer_text(path)
  local buf = H.loaded_buf(path)
  if not buf or not vim.bo[buf].modified then return nil end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local nl = vim.bo[buf].fileformat == 'dos' and '\r\n' or '\n'
  local text = table.concat(lines, nl)
  if vim.bo[buf].endofline or vim.bo[buf].fixendofline then text = text .. nl end
  return text
end

H.severity = { 'error', 'warning', 'info', 'hint' }

--- Diagnostics of one file, or of every loaded buffer.
---@param path string|nil
---@return table[]
function M.diagnostics(path)
  local bufnr = nil
  if path and path ~= vim.NIL then
    bufnr = H.loaded_buf(path)
    if not bufnr then return {} end
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      path = vim.api.nvim_buf_get_name(d.bufnr),
      line = d.lnum + 1,
      col = d.col + 1,
      severity = H.severity[d.severity] or 'info',
      message = d.message,
      source = d.source,
      code = d.code,
    })
  end
  return out
end

H.methods = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  document_symbols = 'textDocument/documentSymbol',
  workspace_symbols = 'workspace/symbol',
}

--- Starts an LSP request; the answer goes back as an `lsp_result` notification with `id`
--- (nil result when no server handles the file).
---@param id string
---@param req { action: string, path?: string, line?: integer, col?: integer, query?: string }
function M.lsp(id, req)
  local reply = function(result) require('agent.rpc').notify('lsp_result', { id = id, result = result }) end
  local method = H.methods[req.action]
  local bufnr = req.path and req.path ~= vim.NIL and vim.fn.bufadd(req.path) or vim.api.nvim_get_current_buf()
  if not method then return reply(vim.NIL) end
  vim.schedule(function()
    if not vim.api.nvim_buf_is_loaded(bufnr) then vim.fn.bufload(bufnr) end
    if #vim.lsp.get_clients({ bufnr = bufnr, method = method }) == 0 then return reply(vim.NIL) end
    local params
    if req.action == 'workspace_symbols' then
      params = { query = req.query or '' }
    elseif req.action == 'document_symbols' then
      params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
    else
      params = {
        textDocument = vim.lsp.util.make_text_document_params(bufnr),
        position = { line = (req.line or 1) - 1, character = (req.col or 1) - 1 },
        context = { includeDeclaration = true },
      }
    end
    vim.lsp.buf_request_all(bufnr, method, params, function(results)
      local merged = {}
      for _, r in pairs(results or {}) do
        if r.result then table.insert(merged, r.result) end
      end
      reply(H.to_response(req.action, merged))
    end)
  end)
end

function H.to_response(action, results)
  if action == 'hover' then
    local parts = {}
    for _, r in ipairs(results) do
      local c = r.contents
      if type(c) == 'table' then
        table.insert(parts, c.value or (c[1] and (c[1].value or c[1])) or '')
      else
        table.insert(parts, tostring(c))
      end
    end
    return { action = action, contents = table.concat(parts, '\n\n') }
  end
  if action == 'definition' or action == 'references' then
    local locations = {}
    for _, r in ipairs(results) do
      local list = r.uri and { r } or r
      for _, loc in ipairs(list) do
        local uri = loc.uri or loc.targetUri
        local range = loc.range or loc.targetSelectionRange
        if uri and range then
          table.insert(locations, {
            path = vim.uri_to_fname(uri),
            line = range.start.line + 1,
            col = range.start.character + 1,
            end_line = range['end'].line + 1,
            end_col = range['end'].character + 1,
          })
        end
      end
    end
    return { action = action, locations = locations }
  end
  local symbols = {}
  local function walk(list, container, default_path)
    for _, s in ipairs(list or {}) do
      local range = (s.location and s.location.range) or s.selectionRange or s.range
      local path = s.location and vim.uri_to_fname(s.location.uri) or default_path
      if range then
        table.insert(symbols, {
          name = s.name,
          kind = vim.lsp.protocol.SymbolKind[s.kind] or tostring(s.kind),
          path = path,
          line = range.start.line + 1,
          col = range.start.character + 1,
          container = container or s.containerName,
        })
      end
      if s.children then walk(s.children, s.name, path) end
    end
  end
  for _, r in ipairs(results) do
    walk(r, nil, '')
  end
  return { action = action, symbols = symbols }
end

return M
