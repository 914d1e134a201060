#include "workspace/torch_requirement.h"

#include <dirent.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/parse.h"
#include "analysis/syntax.h"
#include "rules/helpers.h"
#include "workspace/config.h"

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

constexpr uintmax_t kMaxRequirementBytes = 4u * 1024 * 1024;
constexpr int kMaxIncludeDepth = 8;
constexpr size_t kMaxIncludedFiles = 64;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A regular file's text, or nullopt (a folder, a FIFO, too large, unreadable).
std::optional<std::string> readSmallFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  auto size = fs::file_size(path, ec);
  if (ec || size > kMaxRequirementBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// PEP 503 normalisation: lower case, runs of `-_.` as one `-`.
std::string normalizedName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

// "pkg/torch-2.1.0%2Bcu118-cp310-...whl" -> "==2.1.0".
std::optional<rules::TorchRange> rangeOfWheelUrl(std::string_view url) {
  for (size_t at = url.find("torch-"); at != std::string_view::npos; at = url.find("torch-", at + 1)) {
    if (at > 0 && isNameChar(url[at - 1])) continue;
    size_t start = at + 6, end = start;
    while (end < url.size() && (std::isdigit(static_cast<unsigned char>(url[end])) || url[end] == '.')) ++end;
    if (end > start)
      if (auto r = rules::TorchRange::parse("==" + std::string(url.substr(start, end - start)))) return r;
  }
  return std::nullopt;
}

std::string specOf(const rules::TorchRange& r) {
  std::string spec = ">=" + r.lo.str();
  if (r.hi) spec += ",<=" + r.hi->str();
  for (auto v : r.excluded) spec += ",!=" + v.str() + ".*";
  return spec;
}

void merge(std::optional<rules::TorchRange>& into, std::optional<rules::TorchRange> found) {
  if (!found) return;
  into = into ? unionOf(*into, *found) : *found;
}

}  // namespace

std::optional<rules::TorchRange> torchRangeOfRequirement(std::string_view line) {
  line = trim(line);
  size_t i = 0;
  while (i < line.size() && isNameChar(line[i])) ++i;
  if (i == 0 || normalizedName(line.substr(0, i)) != "torch") return std::nullopt;
  std::string_view rest = trim(line.substr(i));
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    rest = trim(rest.substr(close + 1));
  }
  if (!rest.empty() && rest.front() == '@') return rangeOfWheelUrl(rest);
  rest = trim(rest.substr(0, rest.find(';')));
  if (!rest.empty() && rest.front() == '(' && rest.back() == ')') rest = trim(rest.substr(1, rest.size() - 2));
  if (rest.empty() || std::isdigit(static_cast<unsigned char>(rest.front()))) return std::nullopt;  // "torch", "torch 2.1"
  return rules::TorchRange::parse(rest);
}

std::optional<rules::TorchRange> torchRangeOfPoetry(std::string_view constraint) {
  std::optional<rules::TorchRange> out;
  size_t start = 0;
  while (start <= constraint.size()) {
    size_t bar = constraint.find("||", start);
    std::string_view part = trim(constraint.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    start = bar == std::string_view::npos ? constraint.size() + 1 : bar + 2;
    // Clauses are separated by commas or spaces; an operator may stand apart from its version.
    std::vector<std::string> clauses;
    std::string current;
    for (size_t k = 0; k <= part.size(); ++k) {
      char c = k < part.size() ? part[k] : ',';
      if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
        if (!current.empty() && current.find_first_of("0123456789*") != std::string::npos) {
          clauses.push_back(current);
          current.clear();
        }
        continue;
      }
      current += c;
    }
    std::string spec;
    bool any = false, bad = !current.empty();
    for (const std::string& clause : clauses) {
      std::string pep;
      auto numbers = [](std::string_view v) {
        std::vector<int> n;
        for (size_t p = 0; p < v.size();) {
          size_t q = p;
          while (q < v.size() && std::isdigit(static_cast<unsigned char>(v[q]))) ++q;
          if (q == p) break;
          n.push_back(std::atoi(std::string(v.substr(p, q - p)).c_str()));
          if (q >= v.size() || v[q] != '.') break;
          p = q + 1;
        }
        return n;
      };
      if (clause == "*") continue;
      if (clause[0] == '^') {
        auto n = numbers(std::string_view(clause).substr(1));
        if (n.empty()) { bad = true; break; }
        std::string upper = n[0] > 0 || n.size() < 2 ? std::to_string(n[0] + 1) : "0." + std::to_string(n[1] + 1);
        pep = ">=" + clause.substr(1) + ",<" + upper;
      } else if (clause[0] == '~' && (clause.size() < 2 || clause[1] != '=')) {
        auto n = numbers(std::string_view(clause).substr(1));
        if (n.empty()) { bad = true; break; }
        std::string upper = n.size() == 1 ? std::to_string(n[0] + 1) : std::to_string(n[0]) + "." + std::to_string(n[1] + 1);
        pep = ">=" + clause.substr(1) + ",<" + upper;
      } else if (std::isdigit(static_cast<unsigned char>(clause[0]))) {
        pep = "==" + clause;  // Poetry: a bare version is exact
      } else {
        pep = clause;
      }
      spec += (spec.empty() ? "" : ",") + pep;
      any = true;
    }
    if (bad || !any) continue;
    merge(out, rules::TorchRange::parse(spec));
  }
  if (out) out->spec = specOf(*out);
  return out;
}

