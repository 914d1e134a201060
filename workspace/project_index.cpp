#include "workspace/project_index.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>
#include <vector>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/instrumentation.h"
#include "analysis/parse.h"
#include "analysis/text_search.h"
#include "workspace/cache.h"
#include "analysis/semantic_model.h"
#include "workspace/json_sections.h"
#include "workspace/read_fd.h"
#include "workspace/training_scan.h"
#include "rules/common/grad_mode.h"

namespace fs = std::filesystem;

namespace ptlint::analysis {
// The summaries' on-disk form (`.ptlint_cache/project-scan.json`).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NameRef, kind, name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourcePos, start, end, line, column, column_utf16, column_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CallRef, kind, target, attr, at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FunctionSummary, name, at, disabled, calls, calls_unknown, returns,
                                   returns_unknown, registry_lookup, registers, decorators)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassSummary::ParameterAttribute, attr, parameter, index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassSummary, name, bases, decorators, methods, attributes, unknown_attributes,
                                   parameter_attributes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Construction::Argument, keyword, index, classes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Construction, callee, arguments, unknown_arguments, at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompileSite, kind, target, owner, attr, method, at, parameter_index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ModuleSummary, imports, definitions, functions, classes, compile_sites, environment,
                                   unknown_compile_sites, constructions, captures_scalars)
}  // namespace ptlint::analysis

namespace ptlint::workspace {

using analysis::CrossFileNote;
using analysis::ModuleSummary;
using analysis::NameRef;
using analysis::ProjectFacts;

namespace {

constexpr int kMaxDepth = 8;          // re-export chains, base classes
constexpr size_t kMaxTrail = 8;       // notes kept per compiled function
constexpr size_t kMaxScannedUsers = 32;  // files summarised for one registry or constructor
// Classes one walk over the bases visits (each once); a hierarchy past it is left incomplete.
constexpr size_t kMaxClassesWalked = 100000;

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool hasMarker(const fs::path& dir) {
  std::error_code ec;
  for (const char* marker : {"pyproject.toml", "setup.py", "setup.cfg", ".git"})
    if (fs::exists(dir / marker, ec)) return true;
  return false;
}

std::vector<std::string> split(std::string_view dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) dot = dotted.size();
    parts.emplace_back(dotted.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

bool skippedFolder(const fs::path& dir) {
  std::string name = dir.filename().string();
  if (name.empty() || name[0] == '.' || name == "__pycache__" || name == "node_modules" || name == "site-packages")
    return true;
  return isFile(dir / "pyvenv.cfg");  // a virtual environment
}

// The bytes of `path` into `out` (reused between calls); false when unreadable or too large.
bool readRaw(const fs::path& path, size_t max_bytes, std::string& out, struct stat& st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) <= max_bytes;
  if (ok) {
    out.resize(static_cast<size_t>(st.st_size));
    readToFill(fd, out);
  }
  ::close(fd);
  return ok;
}

int64_t nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// Coarse file systems keep times to 2 s (FAT), 1 s (HFS+, some network mounts).
constexpr int64_t kTimestampTickNs = 2'000'000'000;

}  // namespace

// One project: its root, its files, and (once linked) the facts for each file.
class ProjectIndex::Project {
 public:
  Project(ProjectIndex& index, fs::path root, fs::path scan, bool recursive, std::vector<fs::path> beside)
      : index_(index), root_(std::move(root)), scan_(std::move(scan)), recursive_(recursive), beside_(std::move(beside)) {
    import_roots_.push_back(root_);
    std::error_code ec;
    if (fs::is_directory(root_ / "src", ec)) import_roots_.push_back(root_ / "src");
  }

  void ensureLinked() {
    std::call_once(linked_, [&] {
      try {
        link();
      } catch (const std::exception&) {
        facts_.clear();  // a project that cannot be linked gives no facts; the file is still linted
      }
      done_.store(true, std::memory_order_release);
    });
  }

  std::shared_ptr<const ProjectFacts> factsFor(const fs::path& file) {
    ensureLinked();
    auto it = facts_.find(file.string());
    if (it != facts_.end()) return it->second;
    return base_facts_;
  }

  // Is `file` among the files this project scans?
  bool contains(const fs::path& file) const {
    if (std::find(beside_.begin(), beside_.end(), file.parent_path()) != beside_.end()) return true;
    if (!recursive_) return file.parent_path() == scan_;
    auto rel = file.lexically_relative(scan_);
    return !rel.empty() && *rel.begin() != "..";
  }
  // Could a new text of `file` change the facts? Unknown (true) while the link is running.
  // `text`: the new text (nullopt: unknown); one that may hold a compile site, a training word
  // (workspace/training_scan.h) or an evaluation function's name may change them.
  bool mayDependOn(const fs::path& file, std::optional<std::string_view> text) const {
    if (!done_.load(std::memory_order_acquire) || !text) return true;
    if (analysis::mayHoldCompileSite(*text)) return true;
    // A training word that comes or goes (a `for epoch` line typed in a script that had one is
    // no news).
    auto bits = training_bits_.find(file.string());
    if (trainingWordsOf(*text) != (bits == training_bits_.end() ? 0 : bits->second)) return true;
    for (const std::string& name : evaluation_names_)
      if (analysis::forEachWholeWord(*text, name, [](size_t) { return true; })) return true;
    return modules_.count(file.string()) != 0 || training_files_.count(file.string()) != 0;
  }
  // The files whose facts differ between this link and `other` (both finished).
  std::vector<fs::path> changedFacts(const Project& other) const {
    std::vector<fs::path> out;
    for (const auto& [path, facts] : other.facts_) {
      auto it = facts_.find(path);
      if (it == facts_.end() || it->second->digest != facts->digest) out.emplace_back(path);
    }
    for (const auto& [path, facts] : facts_)
      if (!other.facts_.count(path)) out.emplace_back(path);
    return out;
  }
  const fs::path& root() const { return root_; }
  bool recursive() const { return recursive_; }
  const std::vector<fs::path>& beside() const { return beside_; }

 private:
  struct Symbol {
    fs::path path;
    std::string name;  // `Cls`, `fn` or `Cls.method`
  };

  // ---- Files and summaries (only the linking thread touches these maps). ----
  const ModuleSummary* load(const fs::path& path) {
    auto [it, inserted] = modules_.try_emplace(path.string());
    if (inserted) {
      if (auto text = index_.read(path)) it->second = index_.summaryOf(*text);
    }
    return it->second.get();
  }

  std::optional<fs::path> moduleFile(const fs::path& base, const std::vector<std::string>& parts, size_t count) {
    fs::path dir = base;
    for (size_t i = 0; i + 1 < count; ++i) dir /= parts[i];
    std::string key = dir.string() + "|" + (count ? parts[count - 1] : "");
    if (auto it = module_files_.find(key); it != module_files_.end()) return it->second;
    std::optional<fs::path> found;
    // A module open in the editor counts before it is saved.
    auto isFile = [this](const fs::path& p) { return ptlint::workspace::isFile(p) || index_.inOverlay(p); };
    // As Python's path finder: a package (`name/__init__.py`) wins over a module beside it
    // (`name.py`).
    if (count == 0) {
      if (isFile(dir / "__init__.py")) found = dir / "__init__.py";
    } else if (isFile(dir / parts[count - 1] / "__init__.py")) {
      found = dir / parts[count - 1] / "__init__.py";
    } else if (isFile(dir / (parts[count - 1] + ".py"))) {
      found = dir / (parts[count - 1] + ".py");
    }
    module_files_.emplace(key, found);
    return found;
  }

  // ---- Resolution ----
  std::optional<Symbol> resolve(const fs::path& from, const NameRef& ref, int depth = 0) {
    if (ref.kind == NameRef::Kind::Local) return Symbol{from, ref.name};
    return resolveQualified(from, ref.name, depth);
  }

  // As resolve, also to a top-level name bound by assignment (`compiler = partial(torch.compile)`).
  std::optional<Symbol> resolveDefinition(const fs::path& from, const NameRef& ref) {
    definitions_ = true;
    auto out = resolve(from, ref);
    definitions_ = false;
    return out;
  }

