-- parlint for Neovim (0.7 and later): starts `parlint lsp` for YAML, Python and shell buffers
-- (including *.sbatch, *.slurm, *.slrm) and attaches it. Add integrations/nvim to 'runtimepath' (or point a
-- plugin manager at it) and call require('parlint').setup() from init.lua.
local M = {}

local function root_of(path)
  local markers = { '.parlint.yaml', '.git' }
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. '/' .. m) then return dir end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then break end
    dir = parent
  end
  return vim.fn.getcwd()
end

function M.setup(opts)
  opts = opts or {}
  local cmd = opts.cmd or { 'parlint', 'lsp' }
  local clients = {}  -- one client per root folder
  local group = vim.api.nvim_create_augroup('parlint', { clear = true })
  -- SLURM scripts are shell scripts (an autocmd, because 0.7's Lua filetype table is opt-in).
  vim.api.nvim_create_autocmd({ 'BufNewFile', 'BufRead' }, {
    group = group,
    pattern = { '*.sbatch', '*.slurm', '*.slrm' },
    command = 'setfiletype sh',
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = { 'yaml', 'python', 'sh', 'bash' },
    callback = function(args)
      local root = root_of(vim.api.nvim_buf_get_name(args.buf))
      if not clients[root] then
        clients[root] = vim.lsp.start_client({
          name = 'parlint',
          cmd = cmd,
          root_dir = root,
          init_options = { debounceMs = opts.debounce_ms or 25 },
        })
      end
      if clients[root] then vim.lsp.buf_attach_client(args.buf, clients[root]) end
    end,
  })
end

return M
