// The server's state and its LSP handlers, wired to the dispatcher (protocol binding), the
// scheduler (workers, versions, cancellation) and the features (diagnostics, code actions,
// fix-all, hover, settings, workspace diagnostics). Handlers run on the I/O thread, in arrival
// order: they apply document changes and hand everything else to the scheduler's pools.
// lsp_server.cpp holds the wiring, the lifecycle and the settings; request_handlers.cpp the
// analysis and the requests on documents. Internal to server/.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/code_actions.h"
#include "server/device_verdicts.h"
#include "server/diagnostics.h"
#include "server/dispatcher.h"
#include "server/document_analysis.h"
#include "server/document_store.h"
#include "server/document_sync.h"
#include "server/notebook_documents.h"
#include "server/outbox.h"
#include "server/project_tracker.h"
#include "server/scheduler.h"
#include "server/server_settings.h"
#include "server/transport.h"
#include "server/workspace_diagnostics.h"

namespace ptlint::server {

namespace fs = std::filesystem;

class LspServer {
  using Pool = Scheduler::Pool;

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
  static constexpr std::string_view kApplyFixAllCommand = "ptlint.applyFixAll";

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

  void bindHandlers();

  // --- Lifecycle --------------------------------------------------------------------------------

  void onInitialize(const InitializeParams& params, Reply<json> reply);
  void onInitialized(const json&);

  // `compileLog`: the client watches the log too (its last path component, anywhere, and the
  // files inside a TORCH_TRACE folder), so that a new run's log is read again at once; without
  // the capability the log is polled on each analysis.
  void watchCompileLogs();
  void onShutdown(const json&, Reply<json> reply);

  // --- Settings and configuration ----------------------------------------------------------------

  void onDidChangeConfiguration(const DidChangeConfigurationParams& params);
  void pullConfiguration();
  void onDidChangeWatchedFiles(const DidChangeWatchedFilesParams& params);
  void onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams& params);
  void onDidSave(const DidSaveTextDocumentParams& params);

  // --- Analysis -----------------------------------------------------------------------------------

  // The scheduler's analysis of an open document. A new text is first shown to the project
  // tracker (it may make a linked project stale; nothing is linked on this path).
  ResultPtr analyzeDocument(const std::shared_ptr<const DocumentSnapshot>& snap, const ResultPtr& previous);

  // A new link changed what the project says about `changed`: their open documents are analysed
  // again (and published when their findings changed); clients that pull are asked to refresh,
  // which also brings the files that are not open up to date.
  void onProjectRelinked(const std::vector<fs::path>& changed);

  // --- Diagnostics on request ---------------------------------------------------------------------

  void onDocumentDiagnostic(const DocumentDiagnosticParams& params, Reply<DocumentDiagnosticReport> reply);
  void onWorkspaceDiagnostic(const WorkspaceDiagnosticParams& params, Reply<WorkspaceDiagnosticReport> reply);

  // --- Code actions -------------------------------------------------------------------------------

  // Quickfixes are answered from the analysis on the analysis pool; when a fix-all action is
  // wanted too, the answer is finished on the heavy pool, so that computing it never delays
  // other requests.
  void onCodeAction(const CodeActionParams& params, Reply<std::vector<CodeAction>> reply);
  void onExecuteCommand(const ExecuteCommandParams& params, Reply<json> reply);

  template <typename T>
  std::function<bool()> cancelledFn(const Reply<T>& reply) {
    return [this, reply] { return reply.cancelled() || scheduler_.shuttingDown(); };
  }

  CodeActionProvider codeActions() const { return CodeActionProvider({encoding_, capabilities_.documentChanges}); }

  // --- Hover --------------------------------------------------------------------------------------

  void onHover(const HoverParams& params, Reply<json> reply);

  // --- Debugging aid (used by the equivalence test) ------------------------------------------------

  // `ptlint/debugDocument`: the server's text of a document, and whether its incrementally
  // maintained tree equals a fresh parse of that text.
  void onDebugDocument(const DocumentDiagnosticParams& params, Reply<json> reply);

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

}  // namespace ptlint::server