std::optional<rules::TorchRange> torchRangeOfConda(std::string_view spec) {
  spec = trim(spec);
  if (spec.size() >= 2 && (spec.front() == '"' || spec.front() == '\'') && spec.back() == spec.front())
    spec = trim(spec.substr(1, spec.size() - 2));
  if (auto colons = spec.find("::"); colons != std::string_view::npos) spec.remove_prefix(colons + 2);
  size_t i = 0;
  while (i < spec.size() && isNameChar(spec[i])) ++i;
  std::string name = normalizedName(spec.substr(0, i));
  if (name != "pytorch" && name != "torch") return std::nullopt;
  std::string_view rest = trim(spec.substr(i));
  if (rest.empty()) return std::nullopt;
  if (rest[0] == '=' && (rest.size() < 2 || rest[1] != '=')) {
    // `pytorch=2.1` (2.1.*), `pytorch=2.1.0=py3.10_cuda11.8_0` (a build string follows).
    std::string_view version = rest.substr(1);
    version = version.substr(0, version.find('='));
    if (version.ends_with(".*")) version.remove_suffix(2);
    if (version.ends_with("*")) version.remove_suffix(1);
    return rules::TorchRange::parse("==" + std::string(trim(version)));
  }
  if (std::isdigit(static_cast<unsigned char>(rest[0]))) {
    // `pytorch 2.1.*` / `pytorch 2.1.0 py3.10_0`: a version, then perhaps a build.
    std::string_view version = rest.substr(0, rest.find_first_of(" \t"));
    if (version.ends_with(".*")) version.remove_suffix(2);
    return rules::TorchRange::parse("==" + std::string(version));
  }
  return rules::TorchRange::parse(rest.substr(0, rest.find_first_of(" \t")));
}

rules::TorchRange unionOf(const rules::TorchRange& a, const rules::TorchRange& b) {
  rules::TorchRange out = a;
  out.lo = std::min(a.lo, b.lo, [](auto x, auto y) { return x < y; });
  out.hi = a.hi && b.hi ? std::optional(std::max(*a.hi, *b.hi, [](auto x, auto y) { return x < y; })) : std::nullopt;
  out.excluded.clear();
  for (auto v : a.excluded)
    if (std::find(b.excluded.begin(), b.excluded.end(), v) != b.excluded.end()) out.excluded.push_back(v);
  out.spec = a.spec == b.spec ? a.spec : specOf(out);
  return out;
}

