#include "workspace/config.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <toml++/toml.h>

#include "rules/selectors.h"
#include "workspace/read_fd.h"
#include "workspace/torch_requirement.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unordered_map>

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

constexpr const char* kConfigNames[] = {"ptlint.toml", ".ptlint.toml", "pyproject.toml"};

int lineOf(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

[[noreturn]] void fail(const fs::path& file, const toml::node& node, const std::string& key, const std::string& why) {
  throw ConfigError(file.string(), lineOf(node), key, why);
}

std::vector<std::string> stringArray(const fs::path& file, const toml::node& node, const std::string& key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) fail(file, node, key, "expected an array of strings");
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    auto value = item.value<std::string>();
    if (!value) fail(file, item, key, "expected an array of strings");
    out.push_back(*value);
  }
  return out;
}

std::vector<std::string> codeArray(const fs::path& file, const toml::node& node, const std::string& key) {
  auto codes = stringArray(file, node, key);
  const toml::array& array = *node.as_array();
  for (size_t i = 0; i < codes.size(); ++i)
    if (auto error = rules::selectorError(codes[i])) fail(file, *array.get(i), key, *error);
  return codes;
}

// A glob the matcher would read differently from what was meant: an unclosed `[` (taken
// literally by the matcher, a syntax error in Ruff's globs) or a reversed range such as `[z-a]`.
std::optional<std::string> globProblem(std::string_view glob) {
  for (size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] != '[') continue;
    size_t close = glob.find(']', i + 1);
    if (close == std::string_view::npos)
      return fmt::format("`{}` is not a valid glob: the `[` at position {} is never closed", glob, i + 1);
    std::string_view set = glob.substr(i + 1, close - i - 1);
    if (!set.empty() && (set[0] == '!' || set[0] == '^')) set.remove_prefix(1);
    for (size_t k = 0; k + 2 < set.size(); ++k)
      if (set[k + 1] == '-') {
        if (set[k] > set[k + 2])
          return fmt::format("`{}` is not a valid glob: the range `{}-{}` is reversed", glob, set[k], set[k + 2]);
        k += 2;
      }
    i = close;
  }
  return std::nullopt;
}

std::vector<std::string> globArray(const fs::path& file, const toml::node& node, const std::string& key) {
  auto globs = stringArray(file, node, key);
  const toml::array& array = *node.as_array();
  for (size_t i = 0; i < globs.size(); ++i)
    if (auto problem = globProblem(globs[i])) fail(file, *array.get(i), key, *problem);
  return globs;
}

bool boolean(const fs::path& file, const toml::node& node, const std::string& key) {
  auto value = node.value<bool>();
  if (!value || !node.is_boolean()) fail(file, node, key, "expected true or false");
  return *value;
}

FileConfig parseTable(const fs::path& path, const toml::table& table, const std::string& prefix) {
  FileConfig config;
  config.path = path;
  config.root = path.parent_path();
  for (const auto& [raw_key, node] : table) {
    std::string key(raw_key.str());
    std::string shown = prefix + key;
    if (key == "select") config.select = codeArray(path, node, shown);
    else if (key == "extend-select") config.extend_select = codeArray(path, node, shown);
    else if (key == "ignore") config.ignore = codeArray(path, node, shown);
    else if (key == "fixable") config.fixable = codeArray(path, node, shown);
    else if (key == "unfixable") config.unfixable = codeArray(path, node, shown);
    else if (key == "exclude") config.exclude = globArray(path, node, shown);
    else if (key == "extend-exclude") config.extend_exclude = globArray(path, node, shown);
    else if (key == "compile-decorators") config.compile_decorators = stringArray(path, node, shown);
    else if (key == "respect-gitignore") config.respect_gitignore = boolean(path, node, shown);
    else if (key == "unsafe-fixes") config.unsafe_fixes = boolean(path, node, shown);
    else if (key == "extend") {
      auto text = node.value<std::string>();
      if (!node.is_string() || !text || text->empty())
        fail(path, node, shown, "expected the path of another configuration file");
      config.extend = *text;
      config.extend_line = static_cast<int>(node.source().begin.line);
    }
    else if (key == "torch-version") {
      auto text = node.value<std::string>();
      auto range = text ? rules::TorchRange::parse(*text) : std::nullopt;
      if (!node.is_string() || !range)
        fail(path, node, shown, "expected a version range such as \">=2.1\" or \">=2.4,<2.9\" (a bare \"2.1\" means \">=2.1\")");
      range->source = path.string();
      config.torch_version = range;
    } else if (key == "per-file-ignores") {
      const toml::table* globs = node.as_table();
      if (globs == nullptr) fail(path, node, shown, "expected a table of glob = [codes]");
      for (const auto& [glob, codes] : *globs) {
        std::string glob_key = shown + "." + std::string(glob.str());
        if (auto problem = globProblem(glob.str())) fail(path, codes, glob_key, *problem);
        config.per_file_ignores.push_back({std::string(glob.str()), codeArray(path, codes, glob_key)});
      }
    } else {
      fail(path, node, shown,
           "unknown key (known: extend, select, extend-select, ignore, per-file-ignores, fixable, unfixable, exclude, "
           "extend-exclude, respect-gitignore, torch-version, unsafe-fixes, compile-decorators)");
    }
  }
  return config;
}

