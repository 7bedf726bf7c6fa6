--- Finds the buffer of a file the agent names.
local M = {}
local H = {}

--- The loaded buffer of a file, matched by name: `bufnr()` reads a name as a pattern, so
--- `app/[id].tsx` would find `app/i.tsx` when the first has no buffer. Folder symlinks are
--- resolved on both sides; the file itself may be gone.
---@param path string absolute path
---@return integer|nil
function M.loaded(path)
  local want = H.real(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name ~= '' and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' and H.real(name) == want then
      return buf
    end
  end
end

function H.real(path)
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ':p'))
  local dir = vim.uv.fs_realpath(vim.fs.dirname(path))
  return dir and vim.fs.joinpath(dir, vim.fs.basename(path)) or path
end

return M
