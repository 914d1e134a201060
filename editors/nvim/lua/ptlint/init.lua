-- ptlint for Neovim's built-in LSP client.
--
--   require("ptlint").setup({
--     path = "ptlint",                        -- or an absolute path; default: ptlint on PATH
--     settings = { select = { "PTL1" }, extendSelect = {}, ignore = {},
--                  configuration = "",        -- a ptlint.toml / pyproject.toml for every file
--                  unsafeFixes = false,       -- fix-all applies unsafe fixes too
--                  torchVersion = "2.4", gpuCheck = false, compileLog = "" },
--   })
--
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client, one client per project root)
-- and uses vim.lsp.start on 0.8+. No lint logic here: the server (`ptlint --lsp`) does it all.
-- Commands: :PtlintFixAll, :PtlintRestart, :PtlintInfo.

local M = {}

local FIX_ALL_KIND = "source.fixAll.ptlint"
local NAME = "ptlint"

M.defaults = {
  path = "ptlint",
  -- The whole command, replacing { path, "--lsp" } (for wrappers, e.g. a container).
  cmd = nil,
  filetypes = { "python" },
  root_markers = { "ptlint.toml", ".ptlint.toml", "pyproject.toml", "setup.cfg", ".git" },
  settings = {
    select = {},
    extendSelect = {},
    ignore = {},
    configuration = "",
    unsafeFixes = false,
    torchVersion = "",
    gpuCheck = false,
    compileLog = "",
  },
  on_attach = nil,
  capabilities = nil,
}

local state = {
  config = nil, -- merged options of the last setup()
  clients = {}, -- root_dir -> client id (0.7 path only)
}

local has_start = type(vim.lsp.start) == "function" -- Neovim 0.8+
-- 0.11 made client functions methods (client:notify); the dot form warns there.
local method_style = vim.fn.has("nvim-0.11") == 1
local uv = vim.uv or vim.loop

--- client.notify / client:notify, client.request_sync / client:request_sync, ...
local function invoke(client, name, ...)
  if method_style then
    return client[name](client, ...)
  end
  return client[name](...)
end

local function get_clients()
  local list = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  local ours = {}
  for _, client in ipairs(list) do
    if client.name == NAME then
      table.insert(ours, client)
    end
  end
  return ours
end

local function notify(msg, level)
  vim.notify("ptlint: " .. msg, level or vim.log.levels.INFO)
end

local function string_list(value)
  local out = {}
  if type(value) ~= "table" then
    return out
  end
  for _, v in ipairs(value) do
    if type(v) == "string" and vim.trim(v) ~= "" then
      table.insert(out, vim.trim(v))
    end
  end
  return out
end

--- The settings object the server receives (initializationOptions and `settings.ptlint`):
--- every documented setting (docs/lsp.md), unset values left out so that the configuration file
--- decides. Keys the module does not know are passed on as they are: the server names each
--- unknown or mistyped one in a warning (with the closest known name) rather than it being lost.
local KNOWN = {
  select = true, extendSelect = true, ignore = true, configuration = true,
  unsafeFixes = true, torchVersion = true, gpuCheck = true, compileLog = true,
}

local function nonempty_string(value)
  if type(value) == "string" and vim.trim(value) ~= "" then
    return vim.trim(value)
  end
  return nil
end

function M.server_settings(settings)
  settings = settings or {}
  local out = {
    unsafeFixes = settings.unsafeFixes == true,
    gpuCheck = settings.gpuCheck == true,
  }
  for _, key in ipairs({ "select", "extendSelect", "ignore" }) do
    local list = string_list(settings[key])
    if #list > 0 then
      out[key] = list
    end
  end
  out.torchVersion = nonempty_string(settings.torchVersion)
  out.compileLog = nonempty_string(settings.compileLog)
  local configuration = nonempty_string(settings.configuration)
  if configuration then
    -- `~/` is the home folder; a relative path is resolved by the server from the project root.
    if configuration == "~" or configuration:sub(1, 2) == "~/" then
      configuration = vim.fn.expand("~") .. configuration:sub(2)
    end
    out.configuration = configuration
  end
  for key, value in pairs(settings) do
    if not KNOWN[key] then
      out[key] = value
    end
  end
  return out
end

--- The server command: `cmd` when given, else { path, "--lsp" }. nil and a message when the
--- executable cannot be found.
function M.server_cmd(config)
  local cmd = config.cmd or { config.path or "ptlint", "--lsp" }
  if vim.fn.executable(cmd[1]) ~= 1 then
    return nil,
      string.format(
        "`%s` is not an executable on PATH. Install ptlint (docs/install.md) or pass "
          .. 'require("ptlint").setup({ path = "/path/to/ptlint" }).',
        cmd[1]
      )
  end
  return cmd
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

--- The project root of `file`: the nearest folder above it holding a root marker, else its folder.
function M.find_root(file, markers)
  local dir = vim.fn.fnamemodify(file, ":p:h")
  local current = dir
  while true do
    for _, marker in ipairs(markers) do
      if exists(current .. "/" .. marker) then
        return current
      end
    end
    local parent = vim.fn.fnamemodify(current, ":h")
    if parent == current then
      return dir
    end
    current = parent
  end
end

