// Configuration discovery and loading, shared by cli/ and server/. For each file, the nearest
// `ptlint.toml`, `.ptlint.toml` or `pyproject.toml` with a `[tool.ptlint]` table above it wins
// (in that order within one folder). Errors name the file, the line and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "rules/settings.h"

namespace ptlint::workspace {

class TorchRangeFinder;

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, std::string key, const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
};

struct PerFileIgnore {
  std::string glob;                 // relative to the config file's folder (or to `root`)
  std::vector<std::string> codes;
  std::filesystem::path root;       // set for `--per-file-ignores` (the working folder)
};

// One config file's contents; unset keys stay nullopt.
struct FileConfig {
  std::filesystem::path path;        // the config file
  std::filesystem::path root;        // its folder: globs are relative to it
  std::optional<std::vector<std::string>> select, extend_select, ignore;
  std::vector<PerFileIgnore> per_file_ignores;
  std::optional<std::vector<std::string>> exclude, extend_exclude;
  std::optional<bool> respect_gitignore;
  std::optional<rules::TorchRange> torch_version;  // `torch-version`, its source the file
  std::optional<bool> unsafe_fixes;
  std::optional<std::vector<std::string>> compile_decorators;
  std::optional<std::vector<std::string>> fixable, unfixable;  // whose fixes are offered
  // `extend = "PATH"`: another configuration file this one is merged onto (loadConfigFile
  // resolves it; the result holds the merged settings).
  std::optional<std::string> extend;
  int extend_line = 0;
  // What the file looked like when read (for Overrides::recheck_modified).
  std::filesystem::file_time_type mtime{};
  std::uintmax_t size = 0;
};

// Limits on what a configuration file may be: its size, and how deep its tables nest.
inline constexpr size_t kMaxConfigBytes = 16u * 1024 * 1024;
inline constexpr size_t kMaxTomlDepth = 100;

// The deepest nesting a TOML text can build (table header components, dotted-key components and
// value brackets together), and the 1-based line where it is first reached. An upper bound,
// computed without recursion.
struct TomlDepth {
  size_t depth = 0;
  size_t line = 0;
  // The first line holding a byte >= 0x80 outside strings and comments (0: none). TOML allows
  // non-ASCII only there, and toml++'s whitespace test reaches `__builtin_unreachable` on some
  // such characters where a token may start: the text is refused before toml++ sees it.
  size_t stray_non_ascii_line = 0;
};
TomlDepth tomlNestingDepth(std::string_view text);

// Parses a config file. Throws ConfigError (file, line, key) on unknown keys, bad values or
// bad TOML, and when the path is not a readable regular file (a folder, a FIFO, a device), is
// larger than kMaxConfigBytes or nests deeper than kMaxTomlDepth. A pyproject.toml without
// [tool.ptlint] yields nullopt. `extend = "PATH"` (relative to the file's folder, `~` expanded)
// loads that file first and merges this one onto it as Ruff does (extendConfig); a cycle, or a
// chain longer than kMaxExtendDepth, is an error naming the file and the `extend` line.
inline constexpr size_t kMaxExtendDepth = 32;
std::optional<FileConfig> loadConfigFile(const std::filesystem::path& path);

// `--config "KEY = VALUE"`: one inline TOML setting, as in a ptlint.toml (top-level keys).
// Throws ConfigError (file `--config`) on bad TOML, an unknown key or a bad value. Paths in it
// (globs) are relative to `root`.
FileConfig parseInlineConfig(std::string_view text, const std::filesystem::path& root);

// `base` with every key `over` sets replaced by `over`'s (per-file-ignores are added to).
FileConfig mergeConfig(const FileConfig& base, const FileConfig& over);

// `child` (which says `extend`) merged onto `base`, as Ruff merges an extended configuration:
// a key the child sets replaces the base's, but `extend-select` and `extend-exclude` add up,
// and `ignore` adds up unless the child sets `select`. The base's globs stay relative to its
// own folder; the result is rooted at the child's.
FileConfig extendConfig(const FileConfig& base, const FileConfig& child);

