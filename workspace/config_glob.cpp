// The globs of `exclude`, `per-file-ignores` and the like (config.h `globMatches`): matched on
// '/'-separated relative paths, a glob without '/' against any single component.
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "workspace/config.h"

namespace ptlint::workspace {
namespace {

// Glob matching on '/'-separated paths: `*` and `?` stay within a component, `**` spans any.
// Backtracking over stars is exponential in their number (`***…*x` against a long name never
// ends), so each (glob position, path position) state is decided once: O(|glob| · |path|).
class GlobMatcher {
 public:
  GlobMatcher(std::string_view glob, std::string_view path) : glob_(glob), path_(path) {
    // With one run of stars the search is linear already: no table (the common `*.egg-info`).
    size_t runs = 0;
    for (size_t i = 0; i < glob.size(); ++i)
      if (glob[i] == '*' && (i == 0 || glob[i - 1] != '*')) ++runs;
    memoize_ = runs > 1;
  }
  bool matches() { return from(0, 0); }

 private:
  bool from(size_t g, size_t p) {
    if (!memoize_) return decide(g, p);
    uint64_t state = (uint64_t{g} << 32) | p;
    if (auto it = decided_.find(state); it != decided_.end()) return it->second;
    bool result = decide(g, p);
    decided_.emplace(state, result);
    return result;
  }

  bool decide(size_t g, size_t p) {
    while (g < glob_.size()) {
      if (glob_.substr(g, 2) == "**") {
        size_t rest = g + 2;
        while (rest < glob_.size() && glob_[rest] == '*') ++rest;  // `***` is `**`
        if (rest < glob_.size() && glob_[rest] == '/') ++rest;
        for (size_t k = p; k <= path_.size(); ++k)
          if (from(rest, k)) return true;
        return false;
      }
      if (glob_[g] == '*') {
        for (size_t k = p; k <= path_.size(); ++k) {
          if (from(g + 1, k)) return true;
          if (k < path_.size() && path_[k] == '/') break;
        }
        return false;
      }
      if (p >= path_.size()) return false;
      if (glob_[g] == '?') {
        if (path_[p] == '/') return false;
        ++g, ++p;
        continue;
      }
      if (glob_[g] == '[') {
        size_t close = glob_.find(']', g + 1);
        if (close != std::string_view::npos) {
          std::string_view set = glob_.substr(g + 1, close - g - 1);
          bool negate = !set.empty() && (set[0] == '!' || set[0] == '^');
          if (negate) set.remove_prefix(1);
          bool hit = false;
          for (size_t i = 0; i < set.size(); ++i) {
            if (i + 2 < set.size() && set[i + 1] == '-') {
              hit = hit || (path_[p] >= set[i] && path_[p] <= set[i + 2]);
              i += 2;
            } else {
              hit = hit || path_[p] == set[i];
            }
          }
          if (hit == negate) return false;
          g = close + 1, ++p;
          continue;
        }
      }
      if (glob_[g] != path_[p]) return false;
      ++g, ++p;
    }
    return p == path_.size();
  }

  std::string_view glob_, path_;
  bool memoize_ = false;
  std::unordered_map<uint64_t, bool> decided_;
};

bool matchFrom(std::string_view glob, std::string_view path) {
  // A glob without wildcards (most of the default excludes: `.git`, `build`) is the text itself.
  if (glob.find_first_of("*?[") == std::string_view::npos) return glob == path;
  return GlobMatcher(glob, path).matches();
}

}  // namespace

bool globMatches(std::string_view glob, std::string_view relative) {
  if (glob.starts_with("./")) glob.remove_prefix(2);
  while (!glob.empty() && glob.back() == '/') glob.remove_suffix(1);
  if (glob.find('/') == std::string_view::npos) {
    // No slash: match any single component (or a trailing run of them for `**`).
    size_t start = 0;
    while (start <= relative.size()) {
      size_t slash = relative.find('/', start);
      std::string_view part = relative.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
      if (matchFrom(glob, part)) return true;
      if (slash == std::string_view::npos) break;
      start = slash + 1;
    }
    return false;
  }
  if (matchFrom(glob, relative)) return true;
  // A folder glob also matches everything inside it.
  for (size_t slash = relative.find('/'); slash != std::string_view::npos; slash = relative.find('/', slash + 1))
    if (matchFrom(glob, relative.substr(0, slash))) return true;
  return false;
}

}  // namespace ptlint::workspace
