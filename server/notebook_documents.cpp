#include "server/notebook_documents.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "server/protocol.h"

#include "workspace/notebook.h"

namespace ptlint::server {
namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An integer member, clamped into int (a version or a kind); 0 when absent or not an integer.
int num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  if (it->is_number_unsigned()) return static_cast<int>(std::min<uint64_t>(it->get<uint64_t>(), INT32_MAX));
  return static_cast<int>(std::clamp<int64_t>(it->get<int64_t>(), INT32_MIN, INT32_MAX));
}

// A structure index (`start`, `deleteCount`) never narrowed: one past `limit` or not a
// non-negative integer is refused (applying it elsewhere would delete the wrong cells).
size_t index(const json& array, const char* key, size_t limit, const char* what) {
  auto it = array.find(key);
  if (it == array.end()) return 0;
  if (!it->is_number_unsigned() || it->get<uint64_t>() > limit)
    throw LspError(ErrorCode::InvalidParams, std::string("notebookDocument/didChange: ") + what + " " + it->dump() +
                                                 " is out of range (at most " + std::to_string(limit) +
                                                 " here); the change was not applied");
  return static_cast<size_t>(it->get<uint64_t>());
}

}  // namespace

std::optional<NotebookDocuments::Joined> NotebookDocuments::open(const json& params) {
  const json& doc = params.at("notebookDocument");
  std::string uri = str(doc, "uri");
  if (uri.empty()) return std::nullopt;
  std::lock_guard lock(mutex_);
  Notebook notebook;
  notebook.version = num(doc, "version");
  std::map<std::string, json> items;
  if (params.contains("cellTextDocuments"))
    for (const auto& item : params["cellTextDocuments"]) items[str(item, "uri")] = item;
  if (doc.contains("cells") && doc["cells"].is_array())
    for (const auto& c : doc["cells"]) {
      Cell cell;
      cell.uri = str(c, "document");
      cell.kind = num(c, "kind");
      auto item = items.find(cell.uri);
      if (item != items.end()) {
        cell.language = str(item->second, "languageId");
        cell.version = num(item->second, "version");
        texts_.open(cell.uri, cell.version, str(item->second, "text"));
      } else {
        texts_.open(cell.uri, 0, "");
      }
      cell_to_notebook_[cell.uri] = uri;
      notebook.cells.push_back(std::move(cell));
    }
  auto& stored = notebooks_[uri] = std::move(notebook);
  return joinLocked(uri, stored);
}

std::optional<NotebookDocuments::Joined> NotebookDocuments::change(const json& params, PositionEncoding encoding) {
  const json& doc = params.at("notebookDocument");
  std::string uri = str(doc, "uri");
  std::lock_guard lock(mutex_);
  auto it = notebooks_.find(uri);
  if (it == notebooks_.end()) return std::nullopt;
  Notebook& notebook = it->second;
  // A change without a version (not as LSP sends it) keeps the notebook's; an older one is refused.
  bool versioned = doc.contains("version") && doc["version"].is_number_integer();
  int version = versioned ? num(doc, "version") : notebook.version;
  if (version < notebook.version)
    throw LspError(ErrorCode::InvalidParams, "notebookDocument/didChange: version " + std::to_string(version) +
                                                 " is older than the notebook's " + std::to_string(notebook.version) +
                                                 "; the change was not applied");
  const json& change = params.value("change", json::object());
  const json cells = change.value("cells", json::object());
  std::vector<std::string> closed_cells;
  if (cells.contains("structure") && cells["structure"].is_object()) {
    const json& structure = cells["structure"];
    const json& array = structure.value("array", json::object());
    // Checked before anything changes: a refused change leaves the notebook as it was.
    size_t start = array.is_object() ? index(array, "start", notebook.cells.size(), "start") : 0;
    size_t count = array.is_object() ? index(array, "deleteCount", notebook.cells.size() - start, "deleteCount") : 0;
    notebook.version = version;
    if (structure.contains("didOpen"))
      for (const auto& item : structure["didOpen"]) texts_.open(str(item, "uri"), num(item, "version"), str(item, "text"));
    std::vector<Cell> inserted;
    if (array.contains("cells") && array["cells"].is_array())
      for (const auto& c : array["cells"]) {
        Cell cell;
        cell.uri = str(c, "document");
        cell.kind = num(c, "kind");
        bool opened = false;
        if (structure.contains("didOpen"))
          for (const auto& item : structure["didOpen"])
            if (str(item, "uri") == cell.uri) {
              cell.language = str(item, "languageId");
              cell.version = num(item, "version");
              opened = true;
            }
        // A moved cell keeps its text and language (it is not re-opened).
        if (!opened)
          for (const auto& old : notebook.cells)
            if (old.uri == cell.uri) {
              cell.language = old.language;
              cell.version = old.version;
            }
        if (!texts_.isOpen(cell.uri)) texts_.open(cell.uri, cell.version, "");
        cell_to_notebook_[cell.uri] = uri;
        inserted.push_back(std::move(cell));
      }
    std::vector<std::string> gone;
    for (size_t k = start; k < start + count; ++k) gone.push_back(notebook.cells[k].uri);
    notebook.cells.erase(notebook.cells.begin() + static_cast<long>(start),
                         notebook.cells.begin() + static_cast<long>(start + count));
    notebook.cells.insert(notebook.cells.begin() + static_cast<long>(start), inserted.begin(), inserted.end());
    if (structure.contains("didClose"))
      for (const auto& item : structure["didClose"]) gone.push_back(str(item, "uri"));
    // A cell removed from the notebook is forgotten and cleared, closed or not.
    for (const auto& cell_uri : gone) {
      bool still_there = std::any_of(notebook.cells.begin(), notebook.cells.end(),
                                     [&](const Cell& c) { return c.uri == cell_uri; });
      auto owner = cell_to_notebook_.find(cell_uri);
      if (still_there || owner == cell_to_notebook_.end() || owner->second != uri) continue;
      texts_.close(cell_uri);
      cell_to_notebook_.erase(owner);
      closed_cells.push_back(cell_uri);
    }
  }
  notebook.version = version;
  if (cells.contains("data"))
    for (const auto& c : cells["data"])
      for (auto& cell : notebook.cells)
        if (cell.uri == str(c, "document")) cell.kind = num(c, "kind");
  if (cells.contains("textContent"))
    for (const auto& content : cells["textContent"]) {
      const json& document = content.value("document", json::object());
      std::string cell_uri = str(document, "uri");
      auto known = std::find_if(notebook.cells.begin(), notebook.cells.end(), [&](const Cell& c) { return c.uri == cell_uri; });
      bool cell_versioned = document.contains("version") && document["version"].is_number_integer();
      if (known != notebook.cells.end() && cell_versioned && num(document, "version") < known->version)
        continue;  // stale: not applied
      std::vector<TextDocumentContentChangeEvent> events;
      for (const auto& e : content.value("changes", json::array())) events.push_back(e.get<TextDocumentContentChangeEvent>());
      texts_.change(cell_uri, num(document, "version"), events, encoding);
      for (auto& cell : notebook.cells)
        if (cell.uri == cell_uri) cell.version = num(document, "version");
    }
  Joined joined = joinLocked(uri, notebook);
  joined.closed_cells = std::move(closed_cells);
  return joined;
}

