#include "server/workspace_diagnostics.h"

#include <algorithm>
#include <set>

#include "server/diagnostics.h"
#include "workspace/engine.h"
#include "workspace/walk.h"

namespace ptlint::server {

namespace fs = std::filesystem;

std::optional<std::string> readDiskText(const fs::path& path) {
  std::string error;
  auto source = workspace::readLintSource(path, error);
  if (!source) return std::nullopt;
  return std::optional<std::string>(std::move(source->text));
}

std::optional<WorkspaceDiagnosticReport> WorkspaceDiagnostics::run(const Pass& pass,
                                                                   const std::function<bool()>& cancelled,
                                                                   WorkDoneReporter& progress) const {
  std::vector<fs::path> roots;
  for (const auto& f : pass.folders) roots.push_back(f.path);
  workspace::WalkResult walk =
      roots.empty() ? workspace::WalkResult{} : workspace::collectFiles(roots, *pass.walk_resolver, false);
  // Open documents are checked at their editor version, not as on disk.
  std::map<fs::path, std::string> open_by_path;
  for (const auto& uri : docs_.openUris())
    if (auto path = uriToPath(uri)) open_by_path[path->lexically_normal()] = uri;
  // Open documents inside a folder but not (yet) on disk are part of the workspace too.
  std::set<std::string> listed(walk.files.begin(), walk.files.end());
  for (const auto& [path, uri] : open_by_path) {
    std::string ext = path.extension().string();
    bool in_folder = false;
    for (const auto& f : pass.folders) {
      auto rel = path.lexically_relative(f.path);
      if (!rel.empty() && *rel.begin() != "..") in_folder = true;
    }
    if (in_folder && (ext == ".py" || ext == ".pyi") && !listed.count(path.native())) walk.files.push_back(path.native());
  }
  // Notebooks on disk have no cell URIs to report under; open ones publish per cell.
  std::erase_if(walk.files, [](const std::string& f) { return f.ends_with(".ipynb"); });
  std::sort(walk.files.begin(), walk.files.end(), [](const std::string& a, const std::string& b) { return workspace::pathLess(a, b); });

  std::vector<workspace::FileInput> inputs;
  std::vector<std::string> uris;
  for (const std::string& name : walk.files) {
    const fs::path file(name);
    workspace::FileInput input{name, std::nullopt, std::nullopt};
    auto open = open_by_path.find(file.lexically_normal());
    if (open != open_by_path.end()) {
      auto text = docs_.text(open->second);
      auto snap = text ? docs_.snapshot(open->second) : nullptr;
      if (!snap || !snap->in_sync) continue;  // closed meanwhile, or not the editor's text
      input.content = std::move(*text);
      input.version = snap->version;
      uris.push_back(open->second);
    } else {
      uris.push_back(pathToUri(file));
    }
    inputs.push_back(std::move(input));
  }
  if (cancelled()) return std::nullopt;

  workspace::EngineOptions options;
  options.resolve = [this](const fs::path& path) { return settings_.resolvedConfigFor(path); };
  options.overlay = overlay_;
  if (std::any_of(roots.begin(), roots.end(), [this](const fs::path& root) { return settings_.compileLogFor(root); }))
    options.runtime = [this](const fs::path& path) { return settings_.runtimeFor(path); };
  options.threads = 2;
  workspace::Engine engine(std::move(options));
  workspace::RunHooks hooks;
  hooks.progress = [&](size_t done, size_t total) {
    if (cancelled()) hooks.cancel.cancel();  // the files not started are skipped
    if (total > 0 && (done % 20 == 0 || done == total))
      progress.report(std::to_string(done) + "/" + std::to_string(total) + " files",
                      static_cast<int>(done * 100 / total));
  };
  auto results = engine.run(inputs, hooks);
  if (cancelled()) return std::nullopt;

  WorkspaceDiagnosticReport report;
  for (size_t i = 0; i < results.size(); ++i) {
    const workspace::FileResult& r = results[i];
    DocumentDiagnosticReport item;
    item.workspaceItem = true;
    item.uri = uris[i];
    if (r.version) item.version = static_cast<int>(*r.version);
    if (r.status == workspace::FileStatus::ReadError && r.error && workspace::isTooLargeMessage(*r.error)) {
      // Not linted, as the CLI and an open document say.
      item.resultId = "too-large";
      item.items.push_back(fileNotice(*r.error));
      report.items.push_back(std::move(item));
      continue;
    }
    if (r.status != workspace::FileStatus::Checked && r.status != workspace::FileStatus::Cached) continue;
    // The text, the settings and what the project says about the file decide its findings.
    std::string facts = r.settings.project ? r.settings.project->digest : std::string();
    item.resultId = (r.version ? "open." : "disk.") + std::to_string(std::hash<std::string>{}(r.text)) + "." +
                    std::to_string(pass.generation) + "." + std::to_string(std::hash<std::string>{}(facts));
    auto previous = pass.previous.find(uris[i]);
    if (previous != pass.previous.end() && previous->second == item.resultId) {
      item.kind = "unchanged";
    } else {
      LineTable lines(r.text);
      for (const auto& d : r.diagnostics)
        item.items.push_back(
            toLspDiagnostic(d, uris[i], r.text, lines, analyzer_.encoding(), analyzer_.relatedInformation()));
    }
    report.items.push_back(std::move(item));
  }
  return report;
}

}  // namespace ptlint::server