  std::optional<Symbol> resolveQualified(const fs::path& from, std::string_view qualified, int depth) {
    if (depth > kMaxDepth || qualified.empty()) return std::nullopt;
    std::vector<fs::path> bases;
    std::string_view rest = qualified;
    if (qualified.front() == '.') {
      size_t dots = qualified.find_first_not_of('.');
      if (dots == std::string_view::npos) return std::nullopt;
      fs::path dir = from.parent_path();
      for (size_t i = 1; i < dots; ++i) dir = dir.parent_path();
      bases.push_back(dir);
      rest = qualified.substr(dots);
    } else {
      // As `python train.py` sees it: the script's own folder first (`sys.path[0]`), or for a
      // module of a package the folder holding the outermost package; then the project's roots.
      bases.push_back(localRoot(from));
      for (const fs::path& root : import_roots_)
        if (root != bases.front()) bases.push_back(root);
    }
    std::vector<std::string> parts = split(rest);
    bool relative = qualified.front() == '.';
    for (const fs::path& base : bases) {
      // The longest prefix naming a module file; what follows is a name in it (a relative import
      // may name the package itself: `from . import f`).
      size_t least = relative ? 0 : 1;
      for (size_t n = parts.size() - 1; n + 1 > least; --n) {
        if (auto file = moduleFile(base, parts, n))
          return symbolIn(*file, std::vector<std::string>(parts.begin() + static_cast<long>(n), parts.end()), depth);
        if (n == 0) break;
      }
    }
    return std::nullopt;
  }

  // The folder a module's absolute imports resolve from besides the project's roots: its own
  // folder when that is no package (a script run as `python train.py`), else the folder holding
  // its outermost package. Memoised per folder.
  const fs::path& localRoot(const fs::path& file) {
    std::string key = file.parent_path().string();
    if (auto it = local_roots_.find(key); it != local_roots_.end()) return it->second;
    fs::path dir = file.parent_path();
    for (int depth = 0; depth < 64 && dir.has_relative_path() && isFile(dir / "__init__.py"); ++depth) dir = dir.parent_path();
    return local_roots_.emplace(std::move(key), std::move(dir)).first->second;
  }

  // `names` (one or two segments) defined in, or re-exported by, the module `file`.
  std::optional<Symbol> symbolIn(const fs::path& file, const std::vector<std::string>& names, int depth) {
    if (names.empty() || names.size() > 2) return std::nullopt;
    const ModuleSummary* summary = load(file);
    if (summary == nullptr) return std::nullopt;
    const std::string& head = names[0];
    if (summary->findClass(head) != nullptr) return Symbol{file, names.size() == 2 ? head + "." + names[1] : head};
    if (summary->findFunction(head) != nullptr && names.size() == 1) return Symbol{file, head};
    if (definitions_ && names.size() == 1 && summary->importOf(head) == nullptr &&
        std::find(summary->definitions.begin(), summary->definitions.end(), head) != summary->definitions.end())
      return Symbol{file, head};
    if (const std::string* imported = summary->importOf(head)) {
      std::string next = *imported;
      if (names.size() == 2) next += "." + names[1];
      return resolveQualified(file, next, depth + 1);
    }
    return std::nullopt;
  }

  const analysis::ClassSummary* classOf(const Symbol& s) {
    const ModuleSummary* summary = load(s.path);
    return summary ? summary->findClass(s.name) : nullptr;
  }

  const analysis::FunctionSummary* functionOf(const Symbol& s) {
    const ModuleSummary* summary = load(s.path);
    if (summary == nullptr) return nullptr;
    size_t dot = s.name.find('.');
    if (dot == std::string::npos) return summary->findFunction(s.name);
    const auto* cls = summary->findClass(std::string_view(s.name).substr(0, dot));
    if (cls == nullptr) return nullptr;
    for (const auto& m : cls->methods)
      if (m.name == std::string_view(s.name).substr(dot + 1)) return &m;
    return nullptr;
  }

  // ---- The base-class graph ----
  // What a visit of one class tells the walk: go on into its bases, skip its bases (the class
  // answers for them), or stop with the answer.
  enum class Step { Continue, Prune, Stop };

  // The project classes of `cls`'s bases (top-level classes the index resolves), in order,
  // memoised per class.
  const std::vector<Symbol>& basesOf(const Symbol& cls) {
    std::string key = cls.path.string() + "\n" + cls.name;
    if (auto it = bases_.find(key); it != bases_.end()) return it->second;
    std::vector<Symbol> out;
    if (const auto* summary = classOf(cls))
      for (const NameRef& base : summary->bases)
        if (auto b = resolve(cls.path, base); b && b->name.find('.') == std::string::npos) out.push_back(std::move(*b));
    return bases_.emplace(std::move(key), std::move(out)).first->second;
  }

  // Visits `cls` and the classes it derives from, depth first and left to right (the order the
  // lookups below answer in), each class once however many paths reach it: a lattice of W
  // classes on each of D levels costs W*D visits, not W^D. Bounded by kMaxClassesWalked; a walk
  // cut there reports it through `wide_->compiles_unknown` (its answer may be incomplete).
  template <typename Visit>
  void walkBases(const Symbol& cls, Visit&& visit) {
    std::unordered_set<std::string> seen;
    std::vector<Symbol> stack{cls};
    while (!stack.empty()) {
      Symbol s = std::move(stack.back());
      stack.pop_back();
      if (!seen.insert(s.path.string() + "\n" + s.name).second) continue;
      if (seen.size() > kMaxClassesWalked) {
        if (wide_) wide_->compiles_unknown = true;
        return;
      }
      const auto* summary = classOf(s);
      if (summary == nullptr) continue;
      Step step = visit(s, *summary);
      if (step == Step::Stop) return;
      if (step == Step::Prune) continue;
      const auto& bases = basesOf(s);
      for (auto it = bases.rbegin(); it != bases.rend(); ++it) stack.push_back(*it);
    }
  }

  // `Cls.method` where the class or one of its bases (in any file) defines it (memoised).
  std::optional<Symbol> findMethod(const Symbol& cls, std::string_view method) {
    std::string key = cls.path.string() + "\n" + cls.name + "\n" + std::string(method);
    if (auto it = methods_.find(key); it != methods_.end()) return it->second;
    std::optional<Symbol> found;
    walkBases(cls, [&](const Symbol& c, const analysis::ClassSummary& summary) {
      for (const auto& m : summary.methods)
        if (m.name == method) {
          found = Symbol{c.path, c.name + "." + std::string(method)};
          return Step::Stop;
        }
      return Step::Continue;
    });
    return methods_[key] = found;
  }

  // The project classes an instance built by `s` may be: `s` itself for a class; for a factory
  // (`build(cfg)`, `Cls.from_pretrained(...)`), the classes its returns give. Library classes
  // (`nn.Linear`) give none. Nullopt when some return cannot be followed.
  std::optional<std::vector<Symbol>> classesOf(const Symbol& s, int depth = 0) {
    if (depth > kMaxDepth) return std::nullopt;
    if (classOf(s) != nullptr) return std::vector<Symbol>{s};
    // Memoised: factories returning factories (a chain, a diamond, a cycle) are followed once.
    std::string key = s.path.string() + "\n" + s.name;
    if (auto it = classes_.find(key); it != classes_.end()) return it->second;
    classes_[key] = std::nullopt;  // reached again while being resolved: not followed
    auto out = factoryClasses(s, depth);
    return classes_[key] = std::move(out);
  }

  std::optional<std::vector<Symbol>> factoryClasses(const Symbol& s, int depth) {
    const auto* fn = functionOf(s);
    if (fn == nullptr) return std::nullopt;
    if (fn->returns_unknown) {
      // `create_model(name)`: what a registry of decorated factories holds.
      if (auto registry = registryOf(s, *fn)) return registeredClasses(*registry, depth + 1);
      return std::nullopt;
    }
    if (fn->returns.empty()) return std::nullopt;
    std::vector<Symbol> out;
    for (const NameRef& ref : fn->returns) {
      auto r = resolve(s.path, ref);
      if (!r) {
        // torch's own modules run no project code; another library's factory
        // (`hydra.utils.instantiate(cfg)`) may build any class of the project.
        if (ref.kind == NameRef::Kind::Imported && ref.name.starts_with("torch.")) continue;
        return std::nullopt;
      }
      auto more = classesOf(*r, depth + 1);
      if (!more) return std::nullopt;
      for (auto& c : *more)
        if (std::none_of(out.begin(), out.end(), [&](const Symbol& o) { return o.path == c.path && o.name == c.name; }))
          out.push_back(std::move(c));
    }
    return out;
  }

