-- Headless Neovim end-to-end test of editors/nvim against the real `ptlint --lsp`.
--
--   PTLINT_BIN=build/ptlint PTLINT_NVIM_RTP=editors/nvim PTLINT_E2E_FIXTURES=tests/e2e/fixtures \
--     timeout 60 nvim --headless -u NONE -i NONE -n -c 'luafile tests/e2e/nvim/test.lua'
--
-- Works on Neovim 0.7.2: no `-l`, results go to io.stdout (print() goes to stderr there), and
-- every failure ends in `cquit` so that nvim never waits for input.

local function say(fmt, ...)
  io.stdout:write(string.format(fmt, ...) .. "\n")
  io.stdout:flush()
end

local function check(cond, fmt, ...)
  if not cond then
    error(string.format(fmt, ...), 0)
  end
end

local function env(name)
  local value = os.getenv(name)
  check(value ~= nil and value ~= "", "%s is not set: run this test through ctest (tests/e2e)", name)
  return value
end

local function read_text(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

local function write_text(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), "\n") .. "\n"
end

local function split_lines(text)
  local lines = {}
  for line in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("(.-)\n") do
    table.insert(lines, line)
  end
  return lines
end

local function ptl101(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == "PTL101" then
      table.insert(out, d)
    end
  end
  return out
end

local function wait_for(what, timeout_ms, cond)
  local ok = vim.wait(timeout_ms, cond, 20)
  check(ok, "timed out after %d ms waiting for %s", timeout_ms, what)
end

-- Raw LSP diagnostics as the server published them (the code action request sends them back).
local published = {}
local original_handler = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  if result then
    published[result.uri] = result.diagnostics
  end
  return original_handler(err, result, ctx, config)
end

--- client.request_sync on 0.7-0.10, client:request_sync on 0.11+.
local function invoke_request(client, method, params, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request_sync(method, params, 5000, bufnr)
  end
  return client.request_sync(method, params, 5000, bufnr)
end

local function main()
  local bin = env("PTLINT_BIN")
  local fixtures = env("PTLINT_E2E_FIXTURES")
  vim.opt.runtimepath:prepend(env("PTLINT_NVIM_RTP"))
  vim.cmd("filetype on")
  say("nvim %s", tostring(vim.version().major .. "." .. vim.version().minor .. "." .. vim.version().patch))

  local ptlint = require("ptlint")

  -- A missing executable is a clear message, not an error thrown into the user's face.
  local cmd, why = ptlint.server_cmd({ path = "/nonexistent/ptlint" })
  check(cmd == nil and why:find("not an executable", 1, true), "missing executable message: %s", tostring(why))

  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  write_text(dir .. "/pyproject.toml", "[project]\nname = 'e2e'\n")
  local original = read_text(fixtures .. "/amp_train.py")
  local fixed = read_text(fixtures .. "/amp_train.py.fixed")
  write_text(dir .. "/train.py", original)
  write_text(dir .. "/other.py", original)

  ptlint.setup({ path = bin })
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/train.py"))
  local buf = vim.api.nvim_get_current_buf()
  check(vim.bo[buf].filetype == "python", "filetype is %s", vim.bo[buf].filetype)

  -- 1. Diagnostics arrive, at the right byte columns after non-ASCII text (server speaks UTF-16).
  wait_for("three PTL101 diagnostics", 15000, function()
    return #ptl101(buf) == 3
  end)
  local client = vim.lsp.get_client_by_id(vim.tbl_keys(vim.lsp.buf_get_clients(buf))[1])
  check(client ~= nil and client.name == "ptlint", "a ptlint client is attached")
  check(client.config.root_dir == dir, "root_dir %s, expected %s", tostring(client.config.root_dir), dir)
  local line7 = vim.api.nvim_buf_get_lines(buf, 6, 7, true)[1]
  local col = line7:find("torch.cuda.amp.autocast()", 1, true) - 1
  local target
  for _, d in ipairs(ptl101(buf)) do
    if d.lnum == 6 then
      target = d
    end
  end
  check(target ~= nil, "a PTL101 diagnostic on line 7")
  check(target.col == col, "diagnostic starts at byte %d, expected %d", target.col, col)
  check(target.end_col == col + #"torch.cuda.amp.autocast()", "diagnostic ends at byte %d", target.end_col)
  -- Hover inside a finding is left to other servers (pyright's types): ptlint answers null.
  vim.api.nvim_win_set_cursor(0, { 7, col + 3 })
  local hovered = invoke_request(client, "textDocument/hover", vim.lsp.util.make_position_params(), buf)
  check(hovered ~= nil and hovered.err == nil and hovered.result == nil, "hover inside a finding: %s", vim.inspect(hovered))
  say("ok hover yields inside a finding")

  say("ok diagnostics: %d PTL101", #ptl101(buf))

  -- 2. Code actions for that diagnostic; apply the PTL101 quickfix.
  local uri = vim.uri_from_bufnr(buf)
  local raw
  for _, d in ipairs(published[uri] or {}) do
    if d.code == "PTL101" and d.range.start.line == 6 then
      raw = d
    end
  end
  check(raw ~= nil, "the raw LSP diagnostic was published")
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = raw.range,
    context = { diagnostics = { raw } },
  }, 5000)
  check(responses ~= nil, "textDocument/codeAction answered")
  local actions = {}
  for _, response in pairs(responses) do
    check(response.err == nil, "codeAction error: %s", vim.inspect(response.err))
    vim.list_extend(actions, response.result or {})
  end
  local quickfix, noqa
  for _, action in ipairs(actions) do
    if action.kind == "quickfix" and action.isPreferred then
      quickfix = action
    elseif action.kind == "quickfix" and vim.inspect(action):find("noqa", 1, true) then
      noqa = action
    end
  end
  check(quickfix ~= nil, "a preferred PTL101 quickfix among %s", vim.inspect(vim.tbl_map(function(a)
    return a.title
  end, actions)))
  check(noqa ~= nil, "a `# noqa` action is offered")
  if quickfix.edit == nil then
    local resolved = client.request_sync("codeAction/resolve", quickfix, 5000, buf)
    quickfix = resolved and resolved.result or quickfix
  end
  check(quickfix.edit ~= nil, "the quickfix carries an edit")
  vim.lsp.util.apply_workspace_edit(quickfix.edit, client.offset_encoding)
  local expected = split_lines(original)
  expected[7] = split_lines(fixed)[7]
  local want = table.concat(expected, "\n") .. "\n"
  check(buffer_text(buf) == want, "buffer after the quickfix:\n%s\nexpected:\n%s", buffer_text(buf), want)
  wait_for("two PTL101 left after the quickfix", 10000, function()
    return #ptl101(buf) == 2
  end)
  say("ok quickfix: %s", quickfix.title)

  -- 3. Fix all (the module's :PtlintFixAll) gives exactly the CLI's fixed text.
  check(ptlint.fix_all(buf, 5000), "fix_all applied an edit")
  check(buffer_text(buf) == fixed, "buffer after fix-all:\n%s", buffer_text(buf))
  wait_for("no PTL101 after fix-all", 10000, function()
    return #ptl101(buf) == 0
  end)
  say("ok fix-all")

  -- 4. A second file in the same project shares the client; a settings change reaches the server.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/other.py"))
  local other = vim.api.nvim_get_current_buf()
  wait_for("PTL101 in other.py", 15000, function()
    return #ptl101(other) == 3
  end)
  check(#vim.lsp.get_active_clients() == 1, "one client for one project, got %d", #vim.lsp.get_active_clients())
  ptlint.update_settings({ ignore = { "PTL101" } })
  wait_for("PTL101 ignored after update_settings", 10000, function()
    return #ptl101(other) == 0
  end)
  say("ok settings change")

  -- 5. :PtlintRestart starts a fresh server for the attached buffers, with the current settings
  --    (an emptied list clears the ignore again).
  local old_id = vim.lsp.get_active_clients()[1].id
  ptlint.update_settings({ ignore = {} })
  vim.cmd("PtlintRestart")
  local ok_restart = vim.wait(10000, function()
    local clients = vim.lsp.get_active_clients()
    return #clients == 1 and clients[1].id ~= old_id and vim.lsp.buf_is_attached(other, clients[1].id)
  end, 20)
  check(ok_restart, "a new client after :PtlintRestart: %s", vim.inspect(vim.tbl_map(function(c)
    return { id = c.id, stopped = c.is_stopped(), attached = vim.lsp.buf_is_attached(other, c.id) }
  end, vim.lsp.get_active_clients())))
  wait_for("PTL101 back in other.py from the new server", 15000, function()
    return #ptl101(other) == 3
  end)
  check(#vim.lsp.get_active_clients() == 1, "one client after the restart, got %d", #vim.lsp.get_active_clients())
  check(vim.fn.exists(":PtlintFixAll") == 2 and vim.fn.exists(":PtlintInfo") == 2, "user commands exist")
  vim.cmd("PtlintFixAll")
  check(buffer_text(other) == fixed, "other.py after :PtlintFixAll:\n%s", buffer_text(other))
  say("ok restart and :PtlintFixAll")

  -- 5. Every documented setting is passed on; an unknown one reaches the server, which names it.
  local s = ptlint.server_settings({
    extendSelect = { "PTL3" }, configuration = "cfg/ptlint.toml", compileLog = "logs/*.log", selec = { "PTL1" } })
  check(vim.deep_equal(s.extendSelect, { "PTL3" }) and s.configuration == "cfg/ptlint.toml"
    and s.compileLog == "logs/*.log" and vim.deep_equal(s.selec, { "PTL1" }), "server_settings: %s", vim.inspect(s))
  local shown = {}
  vim.lsp.handlers["window/showMessage"] = function(_, result)
    table.insert(shown, result.message)
  end
  ptlint.update_settings({ selec = { "PTL1" } })
  wait_for("a warning naming the mistyped `selec`", 10000, function()
    for _, m in ipairs(shown) do
      if m:find("unknown setting `selec` (did you mean `select`?)", 1, true) then
        return true
      end
    end
    return false
  end)
  say("ok settings passed and unknown ones warned about")

  -- 6. An unsafe fix is a quick fix titled "(unsafe)", never preferred; fix-all leaves it.
  local ddp_text = "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(net, find_unused_parameters=True)\n"
  write_text(dir .. "/ddp.py", ddp_text)
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/ddp.py"))
  local ddp = vim.api.nvim_get_current_buf()
  local ptl301
  wait_for("PTL301 in ddp.py", 15000, function()
    for _, d in ipairs(vim.diagnostic.get(ddp)) do
      if d.code == "PTL301" then
        ptl301 = d
      end
    end
    return ptl301 ~= nil
  end)
  local ddp_responses = vim.lsp.buf_request_sync(ddp, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(ddp) },
    range = { start = { line = 1, character = 14 }, ["end"] = { line = 1, character = 14 } },
    context = { diagnostics = {} },
  }, 5000)
  local unsafe
  for _, response in pairs(ddp_responses or {}) do
    for _, action in ipairs(response.result or {}) do
      if action.kind == "quickfix" and action.title:sub(-#"(unsafe)") == "(unsafe)" then
        unsafe = action
      end
    end
  end
  check(unsafe ~= nil and not unsafe.isPreferred, "an unsafe quick fix, not preferred: %s", vim.inspect(ddp_responses))
  check(not ptlint.fix_all(ddp, 5000), "fix-all applied the unsafe fix without unsafeFixes")
  check(buffer_text(ddp) == ddp_text, "ddp.py changed by fix-all:\n%s", buffer_text(ddp))
  say("ok unsafe quick fix, not in fix-all")

  vim.lsp.stop_client(vim.lsp.get_active_clients())
  wait_for("the server to exit", 5000, function()
    return #vim.lsp.get_active_clients() == 0
  end)
end

local ok, err = xpcall(main, debug.traceback)
if ok then
  say("PASS")
  vim.cmd("qall!")
else
  say("FAIL: %s", tostring(err))
  local log = vim.lsp.get_log_path()
  if vim.fn.filereadable(log) == 1 then
    say("--- %s (tail) ---", log)
    local lines = vim.fn.readfile(log)
    for i = math.max(1, #lines - 30), #lines do
      say("%s", lines[i])
    end
  end
  vim.cmd("cquit 1")
end
