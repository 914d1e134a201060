// The server: the LSP handlers, wired to the dispatcher (protocol binding), the scheduler
// (workers, versions, cancellation) and the features (diagnostics, code actions, fix-all,
// hover, settings, workspace diagnostics). Handlers run on the I/O thread, in arrival order: they
// apply document changes and hand everything else to the scheduler's pools.
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
#include "server/code_actions.h"
#include "server/device_verdicts.h"
#include "server/diagnostics.h"
#include "server/dispatcher.h"
#include "server/document_analysis.h"
#include "server/document_store.h"
#include "server/document_sync.h"
#include "server/project_tracker.h"
#include "server/fix_all.h"
#include "server/json_text.h"
#include "server/hover.h"
#include "server/log.h"
#include "server/notebook_documents.h"
#include "server/outbox.h"
#include "server/scheduler.h"
#include "server/server_settings.h"
#include "server/transport.h"
#include "server/workspace_diagnostics.h"

namespace ptlint::server {
namespace {

namespace fs = std::filesystem;
using Pool = Scheduler::Pool;

constexpr std::string_view kApplyFixAllCommand = "ptlint.applyFixAll";

bool isConfigFile(const fs::path& path) {
  auto name = path.filename().string();
  return name == "ptlint.toml" || name == ".ptlint.toml" || name == "pyproject.toml";
}

bool isSourceFile(const fs::path& path) {
  auto ext = path.extension();
  return ext == ".py" || ext == ".pyi" || ext == ".ipynb";
}

class LspServer {
 public:
  explicit LspServer(Transport& transport)
      : transport_(transport),
        outbox_(transport),
        dispatcher_(outbox_),
        settings_([this](MessageType type, const std::string& m) {
          // Log-level notes (the torch-version range in use) go to the log, the rest is shown.
          if (type == MessageType::Log) dispatcher_.logMessage(type, m);
          else dispatcher_.showMessage(type, m);
        }),
        projects_(docs_, [this](const std::vector<fs::path>& changed) { onProjectRelinked(changed); }),
        analyzer_(settings_, [this](const fs::path& file) { return projects_.factsFor(file); }),
        scheduler_(
            docs_, [this](const auto& snap, const ResultPtr& previous) { return analyzeDocument(snap, previous); },
            [this](const std::string& uri, uint64_t seq, const ResultPtr& result) { sync_.publish(uri, seq, result); },
            [this] { return settings_.generation(); }, std::max(2u, std::min(4u, std::thread::hardware_concurrency()))),
        sync_(docs_, notebooks_, scheduler_, outbox_, dispatcher_, projects_),
        workspace_(docs_, settings_, analyzer_, [this](const fs::path& p) { return projects_.bufferText(p); }) {
    bindHandlers();
  }
  ~LspServer() {
    projects_.stop();
    scheduler_.shutdown();
    device_.shutdown();
    outbox_.close();
  }

  int run() {
    transport_.run([this](FrameParser::Event event) { dispatcher_.onFrame(std::move(event)); });
    return dispatcher_.shutdownRequested() ? 0 : 1;
  }

 private:
  template <typename P, typename R>
  void bind(const std::string& method, void (LspServer::*handler)(const P&, Reply<R>)) {
    dispatcher_.bindRequest<P, R>(method, [this, handler](const P& p, Reply<R> r) { (this->*handler)(p, std::move(r)); });
  }
  template <typename P>
  void bind(const std::string& method, void (LspServer::*handler)(const P&)) {
    dispatcher_.bindNotification<P>(method, [this, handler](const P& p) { (this->*handler)(p); });
  }
  template <typename P>
  void sync(const std::string& method, void (DocumentSync::*handler)(const P&)) {
    dispatcher_.bindNotification<P>(method, [this, handler](const P& p) { (sync_.*handler)(p); });
  }