namespace {

struct Found {
  std::optional<rules::TorchRange> range;
  std::string first_file;  // the requirements file that first named torch
  void add(std::optional<rules::TorchRange> r) { merge(range, std::move(r)); }
};

std::optional<rules::TorchRange> labelled(Found found, const std::string& source) {
  if (found.range) found.range->source = source;
  return found.range;
}

// pyproject.toml: [project] dependencies and optional-dependencies; then Poetry's dependencies.
std::optional<rules::TorchRange> fromPyproject(const fs::path& file, bool poetry) {
  auto text = readSmallFile(file);
  if (!text) return std::nullopt;
  if (TomlDepth depth = tomlNestingDepth(*text); depth.depth > kMaxTomlDepth || depth.stray_non_ascii_line != 0)
    return std::nullopt;
  toml::table document;
  try {
    document = toml::parse(*text, file.string());
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
  Found found;
  if (!poetry) {
    auto strings = [&](const toml::node_view<toml::node>& list) {
      if (const toml::array* array = list.as_array())
        for (const auto& item : *array)
          if (auto s = item.value<std::string>()) found.add(torchRangeOfRequirement(*s));
    };
    strings(document["project"]["dependencies"]);
    if (const toml::table* optional = document["project"]["optional-dependencies"].as_table())
      for (const auto& [_, list] : *optional) strings(toml::node_view<toml::node>(const_cast<toml::node*>(&list)));
    return labelled(found, file.string() + " ([project] dependencies)");
  }
  auto poetryEntry = [&](const toml::node* node) {
    if (node == nullptr) return;
    if (auto s = node->value<std::string>()) found.add(torchRangeOfPoetry(*s));
    else if (const toml::table* t = node->as_table()) {
      if (auto v = (*t)["version"].value<std::string>()) found.add(torchRangeOfPoetry(*v));
    } else if (const toml::array* a = node->as_array()) {
      for (const auto& item : *a)
        if (const toml::table* t = item.as_table())
          if (auto v = (*t)["version"].value<std::string>()) found.add(torchRangeOfPoetry(*v));
    }
  };
  poetryEntry(document["tool"]["poetry"]["dependencies"]["torch"].node());
  if (const toml::table* groups = document["tool"]["poetry"]["group"].as_table())
    for (const auto& [_, group] : *groups)
      if (const toml::table* g = group.as_table())
        if (const toml::table* deps = (*g)["dependencies"].as_table()) poetryEntry(deps->get("torch"));
  return labelled(found, file.string() + " ([tool.poetry.dependencies])");
}

// A requirements file and those it includes with -r / -c.
void readRequirements(const fs::path& file, int depth, std::set<fs::path>& seen, Found& found) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(file, ec);
  if (depth > kMaxIncludeDepth || seen.size() >= kMaxIncludedFiles || !seen.insert(canonical).second) return;
  auto text = readSmallFile(file);
  if (!text) return;
  std::string logical;
  auto handle = [&](std::string_view line) {
    // A comment starts at `#` at the beginning or after whitespace.
    for (size_t k = 0; k < line.size(); ++k)
      if (line[k] == '#' && (k == 0 || std::isspace(static_cast<unsigned char>(line[k - 1])))) {
        line = line.substr(0, k);
        break;
      }
    line = trim(line);
    if (line.empty()) return;
    if (line.front() == '-') {
      std::string_view option = line, target;
      for (std::string_view flag : {"--requirement", "--constraint", "-r", "-c"}) {
        if (!line.starts_with(flag)) continue;
        target = trim(line.substr(flag.size()));
        if (!target.empty() && target.front() == '=') target = trim(target.substr(1));
        if (flag.size() > 2 && !target.empty() && line.size() > flag.size() && !std::isspace(static_cast<unsigned char>(line[flag.size()])) && line[flag.size()] != '=') target = {};
        break;
      }
      (void)option;
      if (!target.empty() && target.find("://") == std::string_view::npos)
        readRequirements(file.parent_path() / std::string(target), depth + 1, seen, found);
      return;
    }
    // Per-requirement options (`--hash=...`) follow the requirement.
    for (size_t k = 1; k + 1 < line.size(); ++k)
      if (line[k] == '-' && line[k + 1] == '-' && std::isspace(static_cast<unsigned char>(line[k - 1]))) {
        line = trim(line.substr(0, k));
        break;
      }
    auto range = torchRangeOfRequirement(line);
    if (range && found.first_file.empty()) found.first_file = file.string();
    found.add(std::move(range));
  };
  std::string_view all = *text;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    std::string_view line = all.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? all.size() : end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line.back() == '\\') {
      logical.append(line.substr(0, line.size() - 1));
      logical += ' ';
      continue;
    }
    logical.append(line);
    handle(logical);
    logical.clear();
  }
  if (!logical.empty()) handle(logical);
}

std::optional<rules::TorchRange> fromRequirementFiles(const fs::path& root) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with("requirements") && name.ends_with(".txt")) files.push_back(it->path());
    if (files.size() > 64) break;
  }
  std::sort(files.begin(), files.end());
  Found found;
  std::set<fs::path> seen;
  for (const auto& file : files) readRequirements(file, 0, seen, found);
  return labelled(found, found.first_file);
}

