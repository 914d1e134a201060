// The server's wiring (language_server.h): the handlers bound to their methods, the lifecycle,
// settings and configuration, and the entry points.
#include "server/lsp_server.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "ptlint/version.h"
#include "server/json_text.h"
#include "server/language_server.h"
#include "server/log.h"

namespace ptlint::server {
namespace {

bool isConfigFile(const fs::path& path) {
  auto name = path.filename().string();
  return name == "ptlint.toml" || name == ".ptlint.toml" || name == "pyproject.toml";
}

bool isSourceFile(const fs::path& path) {
  auto ext = path.extension();
  return ext == ".py" || ext == ".pyi" || ext == ".ipynb";
}

}  // namespace

void LspServer::bindHandlers() {
  bind("initialize", &LspServer::onInitialize);
  bind("shutdown", &LspServer::onShutdown);
  bind("textDocument/codeAction", &LspServer::onCodeAction);
  bind("textDocument/hover", &LspServer::onHover);
  bind("textDocument/diagnostic", &LspServer::onDocumentDiagnostic);
  bind("workspace/diagnostic", &LspServer::onWorkspaceDiagnostic);
  bind("workspace/executeCommand", &LspServer::onExecuteCommand);
  bind("ptlint/debugDocument", &LspServer::onDebugDocument);
  bind("initialized", &LspServer::onInitialized);
  bind("textDocument/didSave", &LspServer::onDidSave);
  sync<DidOpenTextDocumentParams>("textDocument/didOpen", &DocumentSync::didOpen);
  sync<DidChangeTextDocumentParams>("textDocument/didChange", &DocumentSync::didChange);
  sync<DidCloseTextDocumentParams>("textDocument/didClose", &DocumentSync::didClose);
  sync<json>("notebookDocument/didOpen", &DocumentSync::notebookDidOpen);
  sync<json>("notebookDocument/didChange", &DocumentSync::notebookDidChange);
  sync<json>("notebookDocument/didClose", &DocumentSync::notebookDidClose);
  dispatcher_.bindNotification<json>("notebookDocument/didSave", [](const json&) {});
  bind("workspace/didChangeConfiguration", &LspServer::onDidChangeConfiguration);
  bind("workspace/didChangeWatchedFiles", &LspServer::onDidChangeWatchedFiles);
  bind("workspace/didChangeWorkspaceFolders", &LspServer::onDidChangeWorkspaceFolders);
  Dispatcher::Hooks hooks;
  hooks.cell_request = [this](const std::string& method, const json& params)
      -> std::optional<std::pair<json, std::function<json(json)>>> {
    auto cell = notebooks_.forCell(method, params);
    if (!cell) return std::nullopt;
    return std::make_pair(std::move(cell->params), std::move(cell->map_result));
  };
  hooks.unreadable_change = [this](std::string_view body) { sync_.lostChange(body); };
  hooks.failed_change = [this](const std::string& uri, const std::string& why) {
    if (!uri.empty()) sync_.markOutOfSync(uri, why);
    else for (const auto& open : docs_.openUris()) sync_.markOutOfSync(open, "a didChange without a document");
  };
  hooks.exit = [this] { transport_.stop(); };
  dispatcher_.setHooks(std::move(hooks));
}

void LspServer::onInitialize(const InitializeParams& params, Reply<json> reply) {
  if (dispatcher_.initialized()) throw LspError(ErrorCode::InvalidRequest, "initialize may only be sent once");
  capabilities_ = params.capabilities;
  auto& encodings = capabilities_.positionEncodings;
  encoding_ = std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end() ? PositionEncoding::Utf8
                                                                                         : PositionEncoding::Utf16;
  analyzer_.configure(encoding_, capabilities_.relatedInformation);
  sync_.configure(encoding_, capabilities_.pullDiagnostics && capabilities_.diagnosticRefresh);
  scheduler_.setPublishing(!capabilities_.pullDiagnostics);
  settings_.initialize(params);
  dispatcher_.markInitialized();
  json sync = {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}};
  json capabilities = {
      {"positionEncoding", encoding_ == PositionEncoding::Utf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync", sync},
      {"notebookDocumentSync",
       {{"notebookSelector",
         {{{"notebook", {{"notebookType", "jupyter-notebook"}}}, {"cells", {{{"language", "python"}}}}}}},
        {"save", true}}},
      {"codeActionProvider",
       {{"codeActionKinds", {"quickfix", "source.fixAll", std::string(kFixAllKind), "notebook.source.fixAll",
                            std::string(kNotebookFixAllKind)}}, {"resolveProvider", false}}},
      {"hoverProvider", true},
      {"executeCommandProvider", {{"commands", {std::string(kApplyFixAllCommand)}}}},
      {"diagnosticProvider",
       {{"identifier", "ptlint"}, {"interFileDependencies", true}, {"workspaceDiagnostics", true}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
  };
  reply(json{{"capabilities", capabilities}, {"serverInfo", {{"name", "ptlint"}, {"version", kVersion}}}});
}

void LspServer::onInitialized(const json&) {
  // Config files change every file's settings; sources and notebooks change what the project
  // index says about the open documents (cross-file findings) when they change on disk.
  if (capabilities_.watchedFilesDynamicRegistration) {
    json watchers = json::array();
    for (const char* glob :
         {"**/ptlint.toml", "**/.ptlint.toml", "**/pyproject.toml", "**/*.py", "**/*.pyi", "**/*.ipynb"})
      watchers.push_back({{"globPattern", glob}});
    dispatcher_.request("client/registerCapability",
                        {{"registrations",
                          {{{"id", "ptlint-watched-files"},
                            {"method", "workspace/didChangeWatchedFiles"},
                            {"registerOptions", {{"watchers", watchers}}}}}}});
  }
  watchCompileLogs();
  pullConfiguration();
}

void LspServer::watchCompileLogs() {
  if (!capabilities_.watchedFilesDynamicRegistration) return;
  std::set<std::string> globs;
  for (const std::string& pattern : settings_.compileLogPatterns()) {
    std::string name = std::filesystem::path(pattern).filename().string();
    if (name.empty()) continue;
    globs.insert("**/" + name);
    globs.insert("**/" + name + "/*");
  }
  int id = 0;
  {
    std::lock_guard lock(compile_log_mutex_);
    if (globs.empty() || globs == compile_log_globs_) return;
    compile_log_globs_ = globs;
    id = ++compile_log_registrations_;
  }
  json watchers = json::array();
  for (const auto& glob : globs) watchers.push_back({{"globPattern", glob}});
  dispatcher_.request("client/registerCapability",
                      {{"registrations",
                        {{{"id", "ptlint-compile-log-" + std::to_string(id)},
                          {"method", "workspace/didChangeWatchedFiles"},
                          {"registerOptions", {{"watchers", watchers}}}}}}});
}

void LspServer::onShutdown(const json&, Reply<json> reply) {
  dispatcher_.markShutdown();
  reply(nullptr);
}

void LspServer::onDidChangeConfiguration(const DidChangeConfigurationParams& params) {
  if (capabilities_.workspaceConfiguration) {
    pullConfiguration();  // the notification's payload is not authoritative then
    return;
  }
  settings_.setGlobal(params.settings);
  watchCompileLogs();
  scheduler_.scheduleAll();
}

void LspServer::pullConfiguration() {
  if (!capabilities_.workspaceConfiguration) return;
  auto [params, keys] = settings_.configurationRequest();
  dispatcher_.request("workspace/configuration", params, [this, keys = keys](const json& result) {
    if (!result.is_array()) {
      if (!result.is_null())
        dispatcher_.showMessage(
            MessageType::Warning,
            "ptlint: the workspace/configuration answer must be a list of settings; it was ignored");
      return;
    }
    settings_.applyConfiguration(keys, result);
    watchCompileLogs();
    scheduler_.scheduleAll();
  });
}

void LspServer::onDidChangeWatchedFiles(const DidChangeWatchedFilesParams& params) {
  bool config_changed = false, log_changed = false;
  for (const auto& change : params.changes) {
    auto path = uriToPath(change.uri);
    if (!path) continue;
    if (isConfigFile(*path)) config_changed = true;
    else if (settings_.compileLogChanged(*path)) log_changed = true;
    // A source or notebook, or (created or deleted) a folder that may hold some.
    else if (isSourceFile(*path) || (change.type != 2 && !path->has_extension()))
      projects_.diskChanged(change.uri, change.type);
  }
  if (!config_changed && !log_changed) return;
  if (config_changed) settings_.configFilesChanged();
  scheduler_.scheduleAll();
  if (capabilities_.diagnosticRefresh) dispatcher_.request("workspace/diagnostic/refresh", nullptr, [](const json&) {});
}

void LspServer::onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams& params) {
  settings_.changeFolders(params);
  pullConfiguration();
  scheduler_.scheduleAll();
}

void LspServer::onDidSave(const DidSaveTextDocumentParams& params) {
  // A saved config file opened in the editor changes every other file's settings.
  if (auto path = uriToPath(params.textDocument.uri); path && isConfigFile(*path))
    onDidChangeWatchedFiles(DidChangeWatchedFilesParams{{FileEvent{params.textDocument.uri, 2}}});
}

int runServer(int in_fd, int out_fd) {
  Transport transport(in_fd, out_fd);
  int code;
  {
    LspServer server(transport);
    code = server.run();
  }
  return code;
}

int runStdioServer() {
  std::ios::sync_with_stdio(false);
  return runServer(STDIN_FILENO, STDOUT_FILENO);
}

}  // namespace ptlint::server