  void bindHandlers() {
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

  // --- Lifecycle --------------------------------------------------------------------------------

  void onInitialize(const InitializeParams& params, Reply<json> reply) {
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

  void onInitialized(const json&) {
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

  // `compileLog`: the client watches the log too (its last path component, anywhere, and the
  // files inside a TORCH_TRACE folder), so that a new run's log is read again at once; without
  // the capability the log is polled on each analysis.
  void watchCompileLogs() {
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

  void onShutdown(const json&, Reply<json> reply) {
    dispatcher_.markShutdown();
    reply(nullptr);
  }

  // --- Settings and configuration ----------------------------------------------------------------

  void onDidChangeConfiguration(const DidChangeConfigurationParams& params) {
    if (capabilities_.workspaceConfiguration) {
      pullConfiguration();  // the notification's payload is not authoritative then
      return;
    }
    settings_.setGlobal(params.settings);
    watchCompileLogs();
    scheduler_.scheduleAll();
  }

  void pullConfiguration() {
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

  void onDidChangeWatchedFiles(const DidChangeWatchedFilesParams& params) {
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

  void onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams& params) {
    settings_.changeFolders(params);
    pullConfiguration();
    scheduler_.scheduleAll();
  }

  void onDidSave(const DidSaveTextDocumentParams& params) {
    // A saved config file opened in the editor changes every other file's settings.
    if (auto path = uriToPath(params.textDocument.uri); path && isConfigFile(*path))
      onDidChangeWatchedFiles(DidChangeWatchedFilesParams{{FileEvent{params.textDocument.uri, 2}}});
  }

  // --- Analysis -----------------------------------------------------------------------------------

  // The scheduler's analysis of an open document. A new text is first shown to the project
  // tracker (it may make a linked project stale; nothing is linked on this path).
  ResultPtr analyzeDocument(const std::shared_ptr<const DocumentSnapshot>& snap, const ResultPtr& previous) {
    if (snap->in_sync && (!previous || previous->snapshot->revision != snap->revision))
      projects_.textAnalysed(snap->uri, snap->text());
    return analyzer_.analyze(snap, previous);
  }

  // A new link changed what the project says about `changed`: their open documents are analysed
  // again (and published when their findings changed); clients that pull are asked to refresh,
  // which also brings the files that are not open up to date.
  void onProjectRelinked(const std::vector<fs::path>& changed) {
    std::set<fs::path> files(changed.begin(), changed.end());
    for (const auto& uri : docs_.openUris())
      if (auto path = uriToPath(uri); path && files.count(path->lexically_normal())) scheduler_.schedule(uri);
    if (capabilities_.diagnosticRefresh) dispatcher_.request("workspace/diagnostic/refresh", nullptr, [](const json&) {});
  }

  // --- Diagnostics on request ---------------------------------------------------------------------

  void onDocumentDiagnostic(const DocumentDiagnosticParams& params, Reply<DocumentDiagnosticReport> reply) {
    std::string uri = params.textDocument.uri;
    auto previous = params.previousResultId;
    if (!docs_.isOpen(uri)) {
      // Not open: lint the file on disk.
      scheduler_.run(Pool::Analysis, reply, [this, uri, reply] {
        reply(DocumentDiagnosticReport{"full", "disk", analyzer_.analyzeFile(uri)});
      });
      return;
    }
    scheduler_.whenAnalyzed(uri, Pool::Analysis, Scheduler::guarded(reply, [this, uri, reply, previous](ResultPtr result) {
      if (!result) {
        if (std::string why = scheduler_.failureOf(uri); !why.empty())
          throw LspError(ErrorCode::InternalError, "ptlint could not analyse the document: " + why);
        throw LspError(ErrorCode::ContentModified, "the document was closed");
      }
      std::string id = result->resultId();
      if (previous && *previous == id) reply(DocumentDiagnosticReport{"unchanged", id, {}});
      else reply(DocumentDiagnosticReport{"full", id, result->diagnostics});
    }));
  }

  void onWorkspaceDiagnostic(const WorkspaceDiagnosticParams& params, Reply<WorkspaceDiagnosticReport> reply) {
    WorkspaceDiagnostics::Pass pass{settings_.folders(), settings_.walkResolver(), {}, settings_.generation()};
    for (const auto& p : params.previousResultIds) pass.previous[p.uri] = p.value;
    std::optional<json> token = params.workDoneToken;
    if (token) dispatcher_.trackProgress(*token, reply.key());
    // Begun here, before the work is queued, so that the client sees the same sequence whenever a
    // cancellation lands: begin, then exactly one end ("cancelled" if the pass never finished).
    auto progress = std::make_shared<WorkDoneReporter>(
        [this](const json& t, const WorkDoneProgress& v) { dispatcher_.notify("$/progress", {{"token", t}, {"value", v}}); },
        token);
    progress->begin("ptlint: checking the workspace");
    scheduler_.run(Pool::Heavy, reply, [this, pass = std::move(pass), reply, progress]() mutable {
      projects_.refreshAll();  // the open documents' facts: files may have changed on disk
      auto report = workspace_.run(pass, [&] { return reply.cancelled() || scheduler_.shuttingDown(); }, *progress);
      if (!report) return;  // progress ends as "cancelled"
      progress->end(std::to_string(report->items.size()) + " files checked");
      reply(*report);
    });
  }

  // --- Code actions -------------------------------------------------------------------------------

  // Quickfixes are answered from the analysis on the analysis pool; when a fix-all action is
  // wanted too, the answer is finished on the heavy pool, so that computing it never delays
  // other requests.
  void onCodeAction(const CodeActionParams& params, Reply<std::vector<CodeAction>> reply) {
    auto on_result = [this, params, reply](ResultPtr result) {
      if (!result) return reply({});
      const DocumentSnapshot& snap = *result->snapshot;
      uint32_t from = toOffset(snap.text(), snap.lines, params.range.start, encoding_);
      uint32_t to = toOffset(snap.text(), snap.lines, params.range.end, encoding_);
      if (to < from) std::swap(from, to);
      CodeActionProvider::Quickfixes fixes;
      // A notebook's joined text: every edit is checked against its cells (masked magics,
      // boundaries); when the cells moved on since this analysis, nothing is offered.
      auto notebook = notebooks_.joinedNotebook(params.textDocument.uri);
      if (notebook && notebook->joined != snap.text()) return reply({});
      std::optional<workspace::JoinedTracker> tracker;
      if (notebook) tracker.emplace(*notebook);
      if (kindRequested(params.context.only, "quickfix")) {
        // With gpuCheck, the first quickfix request that meets a PTL601 fix queues every pattern
        // of the document for one background validation (one ptlint-gpu start for all of them).
        CodeActionProvider::Verdict verdict;
        if (settings_.gpuCheckFor(params.textDocument.uri)) {
          device_.request(*result, from, to);
          verdict = [this](const rules::Diagnostic& d, std::string& note) { return device_.verdict(d, note); };
        }
        fixes = codeActions().quickfixes(*result, from, to, verdict, tracker ? &*tracker : nullptr);
      }
      // Fix-all: always when asked for by kind (on save), otherwise only when it would do something.
      // A notebook's cells also answer `notebook.source.fixAll` (VS Code's notebook on-save kind)
      // with the same edits, across its cells.
      bool notebook_fix_all = notebook && params.context.only && kindRequested(params.context.only, kNotebookFixAllKind);
      bool fix_all_asked = notebook_fix_all || (params.context.only && kindRequested(params.context.only, kFixAllKind));
      if (!fix_all_asked && (params.context.only || !fixes.any_safe_fix)) return reply(fixes.actions);
      std::string fix_all_kind(notebook_fix_all && !kindRequested(params.context.only, kFixAllKind) ? kNotebookFixAllKind
                                                                                                    : kFixAllKind);
      scheduler_.post(Pool::Heavy, [this, result, reply, notebook, fix_all_kind,
                                    actions = std::move(fixes.actions)]() mutable {
        if (reply.cancelled()) return;
        answerErrors(reply, [&] {
          auto edits = FixAll(encoding_).edits(*result, cancelledFn(reply), notebook.get());
          if (!edits.empty()) {
            CodeAction action;
            action.title = std::string(FixAll::kTitle);
            action.kind = fix_all_kind;
            action.edit = codeActions().workspaceEdit(*result->snapshot, std::move(edits));
            actions.push_back(std::move(action));
          }
          reply(actions);
        });
      });
    };
    scheduler_.whenAnalyzed(params.textDocument.uri, Pool::Analysis, Scheduler::guarded(reply, on_result));
  }

  void onExecuteCommand(const ExecuteCommandParams& params, Reply<json> reply) {
    if (params.command != kApplyFixAllCommand)
      throw LspError(ErrorCode::InvalidParams, "unknown command " + params.command);
    std::string uri;
    if (!params.arguments.empty()) {
      const json& arg = params.arguments[0];
      if (arg.is_string()) uri = arg.get<std::string>();
      else if (arg.is_object() && arg.contains("uri") && arg["uri"].is_string()) uri = arg["uri"].get<std::string>();
    }
    if (uri.empty()) throw LspError(ErrorCode::InvalidParams, "ptlint.applyFixAll expects [{\"uri\": ...}]");
    if (!docs_.isOpen(uri)) throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
    scheduler_.whenAnalyzed(uri, Pool::Heavy, Scheduler::guarded(reply, [this, reply](ResultPtr result) {
      if (!result) throw LspError(ErrorCode::ContentModified, "the document was closed");
      auto notebook = notebooks_.joinedNotebook(result->snapshot->uri);
      auto edits = FixAll(encoding_).edits(*result, cancelledFn(reply), notebook.get());
      if (!edits.empty()) {
        // Versioned, so that the client refuses it if the user typed meanwhile.
        WorkspaceEdit workspace_edit;
        workspace_edit.documentChanges =
            std::vector<TextDocumentEdit>{TextDocumentEdit{{result->snapshot->uri, result->snapshot->version}, std::move(edits)}};
        dispatcher_.request("workspace/applyEdit", ApplyWorkspaceEditParams{std::string(FixAll::kTitle), workspace_edit});
      }
      reply(nullptr);
    }));
  }

  template <typename T>
  std::function<bool()> cancelledFn(const Reply<T>& reply) {
    return [this, reply] { return reply.cancelled() || scheduler_.shuttingDown(); };
  }

  CodeActionProvider codeActions() const { return CodeActionProvider({encoding_, capabilities_.documentChanges}); }

  // --- Hover --------------------------------------------------------------------------------------

  void onHover(const HoverParams& params, Reply<json> reply) {
    scheduler_.whenAnalyzed(params.textDocument.uri, Pool::Analysis,
                            Scheduler::guarded(reply, [this, params, reply](ResultPtr result) {
                              std::optional<Hover> hover;
                              if (result) hover = HoverProvider(encoding_).hover(*result, params.position);
                              reply(hover ? json(*hover) : json(nullptr));
                            }));
  }

  // --- Debugging aid (used by the equivalence test) ------------------------------------------------

  // `ptlint/debugDocument`: the server's text of a document, and whether its incrementally
  // maintained tree equals a fresh parse of that text.
  void onDebugDocument(const DocumentDiagnosticParams& params, Reply<json> reply) {
    std::string uri = params.textDocument.uri;
    scheduler_.run(Pool::Heavy, reply, [this, uri, reply] {
      auto snap = docs_.snapshot(uri);
      if (!snap) throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
      auto fresh = analysis::ParsedFile::parse(std::string(snap->text()));
      char* a = ts_node_string(snap->file->root());
      char* b = ts_node_string(fresh.root());
      bool same = std::string_view(a) == std::string_view(b);
      std::free(a);
      std::free(b);
      reply(json{{"version", snap->version}, {"text", snap->text()}, {"treeMatchesFreshParse", same}});
    });
  }

  Transport& transport_;
  Outbox outbox_;  // every message the server writes
  Dispatcher dispatcher_;
  DocumentStore docs_;
  NotebookDocuments notebooks_;
  ServerSettings settings_;
  std::mutex compile_log_mutex_;                // guards the two below
  std::set<std::string> compile_log_globs_;     // what the client watches for `compileLog`
  int compile_log_registrations_ = 0;
  ProjectTracker projects_;
  DocumentAnalyzer analyzer_;
  DeviceVerdicts device_;
  Scheduler scheduler_;
  DocumentSync sync_;
  WorkspaceDiagnostics workspace_;
  // Written on the I/O thread during initialize only (before any work is queued); read after.
  ClientCapabilities capabilities_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
};

}  // namespace

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