// setup.cfg: `install_requires` in [options], one requirement per (continuation) line.
std::optional<rules::TorchRange> fromSetupCfg(const fs::path& file) {
  auto text = readSmallFile(file);
  if (!text) return std::nullopt;
  Found found;
  std::istringstream in(*text);
  std::string raw;
  bool in_options = false, in_value = false;
  while (std::getline(in, raw)) {
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view trimmed = trim(line);
    if (!trimmed.empty() && trimmed.front() == '[') {
      in_options = trimmed == "[options]";
      in_value = false;
      continue;
    }
    bool indented = !line.empty() && std::isspace(static_cast<unsigned char>(line.front()));
    if (in_value && indented) {
      if (!trimmed.empty() && trimmed.front() != '#' && trimmed.front() != ';') found.add(torchRangeOfRequirement(trimmed));
      continue;
    }
    in_value = false;
    if (!in_options || trimmed.empty()) continue;
    size_t eq = trimmed.find_first_of("=:");
    if (eq == std::string_view::npos || trim(trimmed.substr(0, eq)) != "install_requires") continue;
    in_value = true;
    std::string_view value = trim(trimmed.substr(eq + 1));
    if (!value.empty()) found.add(torchRangeOfRequirement(value));
  }
  return labelled(found, file.string() + " ([options] install_requires)");
}

// setup.py: `install_requires=[...]` (or a name bound once at module level to a list of
// strings), read from the tree; never run.
std::optional<rules::TorchRange> fromSetupPy(const fs::path& file) {
  auto text = readSmallFile(file);
  if (!text || text->find("install_requires") == std::string::npos) return std::nullopt;
  auto parsed = analysis::ParsedFile::parse(std::move(*text));
  std::string_view source = parsed.text();
  Found found;
  std::vector<TSNode> values;
  std::vector<std::pair<std::string_view, TSNode>> assignments;
  analysis::walkTree(
      parsed.root(),
      [&](TSNode node) {
        if (analysis::isKind(node, kind::keyword_argument) &&
            analysis::textOf(analysis::fieldOf(node, "name"), source) == "install_requires")
          values.push_back(analysis::fieldOf(node, "value"));
        if (analysis::isKind(node, kind::assignment)) {
          TSNode left = analysis::fieldOf(node, "left");
          if (analysis::isKind(left, kind::identifier)) assignments.emplace_back(analysis::textOf(left, source), analysis::fieldOf(node, "right"));
        }
        return true;
      },
      [](TSNode) {});
  for (TSNode value : values) {
    value = analysis::unparenthesize(value);
    if (analysis::isKind(value, kind::identifier)) {
      std::string_view name = analysis::textOf(value, source);
      int bound = 0;
      TSNode target{};
      for (auto& [n, v] : assignments)
        if (n == name) ++bound, target = v;
      if (bound != 1) continue;
      value = analysis::unparenthesize(target);
    }
    if (!analysis::isKind(value, kind::list) && !analysis::isKind(value, kind::tuple)) continue;
    analysis::forEachNamedChild(value, [&](TSNode item) {
      if (auto s = rules::stringLiteral(item, source)) found.add(torchRangeOfRequirement(*s));
    });
  }
  return labelled(found, file.string() + " (install_requires)");
}

// environment.yml: conda's `pytorch`/`torch` and the `pip:` section's requirements.
std::optional<rules::TorchRange> fromEnvironmentYml(const fs::path& file) {
  auto text = readSmallFile(file);
  if (!text) return std::nullopt;
  Found found;
  std::istringstream in(*text);
  std::string raw;
  while (std::getline(in, raw)) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() != '-') continue;
    line = trim(line.substr(1));
    if (auto hash = line.find(" #"); hash != std::string_view::npos) line = trim(line.substr(0, hash));
    if (auto r = torchRangeOfConda(line)) found.add(r);
    else found.add(torchRangeOfRequirement(line));
  }
  return labelled(found, file.string());
}