local function client_config(config, cmd, root_dir)
  local settings = M.server_settings(config.settings)
  local capabilities = config.capabilities or vim.lsp.protocol.make_client_capabilities()
  return {
    name = NAME,
    cmd = cmd,
    root_dir = root_dir,
    workspace_folders = {
      { uri = vim.uri_from_fname(root_dir), name = root_dir },
    },
    init_options = settings,
    settings = { ptlint = settings },
    capabilities = capabilities,
    on_init = function(client)
      -- 0.7 does not send settings after initialize by itself; the server expects them.
      invoke(client, "notify", "workspace/didChangeConfiguration", { settings = client.config.settings })
      return true
    end,
    on_attach = config.on_attach,
    on_exit = function(_, _, client_id)
      -- Only forget this client: a restart may already have registered its successor.
      if state.clients[root_dir] == client_id then
        state.clients[root_dir] = nil
      end
    end,
  }
end

--- Starts (or reuses) the client for `bufnr`'s project and attaches the buffer.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local config = state.config
  if config == nil then
    return nil
  end
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" or vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local cmd, err = M.server_cmd(config)
  if cmd == nil then
    if not state.warned then
      state.warned = true
      notify(err, vim.log.levels.ERROR)
    end
    return nil
  end
  local root_dir = M.find_root(file, config.root_markers)
  local lsp_config = client_config(config, cmd, root_dir)

  if has_start then
    return vim.lsp.start(lsp_config, { bufnr = bufnr })
  end

  -- Reuse the project's client, also while it is still initializing (0.7's client_is_stopped()
  -- would call that one stopped and start a second server).
  local id = state.clients[root_dir]
  local existing = id and vim.lsp.get_client_by_id(id)
  if not existing or invoke(existing, "is_stopped") then
    id = vim.lsp.start_client(lsp_config)
    if id == nil then
      notify("could not start `" .. table.concat(cmd, " ") .. "`", vim.log.levels.ERROR)
      return nil
    end
    state.clients[root_dir] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

local function client_for(bufnr)
  for _, client in ipairs(get_clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end

--- Applies every safe fix to the buffer (the server's `source.fixAll.ptlint` action).
--- Returns true when an edit was applied.
function M.fix_all(bufnr, timeout_ms)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = client_for(bufnr)
  if client == nil then
    notify("no ptlint server attached to this buffer", vim.log.levels.WARN)
    return false
  end
  local last = vim.api.nvim_buf_line_count(bufnr)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = last, character = 0 } },
    context = { diagnostics = {}, only = { FIX_ALL_KIND } },
  }
  local response, err = invoke(client, "request_sync", "textDocument/codeAction", params, timeout_ms or 3000, bufnr)
  if response == nil or response.err then
    notify("fix-all failed: " .. vim.inspect(err or (response and response.err)), vim.log.levels.ERROR)
    return false
  end
  for _, action in ipairs(response.result or {}) do
    if action.kind == FIX_ALL_KIND then
      if action.edit == nil and action.data ~= nil then
        local resolved = invoke(client, "request_sync", "codeAction/resolve", action, timeout_ms or 3000, bufnr)
        action = (resolved and resolved.result) or action
      end
      if action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or "utf-16")
        return true
      end
    end
  end
  return false
end

--- Sends new settings to every running ptlint server (workspace/didChangeConfiguration).
function M.update_settings(settings)
  if state.config == nil then
    return
  end
  -- Settings are flat: a given key replaces the old value (lists included, so {} clears one).
  state.config.settings = vim.tbl_extend("force", state.config.settings, settings or {})
  local server = M.server_settings(state.config.settings)
  for _, client in ipairs(get_clients()) do
    client.config.settings = { ptlint = server }
    invoke(client, "notify", "workspace/didChangeConfiguration", { settings = client.config.settings })
  end
end

--- Stops the servers and attaches every buffer of our filetypes again.
function M.restart()
  local buffers = {}
  for _, client in ipairs(get_clients()) do
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.lsp.buf_is_attached(buf, client.id) then
        buffers[buf] = true
      end
    end
    invoke(client, "stop")
  end
  state.clients = {}
  state.warned = false
  local function reattach()
    if #get_clients() > 0 then
      vim.defer_fn(reattach, 50)
      return
    end
    for buf in pairs(buffers) do
      if vim.api.nvim_buf_is_valid(buf) then
        M.attach(buf)
      end
    end
  end
  vim.defer_fn(reattach, 50)
end

local function info()
  local lines = {}
  for _, client in ipairs(get_clients()) do
    table.insert(
      lines,
      string.format("ptlint client %d: %s (root %s)", client.id, table.concat(client.config.cmd, " "), client.config.root_dir)
    )
  end
  if #lines == 0 then
    local _, err = M.server_cmd(state.config or M.defaults)
    table.insert(lines, "no ptlint client running" .. (err and (": " .. err) or ""))
  end
  notify(table.concat(lines, "\n"))
end

function M.setup(opts)
  opts = opts or {}
  -- Shallow merges: a list given by the user replaces the default, never merges index by index.
  local config = vim.tbl_extend("force", vim.deepcopy(M.defaults), opts)
  config.settings = vim.tbl_extend("force", vim.deepcopy(M.defaults.settings), opts.settings or {})
  state.config = config
  state.warned = false

  local group = vim.api.nvim_create_augroup("ptlint", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Buffers already open when setup() runs.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(config.filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end

  vim.api.nvim_create_user_command("PtlintFixAll", function()
    M.fix_all(0)
  end, { desc = "ptlint: apply every safe fix to the buffer" })
  vim.api.nvim_create_user_command("PtlintRestart", M.restart, { desc = "ptlint: restart the server" })
  vim.api.nvim_create_user_command("PtlintInfo", info, { desc = "ptlint: show the running servers" })
end

return M
