// The server's analysis of open documents and its requests on them (language_server.h):
// pulled diagnostics, code actions and the fix-all command, hover, and the debugging aid.
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/fix_all.h"
#include "server/hover.h"
#include "server/json_text.h"
#include "server/language_server.h"

namespace ptlint::server {

ResultPtr LspServer::analyzeDocument(const std::shared_ptr<const DocumentSnapshot>& snap, const ResultPtr& previous) {
  if (snap->in_sync && (!previous || previous->snapshot->revision != snap->revision))
    projects_.textAnalysed(snap->uri, snap->text());
  return analyzer_.analyze(snap, previous);
}

void LspServer::onProjectRelinked(const std::vector<fs::path>& changed) {
  std::set<fs::path> files(changed.begin(), changed.end());
  for (const auto& uri : docs_.openUris())
    if (auto path = uriToPath(uri); path && files.count(path->lexically_normal())) scheduler_.schedule(uri);
  if (capabilities_.diagnosticRefresh) dispatcher_.request("workspace/diagnostic/refresh", nullptr, [](const json&) {});
}

void LspServer::onDocumentDiagnostic(const DocumentDiagnosticParams& params, Reply<DocumentDiagnosticReport> reply) {
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

void LspServer::onWorkspaceDiagnostic(const WorkspaceDiagnosticParams& params, Reply<WorkspaceDiagnosticReport> reply) {
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

void LspServer::onCodeAction(const CodeActionParams& params, Reply<std::vector<CodeAction>> reply) {
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

void LspServer::onExecuteCommand(const ExecuteCommandParams& params, Reply<json> reply) {
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

void LspServer::onHover(const HoverParams& params, Reply<json> reply) {
  scheduler_.whenAnalyzed(params.textDocument.uri, Pool::Analysis,
                          Scheduler::guarded(reply, [this, params, reply](ResultPtr result) {
                            std::optional<Hover> hover;
                            if (result) hover = HoverProvider(encoding_).hover(*result, params.position);
                            reply(hover ? json(*hover) : json(nullptr));
                          }));
}

void LspServer::onDebugDocument(const DocumentDiagnosticParams& params, Reply<json> reply) {
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

}  // namespace ptlint::server