  // The project files whose bytes hold `word` as a whole word, not yet known to be summarised
  // or not; nullopt past kMaxScannedUsers of them not summarised yet (a registry of hundreds of
  // model files is not worth parsing them all on a question's behalf).
  std::optional<std::vector<fs::path>> filesNaming(std::string_view word) {
    auto [memo, fresh] = naming_.try_emplace(std::string(word));
    if (!fresh) return memo->second;
    std::vector<fs::path> out;
    size_t unsummarised = 0;
    std::string raw;
    struct stat st {};
    for (const std::string& name : files_) {
      const fs::path file(name);
      if (!readRaw(file, index_.max_bytes_, raw, st) ||
          !analysis::forEachWholeWord(raw, word, [](size_t) { return true; }))
        continue;
      if (!modules_.count(file.string()) && ++unsummarised > kMaxScannedUsers) return memo->second = std::nullopt;
      out.push_back(file);
    }
    return memo->second = out;
  }

  // The registry `fn` looks its result up in: its own `return REGISTRY[name]`, or that of a
  // function it calls (`create_fn = model_entrypoint(name); return create_fn(**kwargs)`).
  std::optional<Symbol> registryOf(const Symbol& s, const analysis::FunctionSummary& fn) {
    if (!fn.registry_lookup.empty()) return Symbol{s.path, fn.registry_lookup};
    for (const auto& call : fn.calls) {
      if (call.kind != analysis::CallRef::Kind::Name) continue;
      auto target = resolve(s.path, call.target);
      if (!target) continue;
      const auto* g = functionOf(*target);
      if (g != nullptr && !g->registry_lookup.empty()) return Symbol{target->path, g->registry_lookup};
    }
    return std::nullopt;
  }

  // The classes the factories (or classes) registered into `registry` build: every top-level
  // definition of the project decorated with a function of the registry's module that stores
  // its parameter into it (`@register_model`). The files naming the decorator are found by a raw
  // scan, and only those are summarised.
  std::optional<std::vector<Symbol>> registeredClasses(const Symbol& registry, int depth) {
    std::string key = registry.path.string() + "\n" + registry.name;
    if (auto it = registries_.find(key); it != registries_.end()) return it->second;
    registries_[key] = std::nullopt;  // a registry reached again while being resolved
    const ModuleSummary* module = load(registry.path);
    if (module == nullptr) return std::nullopt;
    std::vector<Symbol> out;
    bool any_decorator = false;
    for (const auto& decorator : module->functions) {
      if (decorator.registers != registry.name) continue;
      any_decorator = true;
      auto users = filesNaming(decorator.name);
      if (!users) return std::nullopt;  // too many to summarise: left unresolved
      for (const fs::path& file : *users) {
        const ModuleSummary* user = load(file);
        if (user == nullptr) continue;
        auto decorated_by = [&](const std::vector<NameRef>& decorators) {
          for (const NameRef& d : decorators)
            if (auto r = resolve(file, d); r && r->path == registry.path && r->name == decorator.name) return true;
          return false;
        };
        std::vector<Symbol> entries;
        for (const auto& f : user->functions)
          if (decorated_by(f.decorators)) entries.push_back({file, f.name});
        for (const auto& c : user->classes)
          if (decorated_by(c.decorators)) entries.push_back({file, c.name});
        for (const Symbol& entry : entries) {
          auto classes = classesOf(entry, depth + 1);
          if (!classes) {
            wide_->compiles_unknown = true;
            continue;
          }
          for (auto& c : *classes)
            if (std::none_of(out.begin(), out.end(), [&](const Symbol& o) { return o.path == c.path && o.name == c.name; }))
              out.push_back(std::move(c));
        }
      }
    }
    if (!any_decorator) return std::nullopt;
    registries_[key] = out;
    return out;
  }

  // The classes the constructor of `cls` is given for its parameter `name` (position `index`),
  // over every construction in the project (`Trainer(UNet(), opt)` in main.py). The files naming
  // the class are found by a raw scan, and only those are summarised. Nullopt when none is found
  // or one passes something the summaries cannot name.
  std::optional<std::vector<Symbol>> constructorArgument(const Symbol& cls, const std::string& name, int index,
                                                         int depth = 0) {
    std::string key = fmt::format("{}\n{}\n{}", cls.path.string(), cls.name, name);
    if (auto it = arguments_.find(key); it != arguments_.end()) return it->second;
    arguments_[key] = std::nullopt;
    if (depth > kMaxDepth) return std::nullopt;
    std::vector<Symbol> out;
    bool found = false, unknown = false;
    auto users = filesNaming(cls.name);
    if (!users) return std::nullopt;  // too many to summarise: left unresolved
    for (const fs::path& file : *users) {
      const ModuleSummary* user = load(file);
      if (user == nullptr) continue;
      for (const auto& c : user->constructions) {
        auto callee = resolve(file, c.callee);
        if (!callee || callee->path != cls.path || callee->name != cls.name) continue;
        found = true;
        bool matched = false;
        for (const auto& a : c.arguments) {
          if (!(a.keyword == name || (a.keyword.empty() && index >= 0 && a.index == index))) continue;
          matched = true;
          for (const NameRef& ref : a.classes) {
            auto r = resolve(file, ref);
            auto classes = r ? classesOf(*r, depth + 1) : std::nullopt;
            if (!classes) {
              if (!isLibraryName(ref)) unknown = true;
              continue;
            }
            for (auto& k : *classes)
              if (std::none_of(out.begin(), out.end(), [&](const Symbol& o) { return o.path == k.path && o.name == k.name; }))
                out.push_back(std::move(k));
          }
        }
        if (!matched) unknown = true;  // passed as something unnamed, or left to its default
      }
    }
    if (!found) return std::nullopt;
    if (unknown) wide_->compiles_unknown = true;
    arguments_[key] = out;
    return out;
  }

  // For `self.<attr>` bound to a constructor parameter in `__init__`: what the constructions
  // pass. Nullopt when `attr` is not such an attribute.
  std::optional<std::vector<Symbol>> parameterAttributeClasses(const Symbol& cls, std::string_view attr) {
    const auto* summary = classOf(cls);
    if (summary == nullptr) return std::nullopt;
    for (const auto& p : summary->parameter_attributes)
      if (p.attr == attr) {
        auto classes = constructorArgument(cls, p.parameter, p.index);
        if (!classes) wide_->compiles_unknown = true;
        return classes.value_or(std::vector<Symbol>{});
      }
    return std::nullopt;
  }

  // The classes `__init__` binds to `self.<attr>` in the class or its bases (factories followed;
  // one that cannot be makes the compiled code reach unknown code): the class itself when it
  // binds `attr`, else the first base (depth first) whose binding gives some class.
  std::vector<Symbol> attributeClasses(const Symbol& cls, std::string_view attr) {
    std::vector<Symbol> out;
    walkBases(cls, [&](const Symbol& c, const analysis::ClassSummary& summary) {
      for (const auto& [name, classes] : summary.attributes) {
        if (name != attr) continue;
        for (const NameRef& ref : classes) {
          auto s = resolve(c.path, ref);
          if (!s) {
            if (!isLibraryName(ref)) wide_->compiles_unknown = true;
            continue;
          }
          auto found = classesOf(*s);
          if (!found) {
            wide_->compiles_unknown = true;
            continue;
          }
          out.insert(out.end(), found->begin(), found->end());
        }
        bool own = c.path == cls.path && c.name == cls.name;
        return own || !out.empty() ? Step::Stop : Step::Prune;
      }
      return Step::Continue;
    });
    return out;
  }

  // Does `__init__` of the class (or of a base) bind `self.<attr>` (`a.b` for a ModuleDict's
  // element) to module classes it records?
  bool hasAttribute(const Symbol& cls, std::string_view attr) {
    bool found = false;
    walkBases(cls, [&](const Symbol&, const analysis::ClassSummary& summary) {
      for (const auto& [name, classes] : summary.attributes)
        if (name == attr) {
          found = true;
          return Step::Stop;
        }
      return Step::Continue;
    });
    return found;
  }

