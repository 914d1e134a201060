// Text synchronisation: open documents and notebooks follow the editor's didOpen / didChange /
// didClose (in arrival order, on the I/O thread), a change that could not be read marks its
// document out of sync, and every new result is published to the document (or to the cells of
// a notebook) in the order the scheduler numbered it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/dispatcher.h"
#include "server/document_store.h"
#include "server/notebook_documents.h"
#include "server/outbox.h"
#include "server/project_tracker.h"
#include "server/scheduler.h"

namespace ptlint::server {

class DocumentSync {
 public:
  DocumentSync(DocumentStore& docs, NotebookDocuments& notebooks, Scheduler& scheduler, Outbox& outbox,
               Dispatcher& dispatcher, ProjectTracker& projects)
      : docs_(docs),
        notebooks_(notebooks),
        scheduler_(scheduler),
        outbox_(outbox),
        dispatcher_(dispatcher),
        projects_(projects) {}

  // Set once, at `initialize`. `refresh_cells`: a notebook change asks the client to pull again.
  void configure(PositionEncoding encoding, bool refresh_cells) {
    encoding_ = encoding;
    refresh_cells_ = refresh_cells;
  }

  void didOpen(const DidOpenTextDocumentParams& params);
  void didChange(const DidChangeTextDocumentParams& params);
  void didClose(const DidCloseTextDocumentParams& params);
  void notebookDidOpen(const json& params);
  void notebookDidChange(const json& params);
  void notebookDidClose(const json& params);

  // A didChange that is not valid JSON (`body`): the document it was for (every open one when
  // its URI cannot be found in the text) is out of sync from now on.
  void lostChange(std::string_view body);
  // A change to `uri` was lost: no later incremental edit may be applied to it; its diagnostics
  // are cleared until the editor sends the whole text again.
  void markOutOfSync(const std::string& uri, const std::string& why);

  // A new result (the scheduler's callback, no lock held).
  void publish(const std::string& uri, uint64_t seq, const ResultPtr& result);

 private:
  void clearCells(const std::vector<std::string>& cells);

  DocumentStore& docs_;
  NotebookDocuments& notebooks_;
  Scheduler& scheduler_;
  Outbox& outbox_;
  Dispatcher& dispatcher_;
  ProjectTracker& projects_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool refresh_cells_ = false;
};

}  // namespace ptlint::server
