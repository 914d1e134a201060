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

// Shifts a range object's lines by -first; false when it is not one.
bool shiftRange(json& range, uint32_t first) {
  if (!range.is_object() || !range.contains("start") || !range.contains("end")) return false;
  for (const char* end : {"start", "end"}) {
    json& position = range[end];
    if (!position.is_object() || !position["line"].is_number_unsigned()) return false;
    position["line"] = position["line"].get<uint32_t>() - first;
  }
  return true;
}

uint32_t lineOf(const json& range, const char* end) {
  const json& position = range.at(end).at("line");
  return position.get<uint32_t>();
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

std::optional<std::pair<std::string, uint32_t>> NotebookDocuments::cellForLines(const Notebook& notebook, uint32_t line,
                                                                                uint32_t end_line) const {
  for (const auto& [uri, first, end] : notebook.layout)
    if (line >= first && line < end) {
      // An end at column 0 of the line after the cell still lies inside it.
      if (end_line < end || end_line == end) return std::make_pair(uri, first);
      return std::nullopt;
    }
  return std::nullopt;
}

std::vector<std::pair<std::string, json>> NotebookDocuments::splitDiagnostics(const std::string& notebook_uri,
                                                                             const json& diagnostics) const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<std::string, json>> out;
  auto it = notebooks_.find(notebook_uri);
  if (it == notebooks_.end()) return out;
  std::map<std::string, json> per_cell;
  for (const auto& [uri, first, end] : it->second.layout) per_cell[uri] = json::array();
  for (json d : diagnostics) {
    if (!d.contains("range")) continue;
    auto cell = cellForLines(it->second, lineOf(d["range"], "start"), lineOf(d["range"], "end"));
    if (!cell) continue;
    shiftRange(d["range"], cell->second);
    if (d.contains("relatedInformation")) d.erase("relatedInformation");  // other cells' lines
    per_cell[cell->first].push_back(std::move(d));
  }
  for (auto& [uri, list] : per_cell) out.emplace_back(uri, std::move(list));
  return out;
}