  // Does `__init__` of the class (or of a base) bind `self.<attr>` to something unresolved? A
  // class that binds it to something known answers for its own bases.
  bool unknownAttribute(const Symbol& cls, std::string_view attr) {
    bool unknown = false;
    walkBases(cls, [&](const Symbol&, const analysis::ClassSummary& summary) {
      for (const auto& [name, classes] : summary.attributes)
        if (name == attr) return Step::Prune;
      for (const auto& p : summary.parameter_attributes)
        if (p.attr == attr) return Step::Prune;  // parameterAttributeClasses says
      for (const auto& name : summary.unknown_attributes)
        if (name == attr) {
          unknown = true;
          return Step::Stop;
        }
      return Step::Continue;
    });
    return unknown;
  }

  // Does the class derive from a `torch.nn` class (through project classes) without defining
  // `method` itself on the way? `obj.compile()` is nn.Module's only then.
  bool isTorchModuleWith(const Symbol& cls, std::string_view method) {
    bool torch_module = false;
    walkBases(cls, [&](const Symbol&, const analysis::ClassSummary& summary) {
      for (const auto& m : summary.methods)
        if (m.name == method) return Step::Prune;
      for (const NameRef& base : summary.bases)
        if (base.kind == NameRef::Kind::Imported && base.name.starts_with("torch.nn.")) {
          torch_module = true;
          return Step::Stop;
        }
      return Step::Continue;
    });
    return torch_module;
  }

  // `def maybe_compile(m): return torch.compile(m)` (or `compiler = partial(torch.compile)`):
  // what the project's calls of `helper` pass at parameter `name` (position `index`), and what
  // it decorates. The files naming it are found by a raw scan, and only those are summarised.
  void compileThroughHelper(const Symbol& helper, const std::string& name, int index, bool method,
                            const std::vector<CrossFileNote>& trail) {
    auto users = filesNaming(helper.name);
    if (!users) return;  // too many to summarise: left unresolved (the site is unknown already)
    auto isHelper = [&](const fs::path& file, const NameRef& ref) {
      auto r = resolveDefinition(file, ref);
      return r && r->path == helper.path && r->name == helper.name;
    };
    bool site_captured = captured_;
    for (const fs::path& file : *users) {
      const ModuleSummary* user = load(file);
      if (user == nullptr) continue;
      captured_ = site_captured || user->captures_scalars;  // the calling script's setting
      for (const auto& c : user->constructions) {
        if (!isHelper(file, c.callee)) continue;
        for (const auto& a : c.arguments) {
          if (!(a.keyword == name || (a.keyword.empty() && index >= 0 && a.index == index))) continue;
          for (const NameRef& ref : a.classes) {
            auto r = resolve(file, ref);
            auto classes = r ? classesOf(*r) : std::nullopt;
            for (const Symbol& cls : classes.value_or(std::vector<Symbol>{}))
              if (!method || isTorchModuleWith(cls, "compile"))
                compileInstance(cls, extend(trail, {file.string(), c.at,
                                                    fmt::format("`{}` is passed to `{}` here", cls.name, helper.name)}));
          }
        }
      }
      if (method) continue;
      auto decorated = [&](const std::vector<NameRef>& decorators) {
        return std::any_of(decorators.begin(), decorators.end(), [&](const NameRef& d) { return isHelper(file, d); });
      };
      for (const auto& f : user->functions)
        if (decorated(f.decorators))
          compile({file, f.name}, extend(trail, {file.string(), f.at, fmt::format("`{}` is decorated with `{}`", f.name, helper.name)}));
      for (const auto& k : user->classes)
        for (const auto& m : k.methods)
          if (decorated(m.decorators))
            compile({file, k.name + "." + m.name},
                    extend(trail, {file.string(), m.at, fmt::format("`{}.{}` is decorated with `{}`", k.name, m.name, helper.name)}));
    }
    captured_ = site_captured;
  }

  // ---- Linking ----
  void compile(const Symbol& fn, std::vector<CrossFileNote> trail) {
    const auto* summary = functionOf(fn);
    if (summary == nullptr || summary->disabled) return;
    std::string key = fn.path.string() + "\n" + fn.name;
    if (trail.size() > kMaxTrail) trail.resize(kMaxTrail);
    auto [it, added] = compiled_.try_emplace(key, captured_);
    if (!added) {
      // Reached again from a compile that does not capture scalars: so is what it reaches.
      if (!captured_ && it->second) {
        it->second = false;
        queue_.push_back({fn, std::move(trail), false});
      }
      return;
    }
    roots_[fn.path.string()].push_back({fn.name, false, trail});
    queue_.push_back({fn, std::move(trail), captured_});
  }

  void compileInstance(const Symbol& cls, std::vector<CrossFileNote> trail) {
    if (classOf(cls) == nullptr) return;
    auto forward = findMethod(cls, "forward");
    if (!forward) forward = findMethod(cls, "__call__");
    if (forward) compile(*forward, std::move(trail));
  }

  static std::vector<CrossFileNote> extend(const std::vector<CrossFileNote>& trail, CrossFileNote note) {
    std::vector<CrossFileNote> out;
    out.reserve(trail.size() + 1);
    out.push_back(std::move(note));
    out.insert(out.end(), trail.begin(), trail.end());
    return out;
  }

  // A name from outside the project's modules (`torch.nn.Linear`, `timm.create_model` when timm
  // is not part of the project): it cannot compile the project's code unless handed it, which
  // the site would show.
  bool isLibraryName(const NameRef& ref) {
    if (ref.kind == NameRef::Kind::Local || ref.name.empty() || ref.name.front() == '.') return false;
    std::string top = ref.name.substr(0, ref.name.find('.'));
    if (top == "torch") return true;
    for (const fs::path& base : import_roots_)
      if (isFile(base / (top + ".py")) || fs::is_directory(base / top)) return false;
    return true;
  }

  // Python modules, and notebooks: a notebook imports the project's modules and compiles them
  // as a training script does (its reader hands over the joined code cells).
  static bool isSourceFile(const fs::path& path) {
    return path.extension() == ".py" || path.extension() == ".ipynb";
  }

  // The project's source files. A folder or entry that cannot be read, and the file limit, are
  // told through `index_.problem` and make the facts incomplete (`compiles_unknown`), never
  // dropped in silence. Iterative: a tree thousands of folders deep costs no stack.
  // Native strings, not path objects: a path holds one object per level of its folder.
  std::vector<std::string> listFiles(analysis::ProjectWideFacts& wide) {
    std::vector<std::string> files;
    std::error_code ec;
    auto incomplete = [&](std::string message, bool limit = false) {
      wide.compiles_unknown = true;
      index_.problem({std::move(message), limit});
    };
    std::vector<fs::path> stack{scan_};
    // The folders whose scripts may import the scanned ones (a package's parent, the folders up
    // to the working folder), without recursion.
    size_t next_beside = 0;
    while (!stack.empty() || next_beside < beside_.size()) {
      bool beside = stack.empty();
      if (beside) stack.push_back(beside_[next_beside++]);
      fs::path dir = std::move(stack.back());
      stack.pop_back();
      fs::directory_iterator it(dir, ec);
      if (ec) {
        incomplete(fmt::format("project index: cannot read folder {} ({}); cross-file findings may be missing",
                               dir.string(), ec.message()));
        continue;
      }
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const fs::path& path = it->path();
        fs::file_status status = it->symlink_status(ec);
        if (ec) {
          if (isSourceFile(path) || !path.has_extension())
            incomplete(fmt::format("project index: cannot read {} ({}); cross-file findings may be missing",
                                   path.string(), ec.message()));
          ec.clear();
          continue;
        }
        if (fs::is_directory(status)) {
          if (recursive_ && !beside && !skippedFolder(path)) stack.push_back(path);
          continue;
        }
        if (!isSourceFile(path) || !it->is_regular_file(ec)) continue;  // a link to a file counts
        if (files.size() >= index_.max_files_) {
          incomplete(fmt::format("project index: more than {} source files under {}; the rest are not indexed and "
                                 "cross-file findings may be missing",
                                 index_.max_files_, scan_.string()),
                     true);
          return files;
        }
        files.push_back(path.native());
      }
      if (ec) {
        incomplete(fmt::format("project index: cannot read folder {} ({}); cross-file findings may be missing",
                               dir.string(), ec.message()));
        ec.clear();
      }
    }
    return files;
  }

