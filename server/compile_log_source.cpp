#include "server/compile_log_source.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include "server/log.h"
#include "workspace/compile_log.h"

namespace fs = std::filesystem;

namespace ptlint::server {
namespace {

constexpr auto kRecheck = std::chrono::seconds(1);
constexpr size_t kMaxPythonFiles = 200000;

bool hasWildcard(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

// The folder's Python files, for the path mapping (hidden folders and virtual environments skipped).
std::vector<fs::path> pythonFiles(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && out.size() < kMaxPythonFiles; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code fec;
    if (it->is_directory(fec)) {
      if (name.starts_with(".") || name == "__pycache__" || name == "node_modules" || name == "venv" ||
          name == "site-packages")
        it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() == ".py" && it->is_regular_file(fec)) out.push_back(it->path().lexically_normal());
  }
  return out;
}

}  // namespace

std::vector<fs::path> CompileLogSource::expand(const fs::path& folder, const std::string& pattern) {
  fs::path p(pattern);
  if (p.is_relative()) p = folder / p;
  p = p.lexically_normal();
  if (!hasWildcard(p.string())) return {p};
  // Component by component: literal parts are appended, wildcard parts list the folders so far.
  std::vector<fs::path> current{p.root_path()};
  for (const fs::path& part : p.relative_path()) {
    std::string text = part.string();
    std::vector<fs::path> next;
    for (const fs::path& base : current) {
      std::error_code ec;
      if (text == "**") {
        next.push_back(base);
        for (fs::recursive_directory_iterator it(base, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end && next.size() < 10000; it.increment(ec)) {
          std::error_code dec;
          if (it->is_directory(dec)) next.push_back(it->path());
        }
      } else if (!hasWildcard(text)) {
        next.push_back(base / part);
      } else {
        for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec))
          if (::fnmatch(text.c_str(), it->path().filename().c_str(), FNM_PERIOD) == 0) next.push_back(it->path());
      }
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    current = std::move(next);
  }
  std::erase_if(current, [](const fs::path& path) {
    std::error_code ec;
    return !fs::exists(path, ec);
  });
  return current;
}

std::vector<std::pair<fs::path, std::string>> CompileLogSource::stampsOf(const std::vector<fs::path>& logs) {
  std::vector<std::pair<fs::path, std::string>> out;
  for (const fs::path& log : logs) {
    std::error_code ec;
    std::string stamp;
    if (fs::is_directory(log, ec)) {
      for (fs::directory_iterator it(log, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        stamp += fmt::format("{}:{}:{};", it->path().filename().string(), it->file_size(fec),
                             it->last_write_time(fec).time_since_epoch().count());
      }
    } else {
      stamp = fmt::format("{}:{}", fs::file_size(log, ec), fs::last_write_time(log, ec).time_since_epoch().count());
    }
    out.emplace_back(log, stamp);
  }
  return out;
}

std::shared_ptr<const CompileLogSource::Loaded> CompileLogSource::load(const fs::path& folder,
                                                                      const std::string& pattern) {
  auto key = std::make_pair(folder.string(), pattern);
  auto now = std::chrono::steady_clock::now();
  std::shared_ptr<Loaded> previous;
  {
    std::lock_guard lock(mutex_);
    auto it = loaded_.find(key);
    if (it != loaded_.end()) {
      previous = it->second;
      if (!previous->stale && now - previous->checked < kRecheck) return previous;
    }
  }
  std::vector<fs::path> logs = expand(folder, pattern);
  auto stamps = stampsOf(logs);
  if (previous && !previous->stale && previous->stamps == stamps) {
    std::lock_guard lock(mutex_);
    previous->checked = now;
    return previous;
  }
  // Read and map, no lock held (two analyses may both do it; the later one stays).
  auto fresh = std::make_shared<Loaded>();
  fresh->stamps = std::move(stamps);
  fresh->checked = now;
  if (logs.empty()) {
    report_(fmt::format("ptlint: setting `compileLog`: `{}` matches no file under {}", pattern, folder.string()));
  } else {
    std::vector<fs::path> files = pythonFiles(folder);
    for (const fs::path& path : logs) {
      workspace::CompileLog log = workspace::readCompileLog(path);
      if (log.error) report_(fmt::format("ptlint: compile log: {}", *log.error));
      if (log.best_effort) logToStderr(fmt::format("compile log {}: read on a best-effort basis", path.string()));
      workspace::CompileLogMapping mapping = workspace::mapCompileLog(log, files);
      for (const auto& note : mapping.notes) logToStderr("compile log: " + note);
      for (auto& [file, findings] : mapping.per_file) {
        auto& slot = fresh->per_file[file];
        if (!slot) {
          slot = findings;
          continue;
        }
        auto merged = std::make_shared<rules::RuntimeFindings>(*slot);  // several logs: their findings together
        merged->findings.insert(merged->findings.end(), findings->findings.begin(), findings->findings.end());
        merged->digest += findings->digest;
        slot = merged;
      }
    }
  }
  std::lock_guard lock(mutex_);
  loaded_[key] = fresh;
  return fresh;
}

std::shared_ptr<const rules::RuntimeFindings> CompileLogSource::findingsFor(const fs::path& folder,
                                                                           const std::string& pattern,
                                                                           const fs::path& file) {
  auto loaded = load(folder, pattern);
  auto it = loaded->per_file.find(file.lexically_normal());
  return it == loaded->per_file.end() ? nullptr : it->second;
}

bool CompileLogSource::changed(const fs::path& path) {
  std::lock_guard lock(mutex_);
  bool any = false;
  for (auto& [key, loaded] : loaded_) {
    bool ours = hasWildcard(key.second);
    for (const auto& [log, stamp] : loaded->stamps) {
      auto rel = path.lexically_normal().lexically_relative(log);
      if (path.lexically_normal() == log || (!rel.empty() && *rel.begin() != "..")) ours = true;
    }
    if (ours) loaded->stale = any = true;
  }
  return any;
}

}  // namespace ptlint::server