// The torch-X.Y.Z*.dist-info (or .egg-info) of an environment, read by its name.
std::optional<rules::TorchRange> fromEnvironment(const fs::path& env) {
  std::vector<fs::path> site_packages;
  std::error_code ec;
  for (const char* lib : {"lib", "lib64"})
    for (fs::directory_iterator it(env / lib, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().starts_with("python")) site_packages.push_back(it->path() / "site-packages");
  site_packages.push_back(env / "Lib" / "site-packages");
  for (const auto& dir : site_packages) {
    std::error_code ec2;
    for (fs::directory_iterator it(dir, ec2), end; !ec2 && it != end; it.increment(ec2)) {
      std::string name = it->path().filename().string();
      if (!name.starts_with("torch-")) continue;
      std::string_view version = std::string_view(name).substr(6);
      if (version.ends_with(".dist-info")) version.remove_suffix(10);
      else if (version.ends_with(".egg-info")) version.remove_suffix(9);
      else continue;
      version = version.substr(0, version.find('-'));  // egg-info: torch-2.1.0-py3.10.egg-info
      if (auto r = rules::TorchRange::parse("==" + std::string(version))) {
        r->source = it->path().string();
        return r;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

TorchEnv TorchEnv::fromProcess() {
  TorchEnv env;
  if (const char* v = std::getenv("VIRTUAL_ENV"); v != nullptr && *v != '\0') env.virtual_env = v;
  if (const char* c = std::getenv("CONDA_PREFIX"); c != nullptr && *c != '\0') env.conda_prefix = c;
  return env;
}

// The installed torch: the project's .venv/venv, then $VIRTUAL_ENV, then $CONDA_PREFIX.
std::optional<rules::TorchRange> fromEnvironments(const fs::path& root, const TorchEnv& env);

std::optional<rules::TorchRange> findProjectTorchRange(const fs::path& root, const TorchEnv& env) {
  if (root.empty()) return fromEnvironments({}, env);
  if (auto r = fromPyproject(root / "pyproject.toml", false)) return r;
  if (auto r = fromPyproject(root / "pyproject.toml", true)) return r;
  if (auto r = fromRequirementFiles(root)) return r;
  if (auto r = fromSetupCfg(root / "setup.cfg")) return r;
  if (auto r = fromSetupPy(root / "setup.py")) return r;
  if (auto r = fromEnvironmentYml(root / "environment.yml")) return r;
  if (auto r = fromEnvironmentYml(root / "environment.yaml")) return r;
  return fromEnvironments(root, env);
}

std::optional<rules::TorchRange> fromEnvironments(const fs::path& root, const TorchEnv& env) {
  if (!root.empty())
    for (const char* venv : {".venv", "venv"})
      if (auto r = fromEnvironment(root / venv)) return r;
  if (env.virtual_env)
    if (auto r = fromEnvironment(*env.virtual_env)) return r;
  if (env.conda_prefix)
    if (auto r = fromEnvironment(*env.conda_prefix)) return r;
  return std::nullopt;
}

namespace {

// Does `d` hold the files that declare a project: pyproject.toml, setup.py, setup.cfg,
// environment.yml, .git or a requirements*.txt?
bool declaresProject(const fs::path& d) {
  constexpr std::string_view kMarkers[] = {"pyproject.toml", "setup.py", "setup.cfg", "environment.yml",
                                           "environment.yaml", ".git"};
  // One listing answers for every name (a stat per marker per folder cost more); a folder that
  // cannot be listed may still be searched.
  DIR* listing = ::opendir(d.c_str());
  if (listing == nullptr) {
    std::error_code ec;
    for (std::string_view marker : kMarkers)
      if (fs::exists(d / marker, ec)) return true;
    return false;
  }
  bool found = false;
  while (const dirent* entry = ::readdir(listing)) {
    std::string_view name = entry->d_name;
    if ((name.starts_with("requirements") && name.ends_with(".txt")) ||
        std::find(std::begin(kMarkers), std::end(kMarkers), name) != std::end(kMarkers)) {
      // A marker must lead somewhere (a dangling link names nothing), as a stat would tell.
      std::error_code ec;
      found = name.starts_with("requirements") || fs::exists(d / name, ec);
      if (found) break;
    }
  }
  ::closedir(listing);
  return found;
}

}  // namespace

std::optional<rules::TorchRange> TorchRangeFinder::forFolder(const fs::path& dir) {
  // Each folder is asked about once: the walk up stops at the first folder already known, and
  // every folder it passed gets that answer. A folder under no project maps to the empty root
  // (only the environment's torch can then say), shared by all such folders.
  fs::path root;
  std::vector<std::string> passed;
  for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
    {
      std::lock_guard lock(mutex_);
      if (auto it = root_by_dir_.find(d.native()); it != root_by_dir_.end()) {
        root = it->second;
        break;
      }
    }
    passed.push_back(d.native());
    if (declaresProject(d)) {
      root = d;
      break;
    }
    if (d == d.parent_path()) break;
  }
  {
    std::lock_guard lock(mutex_);
    for (auto& d : passed) root_by_dir_[std::move(d)] = root.native();
    if (auto r = by_root_.find(root); r != by_root_.end()) return r->second;
  }
  auto found = findProjectTorchRange(root, env_);  // read outside the lock; a race reads twice
  std::lock_guard lock(mutex_);
  return by_root_.emplace(root, found).first->second;
}

void TorchRangeFinder::invalidate() {
  std::lock_guard lock(mutex_);
  root_by_dir_.clear();
  by_root_.clear();
}

}  // namespace ptlint::workspace