  void link() {
    // Compile sites can only be in files holding the word `compile`.
    wide_ = std::make_shared<analysis::ProjectWideFacts>();
    files_ = listFiles(*wide_);
    // In path order (by component): the separator sorts before every other byte.
    std::sort(files_.begin(), files_.end(), [](const std::string& a, const std::string& b) {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        auto key = [](char c) { return c == '/' ? -1 : static_cast<int>(static_cast<unsigned char>(c)); };
        return key(x) < key(y);
      });
    });
    std::string raw;
    const auto& wide = wide_;
    for (const std::string& name : files_) {
      const fs::path file(name);
      // A raw look first: most files hold no site and are never decoded or parsed.
      ScanVerdict verdict = index_.scanFile(file, raw);
      if (verdict.too_large) {
        // Not looked at, so not known to compile nothing: told, and the facts are incomplete.
        wide->compiles_unknown = true;
        size_t limit = index_.max_bytes_;
        index_.problem({fmt::format("project index: {} is larger than the {} limit and was not scanned; "
                                    "cross-file findings may be missing",
                                    file.string(),
                                    limit % (1u << 20) == 0 ? fmt::format("{} MB", limit >> 20)
                                                            : fmt::format("{} bytes", limit)),
                        true});
        continue;
      }
      noteTraining(file, verdict.training);
      if (!verdict.may_compile && !verdict.may_set_environment) continue;
      auto text = index_.read(file);
      if (!text) continue;
      auto summary = index_.summaryOf(*text);
      modules_[file.string()] = summary;
      for (const std::string& variable : summary->environment)
        for (std::string_view wanted : analysis::indexedEnvironmentVariables())
          if (variable == wanted && wide->setsEnvironment(wanted) == nullptr)
            wide->environment.push_back({variable, {file.string(), {}, fmt::format("`{}` is set here", variable)}});
      if (!verdict.may_compile) continue;
      if (!summary->unknown_compile_sites.empty()) wide->compiles_unknown = true;
      // `capture_scalar_outputs = True` set for the whole run of this file: what its sites
      // compile captures `.item()` (unless some other compile reaches it too).
      captured_ = summary->captures_scalars;
      for (const auto& site : summary->compile_sites) {
        bool on_self = site.kind == analysis::CompileSite::Kind::SelfAttr || site.kind == analysis::CompileSite::Kind::Parameter;
        std::string target = on_self ? site.owner + "." + site.attr : site.target.name;
        if (site.kind == analysis::CompileSite::Kind::Parameter) target = site.attr;
        if (site.kind == analysis::CompileSite::Kind::FunctionParameter)
          target = site.attr.empty() ? "the argument of `" + site.owner + "`" : site.attr;
        if (size_t dot = target.rfind('.'); dot != std::string::npos && !on_self)
          target = target.substr(dot + 1);
        if (site.kind == analysis::CompileSite::Kind::InstanceAttr) target += "." + site.attr;
        std::vector<CrossFileNote> trail{{file.string(), site.at, fmt::format("`{}` is compiled here", target)}};
        switch (site.kind) {
          case analysis::CompileSite::Kind::Instance:
            if (auto built = resolve(file, site.target)) {
              auto classes = classesOf(*built);
              if (!classes) wide->compiles_unknown = true;  // a factory the index cannot follow
              for (const Symbol& cls : classes.value_or(std::vector<Symbol>{}))
                if (!site.method || isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
            } else if (!site.target.name.starts_with("torch.")) {
              // A class the index cannot find, or another library's factory
              // (`instantiate(cfg.model)`), which may build any class of the project.
              wide->compiles_unknown = true;
            }
            break;
          case analysis::CompileSite::Kind::InstanceAttr:
            if (auto built = resolve(file, site.target)) {
              auto classes = classesOf(*built);
              if (!classes) wide->compiles_unknown = true;
              for (const Symbol& owner : classes.value_or(std::vector<Symbol>{})) {
                auto elements = attributeClasses(owner, site.attr);
                if (elements.empty()) wide->compiles_unknown = true;  // bound to what the index cannot name
                for (const Symbol& cls : elements)
                  if (isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
              }
            } else if (!site.target.name.starts_with("torch.")) {
              wide->compiles_unknown = true;
            }
            break;
          case analysis::CompileSite::Kind::Function:
            if (auto fn = resolve(file, site.target)) {
              if (classOf(*fn) == nullptr) compile(*fn, trail);
            } else if (!isLibraryName(site.target)) {
              wide->compiles_unknown = true;
            }
            break;
          case analysis::CompileSite::Kind::FunctionParameter:
            // What every call passes is not always named: the facts stay incomplete, as for a
            // parameter the index cannot follow.
            wide->compiles_unknown = true;
            compileThroughHelper({file, site.owner}, site.attr, site.parameter_index, site.method, trail);
            break;
          case analysis::CompileSite::Kind::Parameter: {
            auto classes = constructorArgument({file, site.owner}, site.attr, site.parameter_index);
            if (!classes) wide->compiles_unknown = true;
            for (const Symbol& cls : classes.value_or(std::vector<Symbol>{}))
              if (!site.method || isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
            break;
          }
          case analysis::CompileSite::Kind::SelfAttr: {
            // `self._step = torch.compile(self._step)`: a method of the class.
            if (auto method = site.method ? std::nullopt : findMethod({file, site.owner}, site.attr)) {
              compile(*method, trail);
              break;
            }
            auto classes = attributeClasses({file, site.owner}, site.attr);
            if (classes.empty()) {
              // `self.model = model` in `__init__`: what the constructions pass.
              if (auto given = parameterAttributeClasses({file, site.owner}, site.attr)) classes = std::move(*given);
              else wide->compiles_unknown = true;
            }
            for (const Symbol& cls : classes)
              if (!site.method || isTorchModuleWith(cls, "compile")) compileInstance(cls, trail);
            break;
          }
        }
      }
    }
    // Grow along calls, breadth first.
    while (!queue_.empty()) {
      // Plain names, not a structured binding: the lambdas below capture them (clang 14
      // cannot capture structured bindings).
      auto front = std::move(queue_.front());
      queue_.pop_front();
      auto& fn = front.fn;
      auto& trail = front.trail;
      captured_ = front.captured;
      const auto* summary = functionOf(fn);
      if (summary == nullptr) continue;
      if (summary->calls_unknown) wide->compiles_unknown = true;
      std::string owner = fn.name.find('.') == std::string::npos ? std::string{} : fn.name.substr(0, fn.name.find('.'));
      for (const auto& call : summary->calls) {
        auto note = [&](std::string_view callee) {
          return extend(trail, {fn.path.string(), call.at,
                                fmt::format("`{}` is called from compiled `{}` here", callee, fn.name)});
        };
        if (call.kind == analysis::CallRef::Kind::Name) {
          auto target = resolve(fn.path, call.target);
          if (!target || classOf(*target) != nullptr) continue;  // unknown, or a construction
          compile(*target, note(target->name));
        } else if (call.kind == analysis::CallRef::Kind::Instance) {
          // `model(x)` / `model.decode(x)` for a parameter annotated `model: GPT`.
          auto cls = resolve(fn.path, call.target);
          if (!cls || classOf(*cls) == nullptr) {
            if (!isLibraryName(call.target)) wide->compiles_unknown = true;
            continue;
          }
          if (call.attr.empty()) {
            compileInstance(*cls, note(cls->name + ".forward"));
          } else if (auto method = findMethod(*cls, call.attr)) {
            compile(*method, note(method->name));
          }
        } else if (!owner.empty()) {
          Symbol cls{fn.path, owner};
          std::string_view attr = call.attr;
          size_t dot = attr.find('.');
          if (dot == std::string_view::npos || hasAttribute(cls, attr)) {
            if (dot == std::string_view::npos) {
              if (auto method = findMethod(cls, attr)) {
                compile(*method, note(method->name));
                continue;
              }
            }
            for (const Symbol& sub : attributeClasses(cls, attr)) compileInstance(sub, note(sub.name + ".forward"));
            if (dot == std::string_view::npos)
              if (auto given = parameterAttributeClasses(cls, attr))
                for (const Symbol& sub : *given) compileInstance(sub, note(sub.name + ".forward"));
            if (unknownAttribute(cls, attr)) wide->compiles_unknown = true;
            continue;
          }
          // `self.encoder.encode(x)`, `self.encoder.layers[i](x)`: a method or a submodule of
          // the submodule.
          std::string_view head = attr.substr(0, dot), member = attr.substr(dot + 1);
          if (unknownAttribute(cls, head)) wide->compiles_unknown = true;
          for (const Symbol& sub : attributeClasses(cls, head)) {
            if (auto method = findMethod(sub, member)) {
              compile(*method, note(method->name));
              continue;
            }
            for (const Symbol& inner : attributeClasses(sub, member)) compileInstance(inner, note(inner.name + ".forward"));
            if (unknownAttribute(sub, member)) wide->compiles_unknown = true;
          }
        }
      }
    }
    linkEvaluationUses();
    wide->linked = true;
    std::string wide_digest = fmt::format("linked;unknown={};", wide->compiles_unknown);
    for (const auto& [variable, where] : wide->environment) wide_digest += fmt::format("env={}@{};", variable, where.path);
    wide_digest += fmt::format("epoch={}|{}|{};", wide->sets_epoch.path, wide->imports_trainer.path, wide->loops_epochs.path);
    {
      auto base = std::make_shared<ProjectFacts>();
      base->project = wide;
      base->digest = wide_digest;
      base_facts_ = std::move(base);
    }
    std::set<std::string> with_facts;
    for (const auto& [path, roots] : roots_) with_facts.insert(path);
    for (const auto& [path, uses] : uses_) with_facts.insert(path);
    for (const std::string& path : with_facts) {
      auto facts = std::make_shared<ProjectFacts>();
      facts->project = wide;
      facts->digest = wide_digest;
      if (auto it = roots_.find(path); it != roots_.end()) facts->compiled = std::move(it->second);
      for (auto& root : facts->compiled) {
        root.captures_scalars = compiled_[path + "\n" + root.function];
        facts->digest += root.function;
        if (root.captures_scalars) facts->digest += "[captured]";
        for (const auto& n : root.trail)
          facts->digest += fmt::format("|{}:{}:{}:{}", n.path, n.at.start, n.at.end, n.message);
        facts->digest += ";";
      }
      if (auto it = uses_.find(path); it != uses_.end()) facts->uses = std::move(it->second);
      for (const auto& use : facts->uses)
        facts->digest += fmt::format("use={}:{}:{}@{}:{};", use.function, use.called, use.grad_off_or_unknown,
                                     use.where.path, use.where.at.start);
      facts_[path] = std::move(facts);
    }
  }

  // PTL406's project-wide facts: the first file (in path order) of each kind.
  void noteTraining(const fs::path& file, uint8_t training) {
    auto note = [&](analysis::CrossFileNote& slot, uint8_t bit, const char* message) {
      if ((training & bit) && slot.path.empty()) slot = {file.string(), {}, message};
    };
    note(wide_->sets_epoch, kSpellsSetEpoch, "`set_epoch` is called here");
    note(wide_->imports_trainer, kImportsTrainer, "a trainer that sets the sampler's epoch is imported here");
    note(wide_->loops_epochs, kLoopsOverEpochs, "epochs are looped over here");
    if (training & kSetsEvalMode) evaluating_files_.push_back(file.string());
    if (training != 0) training_bits_[file.string()] = training;
  }

  // PTL707 across files: the top-level functions that set evaluation mode, and how the other
  // files of the project use them (found by a raw scan for their names; only the files naming
  // one are parsed). A name more files hold than kMaxScannedUsers is taken as used with grad
  // mode unknown.
  void linkEvaluationUses() {
    struct Defined {
      std::string path, name;
    };
    std::vector<Defined> defined;
    std::vector<std::string> names;
    for (const std::string& path : evaluating_files_) {
      auto text = index_.read(path);
      if (!text) continue;
      auto parsed = analysis::ParsedFile::parse(*text);
      analysis::SemanticModel model(parsed);
      for (std::string& name : rules::evaluationModeFunctions(model)) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        defined.push_back({path, std::move(name)});
      }
    }
    if (defined.empty()) return;
    auto useFor = [&](const std::string& path, const std::string& name) -> analysis::ExternalUse& {
      auto& uses = uses_[path];
      for (auto& u : uses)
        if (u.function == name) return u;
      uses.push_back({name, false, false, {}});
      return uses.back();
    };
    // The files naming each function (one raw read of each project file for all names).
    std::map<std::string, std::vector<std::string>> naming;
    std::string raw;
    struct stat st {};
    for (const std::string& file : files_) {
      std::optional<std::string> overlaid = index_.overlay_ ? index_.overlay_(file) : std::nullopt;
      if (!overlaid && !readRaw(file, index_.max_bytes_, raw, st)) continue;
      std::string_view text = overlaid ? std::string_view(*overlaid) : std::string_view(raw);
      for (const std::string& name : names)
        if (analysis::forEachWholeWord(text, name, [](size_t) { return true; })) naming[name].push_back(file);
    }
    evaluation_names_ = names;
    std::set<std::string> callers;
    for (const auto& [name, files] : naming) {
      if (files.size() > kMaxScannedUsers) {
        for (const Defined& d : defined)
          if (d.name == name) {
            auto& use = useFor(d.path, name);
            use.called = use.grad_off_or_unknown = true;  // too many users to read: unknown
          }
        continue;
      }
      callers.insert(files.begin(), files.end());
    }
    for (const std::string& file : callers) {
      training_files_.insert(file);
      auto text = index_.read(file);
      if (!text) continue;
      auto parsed = analysis::ParsedFile::parse(*text);
      analysis::SemanticModel model(parsed);
      for (const auto& use : rules::importedUses(model, names)) {
        auto target = resolveQualified(file, use.qualified, 0);
        if (!target || target->path.string() == file) continue;
        bool evaluating = std::any_of(defined.begin(), defined.end(), [&](const Defined& d) {
          return d.path == target->path.string() && d.name == target->name;
        });
        if (!evaluating) continue;
        auto& entry = useFor(target->path.string(), target->name);
        bool first_silencer = use.use.grad_off_or_unknown && !entry.grad_off_or_unknown;
        if (entry.where.path.empty() || first_silencer)
          entry.where = {file, analysis::sourcePosOf(parsed, use.start, use.end),
                         use.use.grad_off_or_unknown ? "used here with grad mode off, or passed on as a value"
                                                     : "called here with grad mode on"};
        entry.called = entry.called || use.use.called;
        entry.grad_off_or_unknown = entry.grad_off_or_unknown || use.use.grad_off_or_unknown;
      }
    }
  }

  ProjectIndex& index_;
  fs::path root_, scan_;
  bool recursive_;
  // Folders scanned without recursion besides `scan_`: a marker-less package's parent (the
  // scripts beside it import it), the folders between the file and the working folder.
  std::vector<fs::path> beside_;
  std::atomic<bool> done_{false};
  std::vector<fs::path> import_roots_;
  std::once_flag linked_;
  std::unordered_map<std::string, std::shared_ptr<const ModuleSummary>> modules_;
  std::unordered_map<std::string, std::optional<fs::path>> module_files_;
  // Compiled functions (path, name) -> reached only from compiles that capture scalar outputs.
  std::unordered_map<std::string, bool> compiled_;
  bool captured_ = false;  // the compile being followed captures scalar outputs
  std::map<std::string, std::vector<analysis::ExternalCompileRoot>> roots_;
  std::map<std::string, std::vector<analysis::ExternalUse>> uses_;  // by the defining file
  std::vector<std::string> evaluating_files_;  // files that may set evaluation mode (`.eval()`)
  std::vector<std::string> evaluation_names_;  // the functions among them that do
  std::unordered_set<std::string> training_files_;  // callers of those functions, read for the facts
  std::unordered_map<std::string, uint8_t> training_bits_;  // the files with training words, and which
  struct Reached {
    Symbol fn;
    std::vector<CrossFileNote> trail;
    bool captured = false;
  };
  std::deque<Reached> queue_;
  std::unordered_map<std::string, std::shared_ptr<const ProjectFacts>> facts_;
  std::shared_ptr<analysis::ProjectWideFacts> wide_;  // filled while linking
  std::vector<std::string> files_;                      // the project's source files
  bool definitions_ = false;  // resolveDefinition in progress
  std::unordered_map<std::string, fs::path> local_roots_;  // folder -> localRoot
  std::unordered_map<std::string, std::optional<std::vector<Symbol>>> registries_;
  std::unordered_map<std::string, std::optional<std::vector<Symbol>>> arguments_;
  std::unordered_map<std::string, std::optional<std::vector<fs::path>>> naming_;  // by word
  std::unordered_map<std::string, std::vector<Symbol>> bases_;                     // by class
  std::unordered_map<std::string, std::optional<Symbol>> methods_;                 // by class and method
  // What classesOf gave, by symbol; nullopt while one is being resolved (a factory reached
  // again through its own returns is one the index cannot follow).
  std::unordered_map<std::string, std::optional<std::vector<Symbol>>> classes_;
  // What a file no compile site reaches is told (the project-wide facts only).
  std::shared_ptr<const ProjectFacts> base_facts_ = [] {
    auto facts = std::make_shared<ProjectFacts>();
    facts->project = std::make_shared<analysis::ProjectWideFacts>();  // not linked
    facts->digest = "unlinked;";
    return facts;
  }();
};