bool changedOnDisk(const FileConfig& config) {
  std::error_code ec;
  auto mtime = fs::last_write_time(config.path, ec);
  if (ec) return true;  // removed
  auto size = fs::file_size(config.path, ec);
  return ec || mtime != config.mtime || size != config.size;
}

}  // namespace

namespace {

std::string configErrorText(const std::string& file, int line, const std::string& key, const std::string& message) {
  std::string where = file.empty() ? "" : line > 0 ? fmt::format("{}:{}: ", file, line) : file + ": ";
  return key.empty() ? where + message : fmt::format("{}`{}`: {}", where, key, message);
}

// Reads a configuration file without blocking on a FIFO or reading a device forever: only a
// regular file of at most kMaxConfigBytes is read.
std::string readConfigText(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw ConfigError(path.string(), 0, "", fmt::format("cannot read: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    throw ConfigError(path.string(), 0, "",
                      dir ? "is a folder, not a configuration file (give the path of a ptlint.toml, "
                            ".ptlint.toml or pyproject.toml)"
                          : "not a regular file (a configuration is a ptlint.toml, .ptlint.toml or "
                            "pyproject.toml file)");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxConfigBytes) {
    ::close(fd);
    throw ConfigError(path.string(), 0, "",
                      fmt::format("too large ({} bytes; the limit is {})", st.st_size, kMaxConfigBytes));
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  if (!readToFill(fd, text)) {
    int saved = errno;
    ::close(fd);
    throw ConfigError(path.string(), 0, "", fmt::format("cannot read: {}", std::strerror(saved)));
  }
  ::close(fd);
  return text;
}

}  // namespace

TomlDepth tomlNestingDepth(std::string_view s) {
  // Counted over the bytes outside strings and comments: the current table header's
  // components, the dots of the key being read, and the open `[`/`{` of values. An
  // over-estimate (a float's dot counts as a level) that no real configuration comes near.
  TomlDepth out;
  size_t header = 0, brackets = 0, dots = 0, line = 1;
  bool line_start = true, in_header = false;
  size_t stray = 0;
  for (size_t i = s.starts_with("\xEF\xBB\xBF") ? 3 : 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '#') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::string_view quote = s.substr(i, 3) == std::string(3, c) ? s.substr(i, 3) : s.substr(i, 1);
      size_t j = i + quote.size();
      for (; j < s.size(); ++j) {
        if (s[j] == '\n') {
          if (quote.size() == 1) break;  // unterminated: toml++ reports it
          ++line;
        } else if (c == '"' && s[j] == '\\') {
          if (j + 1 < s.size() && s[j + 1] == '\n') ++line;
          ++j;
        } else if (s.substr(j, quote.size()) == quote) {
          j += quote.size() - 1;
          break;
        }
      }
      i = j < s.size() && s[j] == '\n' ? j - 1 : j;
      line_start = false;
      continue;
    }
    switch (c) {
      case '\n':
        ++line;
        dots = 0;
        line_start = true;
        continue;
      case ' ': case '\t': case '\r':
        continue;
      case '.':
        ++dots;
        break;
      case '=': case ',':
        dots = 0;
        break;
      case '[': case '{':
        if (c == '[' && line_start && brackets == 0) {
          in_header = true;
          header = 0;
        }
        ++brackets;
        dots = 0;
        break;
      case ']': case '}':
        if (in_header && brackets == 1) {
          header = dots + 1;
          in_header = false;
        }
        if (brackets > 0) --brackets;
        dots = 0;
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x80 && stray == 0) stray = line;
        break;
    }
    line_start = false;
    if (size_t depth = header + brackets + dots; depth > out.depth) out = {depth, line};
  }
  out.stray_non_ascii_line = stray;
  return out;
}

