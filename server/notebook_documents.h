// LSP 3.17 notebook documents: the cells of each open notebook, kept in sync through
// `notebookDocument/didOpen|didChange|didClose`, joined into one Python text (the notebook's
// URI is analysed like a text document), and the mapping between that text's lines and the
// cells' own URIs and lines for diagnostics, code actions and hovers.
//
// Thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/document_store.h"
#include "server/position_encoding.h"
#include "workspace/notebook.h"

namespace ptlint::server {

class NotebookDocuments {
 public:
  using json = nlohmann::json;

  // The notebook's URI, version and joined text after a change; nullopt when not open.
  struct Joined {
    std::string uri;
    int version = 0;
    std::string text;
    std::vector<std::string> closed_cells;  // cells removed by this change (to clear)
  };

  std::optional<Joined> open(const json& params);
  std::optional<Joined> change(const json& params, PositionEncoding encoding);
  // Closes the notebook; returns its cells' URIs (their diagnostics are to be cleared).
  std::vector<std::string> close(const std::string& notebook_uri);

  bool isNotebook(const std::string& uri) const;
  // The cells behind the notebook's joined text as last joined (masked lines, boundaries); null
  // when not open. Edits on the joined text are checked and mapped through it.
  std::shared_ptr<const workspace::Notebook> joinedNotebook(const std::string& notebook_uri) const;
  // The notebook a cell belongs to; nullopt when `uri` is not an open notebook's cell.
  std::optional<std::string> notebookOf(const std::string& cell_uri) const;

  // Diagnostics (LSP objects with ranges in the joined text) split per cell URI, every code
  // cell listed (an empty list clears it).
  std::vector<std::pair<std::string, json>> splitDiagnostics(const std::string& notebook_uri,
                                                             const json& diagnostics) const;

  // A request on a cell: its params with the notebook's URI and lines, and a function that
  // maps the result back to the cell. nullopt when `params` names no open cell.
  struct CellRequest {
    json params;
    std::function<json(json)> map_result;
  };
  std::optional<CellRequest> forCell(const std::string& method, const json& params) const;

 private:
  struct Cell {
    std::string uri;
    int kind = 2;  // NotebookCellKind: 1 markup, 2 code
    std::string language = "python";
    int version = 0;
  };
  struct Notebook {
    int version = 0;
    std::vector<Cell> cells;
    std::shared_ptr<const workspace::Notebook> joined;
    // Per code cell in the joined text: its URI and first line, and one past its last line.
    std::vector<std::tuple<std::string, uint32_t, uint32_t>> layout;
  };

  Joined joinLocked(const std::string& uri, Notebook& notebook);
  bool isCode(const Cell& cell) const { return cell.kind == 2 && cell.language == "python"; }
  // The cell (URI, first line) whose lines hold [line, end_line]; nullopt when none does.
  std::optional<std::pair<std::string, uint32_t>> cellForLines(const Notebook& notebook, uint32_t line,
                                                               uint32_t end_line) const;

  mutable std::mutex mutex_;
  std::map<std::string, Notebook> notebooks_;
  std::map<std::string, std::string> cell_to_notebook_;
  DocumentStore texts_;  // every cell's text, by cell URI
};

}  // namespace ptlint::server