bool ProjectIndex::inOverlay(const fs::path& file) const { return overlay_ && overlay_(file).has_value(); }

std::optional<std::string> ProjectIndex::read(const fs::path& file) const {
  if (overlay_)
    if (auto text = overlay_(file)) return text;
  return reader_(file);
}

std::vector<fs::path> ProjectIndex::projectsAffectedBy(const fs::path& file, std::optional<std::string_view> text) {
  fs::path absolute = file.lexically_normal();
  std::vector<std::pair<fs::path, std::shared_ptr<Project>>> candidates;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [folder, project] : projects_)
      if (project->contains(absolute)) candidates.emplace_back(folder, project);
  }
  std::vector<fs::path> out;
  if (candidates.empty()) return out;  // no linked project holds the file: the text is not scanned
  for (const auto& [folder, project] : candidates)
    if (project->mayDependOn(absolute, text)) out.push_back(folder);
  return out;
}

std::vector<fs::path> ProjectIndex::relink(const fs::path& folder) {
  std::shared_ptr<Project> fresh, old;
  {
    std::lock_guard lock(mutex_);
    places_.clear();  // a marker file may have come or gone since
    markers_.clear();
    auto it = projects_.find(folder.string());
    if (it == projects_.end()) return {};
    old = it->second;
    fresh = std::make_shared<Project>(*this, old->root(), folder, old->recursive(), old->beside());
  }
  fresh->ensureLinked();  // no lock held: reads and parses
  {
    std::lock_guard lock(mutex_);
    projects_[folder.string()] = fresh;
  }
  old->ensureLinked();  // waits for a link still running elsewhere
  return old->changedFacts(*fresh);
}

