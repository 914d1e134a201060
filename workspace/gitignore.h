// `.gitignore` as git reads it, without a git library: the pattern syntax of gitignore(5) with
// git's own matcher (wildmatch), the files git reads (`.gitignore` in each folder from the work
// tree's root down, `$GIT_DIR/info/exclude`, `core.excludesFile` or its default
// `$XDG_CONFIG_HOME/git/ignore`) and git's precedence (the deepest `.gitignore` first, then
// info/exclude, then the excludes file; within a file the last matching pattern decides; a path in
// an ignored folder is ignored whatever its own patterns say). Checked against `git check-ignore`
// (tests/unit/gitignore_test.cpp). Nothing here runs git or reads the index: tracked files that a
// pattern matches count as ignored, as `git check-ignore --no-index` says.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptlint::workspace {

// git's wildmatch(): `*`, `?`, `[...]` (ranges, `!`/`^`, `[:class:]`), `\` escapes, and with
// `pathname` `/` matched only literally except by `**` between slashes.
bool wildmatch(std::string_view pattern, std::string_view text, bool pathname);

struct IgnorePattern {
  std::string pattern;    // without `!`, a trailing `/` and (for matching) a leading `/`
  size_t literal_prefix;  // bytes before the first wildcard character
  bool negative = false;  // `!pattern`
  bool dir_only = false;  // `pattern/`
  bool basename = false;  // no `/` in the pattern: matched against the last component anywhere below
};

// One ignore file's patterns in file order (comments, blank lines and a BOM skipped, unescaped
// trailing spaces removed).
std::vector<IgnorePattern> parseIgnorePatterns(std::string_view text);

// The decision of one file's patterns for `path` (relative to the work tree, `/`-separated) when
// the file lives in folder `base` ("" or "sub/dir/"): nullopt when no pattern matches, else
// whether the last matching one ignores (true) or re-includes (false).
std::optional<bool> matchIgnorePatterns(const std::vector<IgnorePattern>& patterns, std::string_view base,
                                        std::string_view path, bool is_dir);

// Where git looks for the user's configuration; defaults from the environment (HOME,
// XDG_CONFIG_HOME). Tests set them.
struct GitUserConfig {
  std::string home;
  std::string xdg_config_home;
  static GitUserConfig fromEnvironment();
};

// Answers "is this path git-ignored?" for absolute paths, one work tree at a time (the nearest
// folder above holding `.git`, a folder or a `gitdir:` file). Files are read once and kept.
// Not thread-safe: one per walk.
class GitIgnore {
 public:
  explicit GitIgnore(GitUserConfig user = GitUserConfig::fromEnvironment());
  ~GitIgnore();
  GitIgnore(const GitIgnore&) = delete;
  GitIgnore& operator=(const GitIgnore&) = delete;

  // False outside a work tree.
  bool isIgnored(const std::filesystem::path& path, bool is_dir);

 private:
  struct WorkTree;
  WorkTree* workTreeFor(const std::string& dir);

  GitUserConfig user_;
  std::unordered_map<std::string, WorkTree*> by_folder_;  // folder → its work tree (null: none)
  std::map<std::string, std::unique_ptr<WorkTree>> trees_;  // by root
};

}  // namespace ptlint::workspace