ConfigError::ConfigError(std::string file, int line, std::string key, const std::string& message)
    : std::runtime_error(configErrorText(file, line, key, message)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

static std::optional<FileConfig> loadOneConfigFile(const fs::path& path) {
  std::string text = readConfigText(path);
  // toml++ recurses once per nesting level (and so does freeing the tables it builds): a
  // document nested thousands deep would overflow the stack, so the depth is measured first.
  if (TomlDepth depth = tomlNestingDepth(text); depth.depth > kMaxTomlDepth)
    throw ConfigError(path.string(), static_cast<int>(depth.line), "",
                      fmt::format("nested more than {} levels deep (table headers, dotted keys and brackets "
                                  "together); ptlint does not read it",
                                  kMaxTomlDepth));
  else if (depth.stray_non_ascii_line != 0)
    throw ConfigError(path.string(), static_cast<int>(depth.stray_non_ascii_line), "",
                      "invalid TOML: a non-ASCII character outside a string or comment");
  toml::table document;
  try {
    document = toml::parse(text, path.string());
  } catch (const toml::parse_error& error) {
    throw ConfigError(path.string(), static_cast<int>(error.source().begin.line), "",
                      fmt::format("invalid TOML: {}", error.description()));
  }
  if (path.filename() == "pyproject.toml") {
    const toml::table* tool = document["tool"].as_table();
    const toml::node* ptlint = tool ? tool->get("ptlint") : nullptr;
    if (ptlint == nullptr) return std::nullopt;
    const toml::table* table = ptlint->as_table();
    if (table == nullptr) fail(path, *ptlint, "tool.ptlint", "expected a table");
    return parseTable(path, *table, "tool.ptlint.");
  }
  return parseTable(path, document, "");
}

namespace {

// `extend`'s path: `~` is the home folder; relative to the folder of the file that names it.
fs::path extendTarget(const FileConfig& config) {
  std::string text = *config.extend;
  if (text == "~" || text.starts_with("~/")) {
    if (const char* home = std::getenv("HOME"); home && *home) text = std::string(home) + text.substr(1);
  }
  fs::path target(text);
  if (target.is_relative()) target = config.path.parent_path() / target;
  std::error_code ec;
  return fs::absolute(target, ec).lexically_normal();
}

std::optional<FileConfig> loadChain(const fs::path& path, std::vector<fs::path>& chain) {
  std::error_code ec;
  fs::path self = fs::weakly_canonical(fs::absolute(path, ec), ec);
  chain.push_back(self);
  auto config = loadOneConfigFile(path);
  if (!config || !config->extend) return config;
  fs::path target = extendTarget(*config);
  fs::path resolved = fs::weakly_canonical(target, ec);
  auto shownChain = [&] {
    std::string text;
    for (const auto& p : chain) text += p.string() + " -> ";
    return text + resolved.string();
  };
  if (std::find(chain.begin(), chain.end(), resolved) != chain.end())
    throw ConfigError(path.string(), config->extend_line, "extend",
                      fmt::format("circular `extend`: {}", shownChain()));
  if (chain.size() >= kMaxExtendDepth)
    throw ConfigError(path.string(), config->extend_line, "extend",
                      fmt::format("more than {} files extend each other", kMaxExtendDepth));
  if (!fs::exists(target, ec))
    throw ConfigError(path.string(), config->extend_line, "extend",
                      fmt::format("`{}` does not exist", target.string()));
  auto base = loadChain(target, chain);
  if (!base) {  // a pyproject.toml without [tool.ptlint]: its defaults
    base = FileConfig{};
    base->path = target;
    base->root = target.parent_path();
  }
  return extendConfig(*base, *config);
}

// A glob of `from`'s folder, for matching relative to `to` (a glob without `/` matches any
// component, so it means the same anywhere).
std::optional<std::string> rebaseGlob(const std::string& glob, const fs::path& from, const fs::path& to) {
  std::string_view g = glob;
  if (g.starts_with("./")) g.remove_prefix(2);
  std::string_view trimmed = g;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  if (trimmed.find('/') == std::string_view::npos || g.starts_with("**/") || from == to) return glob;
  std::string rel = (from / std::string(g)).lexically_normal().lexically_relative(to).generic_string();
  if (rel.empty() || rel.starts_with("..")) return std::nullopt;  // outside the child's folder
  return rel;
}

}  // namespace

std::optional<FileConfig> loadConfigFile(const fs::path& path) {
  std::vector<fs::path> chain;
  return loadChain(path, chain);
}

FileConfig extendConfig(const FileConfig& base, const FileConfig& child) {
  FileConfig out = child;
  auto rebased = [&](const std::vector<std::string>& globs) {
    std::vector<std::string> kept;
    for (const auto& glob : globs)
      if (auto g = rebaseGlob(glob, base.root, child.root)) kept.push_back(*g);
    return kept;
  };
  auto inherit = [](auto& target, const auto& source) {
    if (!target && source) target = source;
  };
  inherit(out.select, base.select);
  if (!child.select && base.extend_select) {
    std::vector<std::string> all = *base.extend_select;
    if (child.extend_select) all.insert(all.end(), child.extend_select->begin(), child.extend_select->end());
    out.extend_select = all;
  }
  if (!child.select && base.ignore) {
    std::vector<std::string> all = *base.ignore;
    if (child.ignore) all.insert(all.end(), child.ignore->begin(), child.ignore->end());
    out.ignore = all;
  }
  if (!child.exclude && base.exclude) out.exclude = rebased(*base.exclude);
  if (base.extend_exclude) {
    std::vector<std::string> all = rebased(*base.extend_exclude);
    if (child.extend_exclude) all.insert(all.end(), child.extend_exclude->begin(), child.extend_exclude->end());
    out.extend_exclude = all;
  }
  if (child.per_file_ignores.empty()) {
    out.per_file_ignores = base.per_file_ignores;
    for (auto& entry : out.per_file_ignores)
      if (entry.root.empty()) entry.root = base.root;
  }
  inherit(out.respect_gitignore, base.respect_gitignore);
  inherit(out.torch_version, base.torch_version);
  inherit(out.unsafe_fixes, base.unsafe_fixes);
  inherit(out.compile_decorators, base.compile_decorators);
  inherit(out.fixable, base.fixable);
  inherit(out.unfixable, base.unfixable);
  out.extend.reset();
  return out;
}

FileConfig parseInlineConfig(std::string_view text, const fs::path& root) {
  if (tomlNestingDepth(text).stray_non_ascii_line != 0)
    throw ConfigError("--config", 1, "",
                      fmt::format("`{}` is neither a file nor a TOML `key = value` (a non-ASCII character outside "
                                  "a string)",
                                  text));
  toml::table document;
  try {
    document = toml::parse(text, std::string_view("--config"));
  } catch (const toml::parse_error& error) {
    throw ConfigError("--config", static_cast<int>(error.source().begin.line), "",
                      fmt::format("`{}` is neither a file nor a TOML `key = value` ({})", text, error.description()));
  }
  FileConfig config = parseTable("--config", document, "");
  if (config.extend)
    throw ConfigError("--config", config.extend_line, "extend",
                      "`extend` is read in a configuration file only (give the file with `--config PATH`)");
  config.path.clear();
  config.root = root;
  return config;
}

FileConfig mergeConfig(const FileConfig& base, const FileConfig& over) {
  FileConfig out = base;
  auto take = [](auto& target, const auto& source) {
    if (source) target = source;
  };
  take(out.select, over.select);
  take(out.extend_select, over.extend_select);
  take(out.ignore, over.ignore);
  take(out.exclude, over.exclude);
  take(out.extend_exclude, over.extend_exclude);
  take(out.respect_gitignore, over.respect_gitignore);
  take(out.torch_version, over.torch_version);
  take(out.unsafe_fixes, over.unsafe_fixes);
  take(out.compile_decorators, over.compile_decorators);
  take(out.fixable, over.fixable);
  take(out.unfixable, over.unfixable);
  out.per_file_ignores.insert(out.per_file_ignores.end(), over.per_file_ignores.begin(), over.per_file_ignores.end());
  if (base.path.empty()) out.root = over.root;
  return out;
}

const std::vector<std::string>& defaultExcludes() {
  static const std::vector<std::string> excludes{
      ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
      ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".ptlint_cache", ".svn",
      ".tox", ".venv", ".vscode", "__pypackages__", "_build", "buck-out", "dist", "node_modules",
      "site-packages", "venv", "__pycache__"};
  return excludes;
}

ConfigResolver::ConfigResolver(Overrides overrides, std::optional<fs::path> explicit_config)
    : overrides_(std::move(overrides)),
      explicit_config_(std::move(explicit_config)),
      torch_finder_(std::make_shared<TorchRangeFinder>()) {}

void ConfigResolver::invalidate() {
  std::lock_guard lock(mutex_);
  by_dir_.clear();
  last_folder_.clear();
  last_resolved_.reset();
  torch_finder_->invalidate();
}

std::shared_ptr<const FileConfig> ConfigResolver::nearestConfig(const fs::path& start_dir) {
  std::vector<fs::path> visited;
  std::shared_ptr<const FileConfig> found;
  bool resolved = false;
  for (fs::path dir = start_dir;; dir = dir.parent_path()) {
    {
      std::lock_guard lock(mutex_);
      auto it = by_dir_.find(dir.native());
      if (it != by_dir_.end()) {
        found = it->second;
        resolved = true;
      }
    }
    if (resolved) break;
    visited.push_back(dir);
    for (const char* name : kConfigNames) {
      fs::path candidate = dir / name;
      std::error_code ec;
      if (!fs::is_regular_file(candidate, ec)) continue;
      auto config = loadConfigFile(candidate);  // may throw: the error names the file
      if (config) {
        config->mtime = fs::last_write_time(candidate, ec);
        config->size = fs::file_size(candidate, ec);
        found = std::make_shared<const FileConfig>(std::move(*config));
        break;
      }
    }
    if (found || dir == dir.parent_path() || dir.empty()) break;
  }
  std::lock_guard lock(mutex_);
  for (const auto& dir : visited) by_dir_[dir.native()] = found;
  return found;
}

ResolvedConfig ConfigResolver::forPath(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  return *forFolder(fs::is_directory(absolute, ec) ? absolute : absolute.parent_path());
}

ResolvedConfig ConfigResolver::forFile(const fs::path& path) { return *sharedForFile(path); }

bool absoluteAndNormal(std::string_view path) {
  if (!path.starts_with('/') || path.size() < 2 || path.ends_with('/')) return false;
  for (size_t start = 1; start <= path.size();) {
    size_t slash = std::min(path.find('/', start), path.size());
    std::string_view part = path.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = slash + 1;
  }
  return true;
}

std::shared_ptr<const ResolvedConfig> ConfigResolver::sharedForFile(const fs::path& path) {
  // A walk's paths are taken as they are: a path object per file costs more than the rest.
  const std::string& text = path.native();
  size_t slash = text.rfind('/');
  if (slash != std::string::npos && slash > 0 && absoluteAndNormal(text)) return forFolder(text.substr(0, slash));
  std::error_code ec;
  return forFolder(fs::absolute(path, ec).lexically_normal().parent_path());
}

std::shared_ptr<const ResolvedConfig> ConfigResolver::forFolder(const fs::path& dir) {
  if (overrides_.recheck_modified) return std::make_shared<const ResolvedConfig>(resolveFolder(dir));
  {
    std::lock_guard lock(mutex_);
    if (last_resolved_ && last_folder_ == dir.native()) return last_resolved_;
  }
  auto resolved = std::make_shared<const ResolvedConfig>(resolveFolder(dir));  // no lock held: reads files
  std::lock_guard lock(mutex_);
  last_folder_ = dir.native();
  last_resolved_ = resolved;
  return resolved;
}

ResolvedConfig ConfigResolver::resolveFolder(const fs::path& dir) {
  std::error_code ec;
  std::shared_ptr<const FileConfig> config;
  if (explicit_config_) {
    std::lock_guard lock(mutex_);
    auto it = by_dir_.find("<explicit>");
    if (it != by_dir_.end()) config = it->second;
  }
  if (explicit_config_ && !config) {
    auto loaded = loadConfigFile(*explicit_config_);
    if (!loaded) {
      // A pyproject.toml without [tool.ptlint] given explicitly: defaults, rooted there.
      loaded = FileConfig{};
      loaded->path = *explicit_config_;
      loaded->root = fs::absolute(*explicit_config_, ec).parent_path();
    }
    config = std::make_shared<const FileConfig>(std::move(*loaded));
    std::lock_guard lock(mutex_);
    by_dir_["<explicit>"] = config;
  } else if (!explicit_config_ && !overrides_.isolated) {
    config = nearestConfig(dir);
    if (config && overrides_.recheck_modified && changedOnDisk(*config)) {
      invalidate();
      config = nearestConfig(dir);
    }
  }
  if (overrides_.inline_config)
    config = std::make_shared<const FileConfig>(config ? mergeConfig(*config, *overrides_.inline_config)
                                                       : *overrides_.inline_config);
  return resolve(config, dir);
}

ResolvedConfig ConfigResolver::resolve(std::shared_ptr<const FileConfig> config, const fs::path& fallback_root) const {
  ResolvedConfig out;
  out.source = config;
  out.root = config ? config->root : fallback_root;
  rules::Settings& s = out.settings;
  auto pick = [&](auto& target, const auto& from_overrides, const auto* from_config) {
    // CLI: flags win. LSP: a config file wins on conflict.
    if (overrides_.config_wins) {
      if (from_config && *from_config) target = **from_config;
      else if (from_overrides) target = *from_overrides;
    } else {
      if (from_overrides) target = *from_overrides;
      else if (from_config && *from_config) target = **from_config;
    }
  };
  pick(s.select, overrides_.select, config ? &config->select : nullptr);
  pick(s.ignore, overrides_.ignore, config ? &config->ignore : nullptr);
  std::optional<rules::TorchRange> torch;
  pick(torch, overrides_.torch_version, config ? &config->torch_version : nullptr);
  if (!torch && overrides_.discover_torch && torch_finder_) torch = torch_finder_->forFolder(fallback_root);
  s.setTorchRange(torch ? *torch : rules::TorchRange::atLeast(rules::kDefaultTorchFloor));
  pick(s.unsafe_fixes, overrides_.unsafe_fixes, config ? &config->unsafe_fixes : nullptr);
  pick(out.fixable, overrides_.fixable, config ? &config->fixable : nullptr);
  pick(out.unfixable, overrides_.unfixable, config ? &config->unfixable : nullptr);
  if (config && config->extend_select) s.extend_select = *config->extend_select;
  if (overrides_.extend_select)
    s.extend_select.insert(s.extend_select.end(), overrides_.extend_select->begin(), overrides_.extend_select->end());
  if (config && config->compile_decorators) s.compile_decorators = *config->compile_decorators;
  s.ignore.insert(s.ignore.end(), overrides_.extend_ignore.begin(), overrides_.extend_ignore.end());
  if (overrides_.per_file_ignores) {
    out.per_file_ignores = *overrides_.per_file_ignores;
  } else if (config) {
    out.per_file_ignores = config->per_file_ignores;
    for (auto& entry : out.per_file_ignores)
      if (entry.root.empty()) entry.root = config->root;
  }

  out.exclude = overrides_.exclude ? *overrides_.exclude : config && config->exclude ? *config->exclude : defaultExcludes();
  if (config && config->extend_exclude)
    out.exclude.insert(out.exclude.end(), config->extend_exclude->begin(), config->extend_exclude->end());
  out.exclude.insert(out.exclude.end(), overrides_.extend_exclude.begin(), overrides_.extend_exclude.end());
  out.respect_gitignore = overrides_.respect_gitignore ? *overrides_.respect_gitignore
                          : config && config->respect_gitignore ? *config->respect_gitignore
                                                                : true;
  return out;
}

rules::Settings settingsForFile(const ResolvedConfig& config, const fs::path& file) {
  rules::Settings settings = config.settings;
  if (config.per_file_ignores.empty()) return settings;
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec).lexically_normal();
  for (const auto& entry : config.per_file_ignores) {
    std::string relative = absolute.lexically_relative(entry.root.empty() ? config.root : entry.root).generic_string();
    if (globMatches(entry.glob, relative))
      settings.ignore.insert(settings.ignore.end(), entry.codes.begin(), entry.codes.end());
  }
  return settings;
}

}  // namespace ptlint::workspace