std::vector<std::string> NotebookDocuments::close(const std::string& notebook_uri) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> uris;
  auto it = notebooks_.find(notebook_uri);
  if (it == notebooks_.end()) return uris;
  for (const auto& cell : it->second.cells) {
    uris.push_back(cell.uri);
    texts_.close(cell.uri);
    cell_to_notebook_.erase(cell.uri);
  }
  notebooks_.erase(it);
  return uris;
}

std::shared_ptr<const workspace::Notebook> NotebookDocuments::joinedNotebook(const std::string& notebook_uri) const {
  std::lock_guard lock(mutex_);
  auto it = notebooks_.find(notebook_uri);
  return it == notebooks_.end() ? nullptr : it->second.joined;
}

bool NotebookDocuments::isNotebook(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return notebooks_.count(uri) > 0;
}

std::optional<std::string> NotebookDocuments::notebookOf(const std::string& cell_uri) const {
  std::lock_guard lock(mutex_);
  auto it = cell_to_notebook_.find(cell_uri);
  if (it == cell_to_notebook_.end()) return std::nullopt;
  return it->second;
}

NotebookDocuments::Joined NotebookDocuments::joinLocked(const std::string& uri, Notebook& notebook) {
  std::vector<std::string> sources;
  std::vector<std::string> uris;
  for (const auto& cell : notebook.cells) {
    if (!isCode(cell)) continue;
    auto snap = texts_.snapshot(cell.uri);
    sources.emplace_back(snap ? std::string(snap->text()) : std::string());
    uris.push_back(cell.uri);
  }
  auto shared = std::make_shared<workspace::Notebook>(workspace::notebookFromCells(sources));
  const workspace::Notebook& joined = *shared;
  notebook.joined = shared;
  notebook.layout.clear();
  auto spans = workspace::splitJoined(joined, joined.joined);
  uint32_t line = 0;
  size_t pos = 0;
  for (size_t k = 0; spans && k < spans->size(); ++k) {
    const auto& span = (*spans)[k];
    line += static_cast<uint32_t>(std::count(joined.joined.begin() + static_cast<long>(pos),
                                             joined.joined.begin() + static_cast<long>(span.begin), '\n'));
    uint32_t last = line + static_cast<uint32_t>(std::count(joined.joined.begin() + static_cast<long>(span.begin),
                                                            joined.joined.begin() + static_cast<long>(span.end), '\n'));
    pos = span.begin;
    // A cell without a final newline still owns its last line.
    notebook.layout.emplace_back(uris[k], line, std::max(last, line + 1));
  }
  return Joined{uri, notebook.version, joined.joined};
}

}  // namespace ptlint::server
