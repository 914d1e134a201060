// A notebook's joined text and its cells (notebook_documents.h): diagnostics split into the cells
// they fall in, and a request on a cell's URI translated into one on the joined text.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/notebook_documents.h"
#include "server/protocol.h"
#include "workspace/notebook.h"

namespace ptlint::server {
namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
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
