#include "server/workspace_diagnostics.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "server/transport.h"
#include "workspace/walk.h"

namespace ptlint::server {

namespace fs = std::filesystem;

std::optional<std::string> readDiskText(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || ec || fs::file_size(path, ec) > kMaxMessageBytes || ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  std::string text = out.str();
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

std::optional<WorkspaceDiagnosticReport> WorkspaceDiagnostics::run(const Pass& pass,
                                                                   const std::function<bool()>& cancelled,
                                                                   WorkDoneReporter& progress) const {
  std::vector<fs::path> roots;
  for (const auto& f : pass.folders) roots.push_back(f.path);
  workspace::WalkResult walk =
      roots.empty() ? workspace::WalkResult{} : workspace::collectFiles(roots, *pass.walk_resolver, false);
  // Open documents are reported at their editor version, not as on disk.
  std::map<fs::path, std::string> open_by_path;
  for (const auto& uri : docs_.openUris())
    if (auto path = uriToPath(uri)) open_by_path[path->lexically_normal()] = uri;
  // Open documents inside a folder but not (yet) on disk are part of the workspace too.
  std::set<fs::path> listed(walk.files.begin(), walk.files.end());
  for (const auto& [path, uri] : open_by_path) {
    std::string ext = path.extension().string();
    bool in_folder = false;
    for (const auto& f : pass.folders) {
      auto rel = path.lexically_relative(f.path);
      if (!rel.empty() && *rel.begin() != "..") in_folder = true;
    }
    if (in_folder && (ext == ".py" || ext == ".pyi") && !listed.count(path)) walk.files.push_back(path);
  }
  // Notebooks on disk have no cell URIs to report under; open ones publish per cell.
  std::erase_if(walk.files, [](const fs::path& f) { return f.extension() == ".ipynb"; });
  std::sort(walk.files.begin(), walk.files.end());

  WorkspaceDiagnosticReport report;
  size_t total = walk.files.size(), done = 0;
  for (const fs::path& file : walk.files) {
    if (cancelled()) return std::nullopt;
    DocumentDiagnosticReport item;
    item.workspaceItem = true;
    auto open = open_by_path.find(file.lexically_normal());
    ResultPtr result;
    std::string result_id;
    if (open != open_by_path.end()) {
      item.uri = open->second;
      if (auto snap = docs_.snapshot(open->second)) {
        result = analyzer_.analyze(snap);
        item.version = snap->version;
        result_id = result->resultId();
      }
    } else {
      item.uri = pathToUri(file);
      auto text = readDiskText(file);
      if (!text) continue;
      result_id = "disk." + std::to_string(std::hash<std::string>{}(*text)) + "." + std::to_string(pass.generation) + "." +
                  std::to_string(pass.project_epoch);
      auto it = pass.previous.find(*item.uri);
      if (it != pass.previous.end() && it->second == result_id) {
        item.kind = "unchanged";
        item.resultId = result_id;
        report.items.push_back(std::move(item));
        continue;
      }
      result = analyzer_.analyzeText(*item.uri, std::move(*text));
    }
    if (!result) continue;
    item.resultId = result_id;
    auto it = pass.previous.find(*item.uri);
    if (it != pass.previous.end() && it->second == result_id) item.kind = "unchanged";
    else item.items = result->diagnostics;
    report.items.push_back(std::move(item));
    ++done;
    if (total > 0 && (done % 20 == 0 || done == total))
      progress.report(std::to_string(done) + "/" + std::to_string(total) + " files",
                      static_cast<int>(done * 100 / total));
  }
  return report;
}

}  // namespace ptlint::server
