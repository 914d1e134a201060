#include "server/document_sync.h"

#include "server/json_text.h"
#include "server/log.h"

namespace ptlint::server {
namespace {

std::string publication(json params) {
  return serializeMessage(notificationMessage("textDocument/publishDiagnostics", std::move(params)));
}

}  // namespace

void DocumentSync::didOpen(const DidOpenTextDocumentParams& params) {
  const auto& doc = params.textDocument;
  docs_.open(doc.uri, doc.version, doc.text);
  projects_.opened(doc.uri);
  scheduler_.opened(doc.uri);
}

void DocumentSync::didChange(const DidChangeTextDocumentParams& params) {
  const std::string& uri = params.textDocument.uri;
  switch (docs_.change(uri, params.textDocument.version.value_or(0), params.contentChanges, encoding_)) {
    case DocumentStore::ChangeResult::NotOpen:
      logToStderr("didChange for a document that is not open: " + uri);
      return;
    case DocumentStore::ChangeResult::IgnoredOutOfSync:
      logToStderr("didChange ignored: " + uri + " is out of sync until its whole text is sent again");
      return;
    case DocumentStore::ChangeResult::Applied:
      break;
  }
  scheduler_.schedule(uri);
}

void DocumentSync::didClose(const DidCloseTextDocumentParams& params) {
  const std::string& uri = params.textDocument.uri;
  docs_.close(uri);
  projects_.closed(uri);
  uint64_t seq = scheduler_.closed(uri);
  outbox_.publish(uri, seq, publication(PublishDiagnosticsParams{uri, std::nullopt, {}}));
}

void DocumentSync::lostChange(std::string_view body) {
  if (auto uri = findStringMember(body, "uri"); uri && docs_.isOpen(*uri)) {
    markOutOfSync(*uri, "a didChange that is not valid JSON");
    return;
  }
  for (const auto& uri : docs_.openUris()) markOutOfSync(uri, "a didChange that is not valid JSON");
}

void DocumentSync::markOutOfSync(const std::string& uri, const std::string& why) {
  if (!docs_.markOutOfSync(uri)) return;
  std::string message = "ptlint: lost a change to " + uri + " (" + why +
                        "); its diagnostics are off until the file is closed and reopened";
  logToStderr(message);
  dispatcher_.showMessage(MessageType::Warning, message);
  scheduler_.schedule(uri);  // the new analysis sees the mark and clears the diagnostics
}

void DocumentSync::publish(const std::string& uri, uint64_t seq, const ResultPtr& result) {
  if (notebooks_.isNotebook(uri)) {
    for (auto& [cell, list] : notebooks_.splitDiagnostics(uri, json(result->diagnostics)))
      outbox_.publish(cell, seq, publication(json{{"uri", cell}, {"diagnostics", list}}));
    return;
  }
  const auto& snap = *result->snapshot;
  outbox_.publish(uri, seq,
                  publication(publishDiagnosticsJson(uri, snap.in_sync ? std::optional<int>(snap.version) : std::nullopt,
                                                     result->diagnostics)));
}

// --- Notebook documents (LSP 3.17): the joined code cells are analysed under the notebook's URI --

void DocumentSync::notebookDidOpen(const json& params) {
  auto joined = notebooks_.open(params);
  if (!joined) throw LspError(ErrorCode::InvalidParams, "notebookDocument/didOpen without a notebook URI");
  didOpen(DidOpenTextDocumentParams{TextDocumentItem{joined->uri, "python", joined->version, joined->text}});
}

void DocumentSync::notebookDidChange(const json& params) {
  auto joined = notebooks_.change(params, encoding_);
  if (!joined) {
    logToStderr("notebookDocument/didChange for a notebook that is not open");
    return;
  }
  docs_.change(joined->uri, joined->version, {TextDocumentContentChangeEvent{std::nullopt, joined->text}}, encoding_);
  scheduler_.schedule(joined->uri);
  if (!joined->closed_cells.empty()) clearCells(joined->closed_cells);
  // A change in one cell can change what the others report (an import, a dataflow).
  if (refresh_cells_) dispatcher_.request("workspace/diagnostic/refresh", nullptr, [](const json&) {});
}

void DocumentSync::notebookDidClose(const json& params) {
  std::string uri = params.at("notebookDocument").value("uri", "");
  auto cells = notebooks_.close(uri);
  didClose(DidCloseTextDocumentParams{TextDocumentIdentifier{uri}});
  clearCells(cells);
}

// Empty diagnostics for cells that left a notebook.
void DocumentSync::clearCells(const std::vector<std::string>& cells) {
  uint64_t seq = scheduler_.nextSequence();
  for (const auto& cell : cells)
    outbox_.publish(cell, seq, publication(PublishDiagnosticsParams{cell, std::nullopt, {}}));
}

}  // namespace ptlint::server