std::vector<fs::path> ProjectIndex::linkedProjects() const {
  std::vector<fs::path> out;
  std::lock_guard lock(mutex_);
  for (const auto& [folder, project] : projects_) out.emplace_back(folder);
  return out;
}

bool ProjectIndex::racy(const ScanEntry& entry) const {
  // The mtime alone, as git: a write sets mtime and ctime alike, and a time put back (`touch -r`,
  // `cp -p`) changes the ctime, which the entry must match exactly.
  return entry.mtime_ns + kTimestampTickNs >= scan_cache_written_ns_;
}

ProjectIndex::ScanVerdict ProjectIndex::scanFile(const fs::path& file, std::string& raw) {
  auto verdictOf = [](std::string_view text) {
    ScanVerdict verdict;
    verdict.may_compile = analysis::mayHoldCompileSite(text);
    for (std::string_view variable : analysis::indexedEnvironmentVariables())
      verdict.may_set_environment = verdict.may_set_environment || mayWriteVariable(text, variable);
    verdict.training = trainingWordsOf(text);
    return verdict;
  };
  if (overlay_)
    if (auto text = overlay_(file)) return verdictOf(*text);
  std::string key = file.string();
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return {};
  awaitScanCache();
  {
    std::lock_guard lock(mutex_);
    scan_seen_.insert(key);
    auto it = scan_cache_.find(key);
    if (it != scan_cache_.end() && it->second.size == static_cast<uint64_t>(st.st_size) &&
        it->second.inode == static_cast<uint64_t>(st.st_ino) && it->second.mtime_ns == nanoseconds(st.st_mtim) &&
        it->second.ctime_ns == nanoseconds(st.st_ctim)) {
      if (!racy(it->second)) return {it->second.may_compile, it->second.may_set_environment, it->second.training};
      // Racy, and read again below: the cache is written anew, so that once the file is older
      // than a tick its entry is trusted (else a fresh checkout would be read on every run).
      scan_cache_dirty_ = true;
    }
  }
  if (static_cast<size_t>(st.st_size) > max_bytes_ && S_ISREG(st.st_mode)) {
    ScanVerdict verdict;
    verdict.too_large = true;
    return verdict;
  }
  if (!readRaw(file, max_bytes_, raw, st)) return {};
  ScanVerdict verdict = verdictOf(raw);
  std::lock_guard lock(mutex_);
  ScanEntry& entry = scan_cache_[key];
  // A file edited without changing its verdict (the common case) is not worth rewriting the
  // cache for: the next run reads it again, which costs what reading it for its hash costs.
  bool same_verdict = entry.size != 0 && entry.may_compile == verdict.may_compile &&
                      entry.may_set_environment == verdict.may_set_environment && entry.training == verdict.training;
  entry = {static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino), nanoseconds(st.st_mtim),
           nanoseconds(st.st_ctim), verdict.may_compile, verdict.may_set_environment, verdict.training};
  if (!same_verdict) scan_cache_dirty_ = true;
  return verdict;
}

void ProjectIndex::useScanCache(fs::path folder) {
  if (!scan_cache_dir_.empty() || folder.empty()) return;  // one cache folder per index
  scan_cache_dir_ = std::move(folder);
  try {
    scan_cache_loader_ = std::thread([this] { awaitScanCache(); });
  } catch (const std::system_error&) {
    awaitScanCache();  // no thread to be had: read it now
  }
}

void ProjectIndex::awaitScanCache() {
  if (!scan_cache_dir_.empty()) std::call_once(scan_cache_loaded_, [this] { loadScanCache(); });
}

void ProjectIndex::loadScanCache() {
  // As the results cache: never through a symlink, never a FIFO or device, never unbounded.
  int fd = ::open((scan_cache_dir_ / "project-scan.json").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  constexpr off_t kMaxScanCacheBytes = 256 << 20;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxScanCacheBytes) {
    ::close(fd);
    return;
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    return;
  }
  // Streamed, member by member (workspace/json_sections.h): memory follows the entries kept,
  // never a DOM of the file. A foreign build stops the read at its first field.
  std::unordered_map<std::string, ScanEntry> entries;
  std::unordered_map<uint64_t, std::shared_ptr<const ModuleSummary>> summaries;
  bool build_ok = false;
  JsonSections reader;
  reader.sections = {"files", "summaries"};
  reader.on_scalar = [&](const std::string& key, const nlohmann::json& value) {
    if (key == "build") return build_ok = value.is_string() && value.get<std::string>() == buildIdentity();
    return true;
  };
  reader.on_member = [&](const std::string& section, const std::string& name, nlohmann::json e) {
    if (!build_ok) return false;  // "build" comes first in what saveScanCache writes
    try {
      if (section == "files")
        entries[name] = {e.at(0).get<uint64_t>(), e.at(1).get<uint64_t>(), e.at(2).get<int64_t>(),
                         e.at(5).get<int64_t>(), e.at(3).get<bool>(),    e.at(4).get<bool>(),
                         e.at(6).get<uint8_t>()};
      else
        summaries[std::stoull(name, nullptr, 16)] = std::make_shared<const ModuleSummary>(e.get<ModuleSummary>());
      return true;
    } catch (const std::exception&) {
      return false;  // a corrupt or foreign file is ignored, never trusted
    }
  };
  bool complete = readJsonSections(file, reader);
  std::fclose(file);
  if (!complete || !build_ok) return;
  std::lock_guard lock(mutex_);
  scan_cache_written_ns_ = nanoseconds(st.st_mtim);
  scan_cache_ = std::move(entries);
  stored_summaries_ = std::move(summaries);
}

