// Finding the files to lint: folders are walked for *.py and *.pyi, honouring .gitignore
// (workspace/gitignore.h), `exclude` globs and the default excludes. Files named explicitly are always
// linted unless `force_exclude`. Symlinked folders are not followed; FIFOs and devices are
// never opened; each real file is listed once.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "workspace/config.h"

namespace ptlint::workspace {

// Orders native paths as std::filesystem::path does, component by component (the separator
// sorts before every other byte).
bool pathLess(std::string_view a, std::string_view b);

struct WalkResult {
  // Absolute, in path order (pathLess), unique. Strings, not path objects: a path object holds one
  // object per level of its folder, so a list of them grows with the square of a tree's depth.
  std::vector<std::string> files;
  std::vector<std::string> errors;           // "path: reason": a missing path, an unreadable folder (exit 2)
  std::vector<std::string> warnings;         // reported once each, exit code unchanged
  std::vector<std::string> config_errors;    // invalid configurations: their folders were not walked (exit 2)
};

WalkResult collectFiles(const std::vector<std::filesystem::path>& roots, ConfigResolver& resolver, bool force_exclude);

// Is `path` excluded by `config` (its exclude globs, relative to the config root, or a basename)?
bool isExcluded(const ResolvedConfig& config, const std::filesystem::path& path);

}  // namespace ptlint::workspace