std::optional<NotebookDocuments::CellRequest> NotebookDocuments::forCell(const std::string& method,
                                                                        const json& params) const {
  if (method != "textDocument/codeAction" && method != "textDocument/hover" && method != "textDocument/diagnostic")
    return std::nullopt;
  if (!params.is_object() || !params.contains("textDocument") || !params["textDocument"].is_object()) return std::nullopt;
  std::string cell_uri = str(params["textDocument"], "uri");
  std::lock_guard lock(mutex_);
  auto owner = cell_to_notebook_.find(cell_uri);
  if (owner == cell_to_notebook_.end()) return std::nullopt;
  auto it = notebooks_.find(owner->second);
  if (it == notebooks_.end()) return std::nullopt;
  uint32_t first = 0, end = 0;
  bool found = false;
  for (const auto& [uri, f, e] : it->second.layout)
    if (uri == cell_uri) {
      first = f;
      end = e;
      found = true;
    }
  std::string notebook_uri = owner->second;
  CellRequest request;
  request.params = params;
  request.params["textDocument"]["uri"] = notebook_uri;
  if (!found) {
    // A markdown cell, or one not analysed: nothing to offer.
    request.map_result = [method](json) -> json {
      if (method == "textDocument/codeAction") return json::array();
      if (method == "textDocument/diagnostic") return {{"kind", "full"}, {"items", json::array()}};
      return nullptr;
    };
    return request;
  }
  auto shiftIn = [first](json& range) {
    for (const char* e : {"start", "end"})
      if (range.contains(e) && range[e].contains("line") && range[e]["line"].is_number_unsigned())
        range[e]["line"] = range[e]["line"].get<uint32_t>() + first;
  };
  if (request.params.contains("range")) shiftIn(request.params["range"]);
  if (request.params.contains("position")) {
    json wrapper = {{"start", request.params["position"]}, {"end", request.params["position"]}};
    shiftIn(wrapper);
    request.params["position"] = wrapper["start"];
  }
  if (request.params.contains("context") && request.params["context"].contains("diagnostics"))
    for (auto& d : request.params["context"]["diagnostics"])
      if (d.contains("range")) shiftIn(d["range"]);
  // Inside [first, end]: a range belongs to this cell.
  auto inCell = [first, end](const json& range) {
    try {
      uint32_t a = lineOf(range, "start"), b = lineOf(range, "end");
      return a >= first && a < end && b <= end;
    } catch (const std::exception&) {
      return false;
    }
  };
  // Where an edit's lines lie: a fix-all may change other cells of the notebook too.
  std::vector<std::tuple<std::string, uint32_t, uint32_t, int>> cells;
  for (const auto& [uri, f, e] : it->second.layout) {
    int version = 0;
    for (const auto& cell : it->second.cells)
      if (cell.uri == uri) version = cell.version;
    cells.emplace_back(uri, f, e, version);
  }
  request.map_result = [method, first, inCell, cell_uri, notebook_uri, cells](json result) -> json {
    if (method == "textDocument/hover") {
      if (result.is_object() && result.contains("range")) {
        if (inCell(result["range"])) shiftRange(result["range"], first);
        else result.erase("range");
      }
      return result;
    }
    if (method == "textDocument/diagnostic") {
      if (result.is_object() && result.contains("items")) {
        json items = json::array();
        for (json d : result["items"])
          if (d.contains("range") && inCell(d["range"])) {
            shiftRange(d["range"], first);
            d.erase("relatedInformation");
            items.push_back(std::move(d));
          }
        result["items"] = std::move(items);
      }
      return result;
    }
    // Code actions: kept when every edit lies in a code cell, mapped onto that cell's URI.
    json actions = json::array();
    if (!result.is_array()) return actions;
    for (json action : result) {
      bool ok = true;
      if (action.contains("diagnostics"))
        for (auto& d : action["diagnostics"]) ok = ok && d.contains("range") && inCell(d["range"]) && shiftRange(d["range"], first);
      if (action.contains("command")) ok = false;  // commands name the notebook's URI
      if (action.contains("edit")) {
        json& edit = action["edit"];
        json edits = json::array();
        if (edit.contains("changes")) {
          for (auto& [uri, list] : edit["changes"].items()) {
            if (uri != notebook_uri) ok = false;
            for (auto& e : list) edits.push_back(e);
          }
        }
        if (edit.contains("documentChanges"))
          for (auto& change : edit["documentChanges"]) {
            if (str(change.value("textDocument", json::object()), "uri") != notebook_uri) ok = false;
            for (auto& e : change.value("edits", json::array())) edits.push_back(e);
          }
        // Each edit onto the cell holding its lines, in the order of the notebook's cells.
        std::vector<json> per_cell(cells.size(), json::array());
        for (auto& e : edits) {
          bool placed = false;
          for (size_t k = 0; ok && !placed && k < cells.size(); ++k) {
            const auto& [uri, f, end, version] = cells[k];
            (void)uri;
            (void)version;
            try {
              uint32_t a = lineOf(e["range"], "start"), b = lineOf(e["range"], "end");
              if (a >= f && a < end && b <= end) {
                shiftRange(e["range"], f);
                per_cell[k].push_back(e);
                placed = true;
              }
            } catch (const std::exception&) {
              ok = false;
            }
          }
          ok = ok && placed;
        }
        json document_changes = json::array(), changes = json::object();
        for (size_t k = 0; k < cells.size(); ++k) {
          if (per_cell[k].empty()) continue;
          const auto& [uri, f, end, version] = cells[k];
          (void)f;
          (void)end;
          document_changes.push_back({{"textDocument", {{"uri", uri}, {"version", version}}}, {"edits", per_cell[k]}});
          changes[uri] = per_cell[k];
        }
        if (edit.contains("documentChanges")) edit = {{"documentChanges", document_changes}};
        else edit = {{"changes", changes}};
      }
      if (ok) actions.push_back(std::move(action));
    }
    return actions;
  };
  return request;
}

}  // namespace ptlint::server
