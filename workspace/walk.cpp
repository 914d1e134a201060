#include "workspace/walk.h"

#include "analysis/instrumentation.h"
#include "workspace/gitignore.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

bool isPythonFile(const fs::path& path) {
  auto ext = path.extension();
  return ext == ".py" || ext == ".pyi" || ext == ".ipynb";
}

// Folders a walk never enters (a folder named on the command line is still walked): hidden ones
// (`.cache`, `.hidden`) and virtual environments, whatever their name (`pyvenv.cfg` marks one).
bool isSkippedFolder(const fs::path& dir) {
  if (dir.filename().native().starts_with('.')) return true;
  std::error_code ec;
  return fs::is_regular_file(dir / "pyvenv.cfg", ec);
}

}  // namespace

bool isExcluded(const ResolvedConfig& config, const fs::path& path) {
  const std::string& text = path.native();
  const std::string& root = config.root.native();
  std::string relative;
  // Below the root, both normal: the rest of the path (a walk asks for every entry it lists).
  if (text.size() > root.size() + 1 && text[root.size()] == '/' && text.starts_with(root) &&
      absoluteAndNormal(root) && absoluteAndNormal(text))
    relative = text.substr(root.size() + 1);
  else
    relative = path.lexically_relative(config.root).generic_string();
  if (relative.empty() || relative.starts_with("..")) relative = path.filename().generic_string();
  for (const auto& glob : config.exclude)
    if (globMatches(glob, relative)) return true;
  return false;
}

bool pathLess(std::string_view a, std::string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto key = [](char c) { return c == '/' ? -1 : static_cast<int>(static_cast<unsigned char>(c)); };
    return key(x) < key(y);
  });
}