bool ProjectIndex::saveScanCache() {
  awaitScanCache();
  nlohmann::json files = nlohmann::json::object();
  nlohmann::json summaries = nlohmann::json::object();
  {
    std::lock_guard lock(mutex_);
    if (scan_cache_dir_.empty()) return true;
    // Entries of files gone since (not looked at in this run, and no longer there) are dropped.
    std::unordered_set<std::string> gone;
    for (const auto& [path, e] : scan_cache_) {
      struct stat st {};
      if (!scan_seen_.count(path) && ::lstat(path.c_str(), &st) != 0 && errno == ENOENT) gone.insert(path);
    }
    auto keep = [&](const std::string& path) { return !gone.count(path); };
    // Unchanged when no file was scanned anew, no summary built, every stored summary was used
    // again and no entry dropped: a warm run of an unchanged project writes nothing.
    if (!scan_cache_dirty_ && gone.empty() && summaries_.size() == stored_summaries_.size()) return true;
    for (const auto& [path, e] : scan_cache_)
      if (keep(path))
        files[path] = {e.size, e.inode, e.mtime_ns, e.may_compile, e.may_set_environment, e.ctime_ns, e.training};
    for (const auto& [hash, summary] : summaries_) summaries[fmt::format("{:016x}", hash)] = *summary;
  }
  std::error_code ec;
  fs::create_directories(scan_cache_dir_, ec);
  std::string bytes = nlohmann::json{{"build", buildIdentity()}, {"files", files}, {"summaries", summaries}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string tmpl = (scan_cache_dir_ / "project-scan.json.XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return false;
  bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmpl.c_str(), (scan_cache_dir_ / "project-scan.json").c_str()) != 0) {
    ::unlink(tmpl.c_str());
    return false;
  }
  return true;
}

ProjectIndex::ProjectIndex(Reader reader, size_t max_bytes) : reader_(std::move(reader)), max_bytes_(max_bytes) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  const char* home = std::getenv("HOME");
  if (!ec && cwd.is_absolute() && cwd.has_relative_path() && !(home != nullptr && fs::path(home) == cwd))
    working_folder_ = cwd.lexically_normal();
}
ProjectIndex::~ProjectIndex() {
  if (scan_cache_loader_.joinable()) scan_cache_loader_.join();
}

fs::path ProjectIndex::projectRoot(const fs::path& file) {
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (hasMarker(dir)) return dir;
    if (dir == dir.root_path()) break;
  }
  fs::path dir = file.parent_path();
  while (isFile(dir / "__init__.py") && dir != dir.root_path()) dir = dir.parent_path();
  return dir;
}

std::shared_ptr<const ProjectFacts> ProjectIndex::factsFor(const fs::path& file) {
  fs::path absolute = file.lexically_normal();
  // Where a folder's project is, found once per folder (a check asks for every file, and the
  // answer takes a few stat calls per level up to `/`).
  ProjectPlace place;
  std::string folder = absolute.parent_path().string();
  bool known = false;
  {
    std::lock_guard lock(mutex_);
    if (auto it = places_.find(folder); it != places_.end()) {
      place = it->second;
      known = true;
    }
  }
  if (!known) {
    place = placeOf(absolute);
    std::lock_guard lock(mutex_);
    places_.emplace(folder, place);
  }
  const fs::path& root = place.root;
  const fs::path& scan = place.scan;
  bool recursive = place.recursive;
  std::shared_ptr<Project> project;
  {
    std::lock_guard lock(mutex_);
    auto& slot = projects_[scan.string()];
    if (!slot) slot = std::make_shared<Project>(*this, root, scan, recursive, place.beside);
    project = slot;
  }
  return project->factsFor(absolute);
}

bool ProjectIndex::hasMarkerCached(const fs::path& dir) {
  std::string key = dir.string();
  {
    std::lock_guard lock(mutex_);
    if (auto it = markers_.find(key); it != markers_.end()) return it->second;
  }
  bool found = hasMarker(dir);
  std::lock_guard lock(mutex_);
  markers_.emplace(std::move(key), found);
  return found;
}

ProjectIndex::ProjectPlace ProjectIndex::placeOf(const fs::path& absolute) {
  fs::path root;
  for (fs::path dir = absolute.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (hasMarkerCached(dir)) {
      root = dir;
      break;
    }
    if (dir == dir.root_path()) break;
  }
  if (!root.empty()) return {root, root, true, {}};
  // No project marker: the outermost package around the file (scanned with the scripts of the
  // folder holding it, which import it as `python train.py` beside it does), else the file's
  // own folder. When that lies under the working folder (an unpacked archive, a notebook upload
  // checked from its folder), the folders up to it are scanned too (a script there imports
  // `models.net` from a subfolder without `__init__.py`), and the working folder is the import
  // root, as `python -m` makes it.
  ProjectPlace place;
  fs::path top = absolute.parent_path();
  if (isFile(top / "__init__.py")) {
    while (isFile(top.parent_path() / "__init__.py") && top.parent_path() != top) top = top.parent_path();
    place = {top.parent_path(), top, true, {top.parent_path()}};
  } else {
    place = {top, top, false, {}};
  }
  auto rel = working_folder_.empty() ? fs::path{} : place.root.lexically_relative(working_folder_);
  if (!rel.empty() && *rel.begin() != "..") {
    fs::path dir = place.root;
    for (int depth = 0; depth < 256; ++depth, dir = dir.parent_path()) {
      if (dir != place.scan && std::find(place.beside.begin(), place.beside.end(), dir) == place.beside.end())
        place.beside.push_back(dir);
      if (dir == working_folder_ || !dir.has_relative_path()) break;
    }
    place.root = working_folder_;
  }
  return place;
}

std::shared_ptr<const ModuleSummary> ProjectIndex::summaryOf(const std::string& text) {
  uint64_t hash = XXH3_64bits(text.data(), text.size());
  awaitScanCache();
  {
    std::lock_guard lock(mutex_);
    if (auto it = summaries_.find(hash); it != summaries_.end()) return it->second;
    // Only the summaries used in this run are written back (see saveScanCache).
    if (auto it = stored_summaries_.find(hash); it != stored_summaries_.end())
      return summaries_.emplace(hash, it->second).first->second;
  }
  uint64_t start = analysis::timings::enabled() ? analysis::timings::nowNs() : 0;
  auto parsed = analysis::ParsedFile::parse(text);
  analysis::SemanticModel model(parsed);
  auto summary = std::make_shared<const ModuleSummary>(analysis::summarizeModule(model));
  if (analysis::timings::enabled())
    analysis::timings::add("project summary (with parse)", text.size(), analysis::timings::nowNs() - start);
  std::lock_guard lock(mutex_);
  ++built_;
  scan_cache_dirty_ = true;
  return summaries_.try_emplace(hash, summary).first->second;
}

void ProjectIndex::problem(Problem problem) {
  constexpr size_t kMaxProblemsTold = 20;  // then counted
  std::lock_guard lock(mutex_);
  if (std::find(problems_.begin(), problems_.end(), problem) != problems_.end()) return;
  if (problems_.size() < kMaxProblemsTold || problem.limit) problems_.push_back(std::move(problem));
  else ++problems_untold_;
}

std::vector<ProjectIndex::Problem> ProjectIndex::problems() const {
  std::lock_guard lock(mutex_);
  auto out = problems_;
  if (problems_untold_ > 0)
    out.push_back({fmt::format("project index: {} more entries could not be read", problems_untold_), false});
  return out;
}

size_t ProjectIndex::summariesBuilt() const {
  std::lock_guard lock(mutex_);
  return built_;
}

}  // namespace ptlint::workspace