// Settings given from outside the files: CLI flags or LSP settings.
struct Overrides {
  std::optional<std::vector<std::string>> select, extend_select, ignore;
  std::optional<rules::TorchRange> torch_version;
  std::optional<bool> unsafe_fixes;
  std::optional<std::vector<std::string>> exclude;  // `--exclude`: replaces the files' `exclude`
  std::vector<std::string> extend_exclude;
  std::optional<bool> respect_gitignore;             // `--respect-gitignore` / `--no-respect-gitignore`
  bool isolated = false;                             // `--isolated`: no configuration file is read
  // When neither the flags nor a config file set `torch-version`: find the project's torch
  // range from its requirement files and environment (false: the default range).
  bool discover_torch = true;
  bool config_wins = false;  // CLI: flags win (as in Ruff); LSP: a config file wins (docs/lsp.md)
  // `--config KEY=VALUE` settings: above every config file, below the other flags.
  std::shared_ptr<const FileConfig> inline_config;
  std::vector<std::string> extend_ignore;                       // added to `ignore`
  std::optional<std::vector<PerFileIgnore>> per_file_ignores;   // replace the files' ones
  std::optional<std::vector<std::string>> fixable, unfixable;   // replace the files' ones
  // Re-read a discovered configuration file that changed on disk (its mtime or size) when a
  // file under it is next resolved: for the server, whose clients may not watch files.
  bool recheck_modified = false;
};

struct ResolvedConfig {
  rules::Settings settings;
  std::vector<std::string> exclude;        // effective exclude globs
  std::filesystem::path root;              // globs are relative to this folder
  bool respect_gitignore = true;
  std::shared_ptr<const FileConfig> source;  // nullptr: defaults only
  std::vector<PerFileIgnore> per_file_ignores;  // effective, each with its absolute root
  // Codes whose fixes are shown and applied: `fixable` (nullopt: ALL) minus `unfixable`.
  std::optional<std::vector<std::string>> fixable;
  std::vector<std::string> unfixable;
};

// The default exclude list (as Ruff's): .git, .venv, __pycache__, build, dist, ...
const std::vector<std::string>& defaultExcludes();

// Finds and caches config files per folder. Thread-safe.
class ConfigResolver {
 public:
  // `explicit_config`: `--config PATH`, used for every file instead of discovery.
  explicit ConfigResolver(Overrides overrides = {}, std::optional<std::filesystem::path> explicit_config = {});

  // The configuration for a file (or folder), discovering the nearest config file above it.
  // Throws ConfigError when that config file is invalid.
  ResolvedConfig forPath(const std::filesystem::path& path);
  // The same for a path known to name a file (or a file to be), without asking the file system
  // whether it is a folder: the engine asks once per file checked.
  ResolvedConfig forFile(const std::filesystem::path& path);
  // The same, shared: consecutive files of one folder share one resolution (unless config
  // files are re-read when modified, `Overrides::recheck_modified`).
  std::shared_ptr<const ResolvedConfig> sharedForFile(const std::filesystem::path& path);

  // Forget cached config files (one changed on disk).
  void invalidate();

 private:
  std::shared_ptr<const FileConfig> nearestConfig(const std::filesystem::path& dir);
  std::shared_ptr<const ResolvedConfig> forFolder(const std::filesystem::path& dir);  // `dir`: absolute, normal
  ResolvedConfig resolveFolder(const std::filesystem::path& dir);
  ResolvedConfig resolve(std::shared_ptr<const FileConfig> config, const std::filesystem::path& fallback_root) const;

  Overrides overrides_;
  std::optional<std::filesystem::path> explicit_config_;
  std::shared_ptr<TorchRangeFinder> torch_finder_;  // the project's torch range, per project root
  std::mutex mutex_;
  // By folder (its native string: a path object per level of a deep tree would make memory
  // grow with the square of its depth); nullptr: none here or above.
  std::unordered_map<std::string, std::shared_ptr<const FileConfig>> by_dir_;
  // What forFolder resolved last: a walk hands out a folder's files one after another. (One
  // entry: a resolution holds the folder's path, and one per folder of a deep tree would make
  // memory grow with the square of its depth.)
  std::string last_folder_;
  std::shared_ptr<const ResolvedConfig> last_resolved_;
};

// Does `relative` (a path relative to the config root, '/' separated) match `glob`?
// Supports `*`, `**`, `?` and `[...]`; a glob without '/' matches any path component.
bool globMatches(std::string_view glob, std::string_view relative);

// Whether `path` is absolute and already normal (what a walk yields): no `.`, `..` or empty
// component, no trailing separator. Such a path's parent and relative paths are substrings.
bool absoluteAndNormal(std::string_view path);

// Per-file settings: `settings` with `per-file-ignores` of `config` applied for `file`.
rules::Settings settingsForFile(const ResolvedConfig& config, const std::filesystem::path& file);

}  // namespace ptlint::workspace