WalkResult collectFiles(const std::vector<fs::path>& roots, ConfigResolver& resolver, bool force_exclude) {
  analysis::timings::Scope timing("collect files");
  WalkResult result;
  auto less = [](const std::string& a, const std::string& b) { return pathLess(a, b); };
  std::set<std::string, decltype(less)> seen_files(less);
  std::set<std::pair<dev_t, ino_t>> seen_dirs;  // guards against bind-mount style loops
  // The ignore files are read only when a .gitignore question comes up: `ptlint check
  // one_file.py` (pre-commit's case) never reads them.
  std::unique_ptr<GitIgnore> lazy_oracle;
  auto oracle = [&]() -> GitIgnore& {
    if (!lazy_oracle) lazy_oracle = std::make_unique<GitIgnore>();
    return *lazy_oracle;
  };
  // Only inside a work tree (`.git`, a folder or a worktree's file, in the folder or above it) can
  // a .gitignore apply; elsewhere nothing is asked.
  std::unordered_map<std::string, bool> work_tree_cache;  // by folder (native string)
  auto inside_work_tree = [&](const fs::path& dir) {
    std::vector<fs::path> visited;
    bool found = false;
    for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
      if (auto it = work_tree_cache.find(d.native()); it != work_tree_cache.end()) {
        found = it->second;
        break;
      }
      visited.push_back(d);
      std::error_code ec;
      if (fs::exists(fs::symlink_status(d / ".git", ec))) {
        found = true;
        break;
      }
      if (d == d.parent_path()) break;
    }
    for (const auto& v : visited) work_tree_cache[v.native()] = found;
    return found;
  };

  // A folder whose configuration is invalid is reported (once per message) and not walked; the
  // other folders still are.
  auto configOf = [&](const fs::path& path) -> std::optional<ResolvedConfig> {
    try {
      return resolver.forPath(path);
    } catch (const ConfigError& e) {
      std::string message = e.what();
      if (std::find(result.config_errors.begin(), result.config_errors.end(), message) == result.config_errors.end())
        result.config_errors.push_back(std::move(message));
      return std::nullopt;
    }
  };
  for (const fs::path& root_arg : roots) {
    std::error_code ec;
    fs::path root = fs::absolute(root_arg, ec).lexically_normal();
    if (root.has_filename() == false && root != root.root_path()) root = root.parent_path();
    fs::file_status status = fs::status(root, ec);
    if (ec || !fs::exists(status)) {
      // `ec` says why a path cannot be looked at (a folder above it that cannot be searched).
      result.errors.push_back(root_arg.string() + ": " + (ec ? ec.message() : "No such file or directory"));
      continue;
    }
    if (!fs::is_directory(status)) {
      if (!fs::is_regular_file(status)) {
        result.errors.push_back(root_arg.string() + ": not a regular file");
        continue;
      }
      if (force_exclude) {
        // An invalid configuration is the engine's to report, against the file.
        auto config = configOf(root);
        if (config && (isExcluded(*config, root) || (config->respect_gitignore &&
                                                     inside_work_tree(root.parent_path()) &&
                                                     oracle().isIgnored(root, false))))
          continue;
      }
      seen_files.insert(root.native());
      continue;
    }
    if (force_exclude) {
      auto config = configOf(root);
      if (!config) continue;
      if (isExcluded(*config, root)) continue;
    }
    // Iterative walk; symlinked folders are not followed.
    std::vector<fs::path> stack{root};
    while (!stack.empty()) {
      fs::path dir = stack.back();
      stack.pop_back();
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0 && !seen_dirs.insert({st.st_dev, st.st_ino}).second) continue;
      fs::directory_iterator it(dir, fs::directory_options::none, ec);
      if (ec) {
        // Asked for and not checked: an error (exit 2), never "All checks passed!".
        result.errors.push_back(dir.string() + ": cannot read folder (" + ec.message() + ")");
        continue;
      }
      auto resolved = configOf(dir);
      if (!resolved) continue;  // not walked: its configuration is invalid (reported once)
      const ResolvedConfig& config = *resolved;
      bool ask_git = config.respect_gitignore && inside_work_tree(dir);
      std::vector<fs::path> subdirs;
      // Entries whose type cannot be learnt (a folder listable but not searchable, a path past
      // PATH_MAX): each may be a source file or a folder, so they are an error, told once per folder.
      size_t unknown = 0;
      std::string unknown_reason;
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) {
          result.errors.push_back(dir.string() + ": cannot read folder (" + ec.message() + ")");
          break;
        }
        const fs::directory_entry& entry = *it;
        // The type the listing gave (no lstat per entry) where the file system gives one.
        bool is_link = entry.is_symlink(ec);
        bool is_dir = !ec && !is_link && entry.is_directory(ec);
        bool is_file = !ec && !is_link && !is_dir && entry.is_regular_file(ec);
        if (ec) {
          if (!isSkippedFolder(entry.path()) && !isExcluded(config, entry.path())) {
            if (unknown++ == 0) unknown_reason = entry.path().filename().string() + ": " + ec.message();
          }
          ec.clear();
          continue;
        }
        const fs::path& path = entry.path();
        if (!is_dir && !is_file) continue;  // symlinks, FIFOs, sockets, devices
        if (is_file && !isPythonFile(path)) continue;
        if (is_dir && isSkippedFolder(path)) continue;
        if (isExcluded(config, path)) continue;
        if (ask_git && oracle().isIgnored(path, is_dir)) continue;
        if (is_dir) subdirs.push_back(path);
        else seen_files.insert(path.native());
      }
      if (unknown > 0)
        result.errors.push_back(fmt::format("{}: cannot check {} entr{} of this folder ({})", dir.string(), unknown,
                                            unknown == 1 ? "y" : "ies", unknown_reason));
      std::sort(subdirs.rbegin(), subdirs.rend());
      for (auto& sub : subdirs) stack.push_back(std::move(sub));
    }
  }
  // Moved out node by node, never copied: each path holds one object per level of its folder.
  result.files.reserve(seen_files.size());
  while (!seen_files.empty()) result.files.push_back(std::move(seen_files.extract(seen_files.begin()).value()));
  return result;
}

}  // namespace ptlint::workspace
