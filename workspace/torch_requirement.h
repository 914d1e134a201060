// The torch range a project declares or has installed, for a `torch-version` left unset:
// its requirement files first (pyproject.toml [project] and Poetry, requirements*.txt with the
// files they -r/-c, setup.cfg, a literal setup.py install_requires, environment.yml), then the
// torch-*.dist-info of its environment (.venv/venv, $VIRTUAL_ENV, $CONDA_PREFIX). Files are read,
// never run. Every function here is pure over the file system; TorchRangeFinder caches.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rules/settings.h"

namespace ptlint::workspace {

// The range of one PEP 508 requirement line ("torch[opt]>=2.1,<2.9; python_version>'3.8'") when
// it names torch with a version; nullopt for other packages, a bare "torch", or a bad line.
std::optional<rules::TorchRange> torchRangeOfRequirement(std::string_view requirement);
// The same for a Poetry constraint ("^2.1", "~2.1", ">=2.0,<3.0", "2.1.0", "a || b").
std::optional<rules::TorchRange> torchRangeOfPoetry(std::string_view constraint);
// The same for a conda spec ("pytorch=2.1", "pytorch>=2.0", "pytorch::pytorch 2.1.*").
std::optional<rules::TorchRange> torchRangeOfConda(std::string_view spec);

// The smallest range holding both (several requirements under different markers).
rules::TorchRange unionOf(const rules::TorchRange& a, const rules::TorchRange& b);

// The declared or installed range for the project rooted at `root`; `range.source` names the
// file. nullopt when neither says. `env`: the value of an environment variable (injected for
// tests; by default getenv).
struct TorchEnv {
  std::optional<std::filesystem::path> virtual_env, conda_prefix;
  static TorchEnv fromProcess();
};
std::optional<rules::TorchRange> findProjectTorchRange(const std::filesystem::path& root, const TorchEnv& env);

// Caches both lookups: the root per folder and the range per root (files read once per project).
// Thread-safe.
class TorchRangeFinder {
 public:
  explicit TorchRangeFinder(TorchEnv env = TorchEnv::fromProcess()) : env_(std::move(env)) {}
  std::optional<rules::TorchRange> forFolder(const std::filesystem::path& dir);
  void invalidate();

 private:
  TorchEnv env_;
  std::mutex mutex_;
  // By folder, as native strings: a path object per level of a deep tree, for every folder of
  // it, would make memory grow with the square of its depth.
  std::unordered_map<std::string, std::string> root_by_dir_;
  std::map<std::filesystem::path, std::optional<rules::TorchRange>> by_root_;
};

}  // namespace ptlint::workspace
