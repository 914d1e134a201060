// How names resolve across the modules of one project (project_link.h): modules from their
// dotted names, re-exports, base classes, the classes factories, registries and constructor
// arguments give, and the attributes `__init__` binds.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/text_search.h"
#include "workspace/project_link.h"

namespace ptlint::workspace {

std::vector<std::string> splitDotted(std::string_view dotted) {
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

const ModuleSummary* ProjectIndex::Project::load(const fs::path& path) {
  auto [it, inserted] = modules_.try_emplace(path.string());
  if (inserted) {
    if (auto text = index_.read(path)) it->second = index_.summaryOf(*text);
  }
  return it->second.get();
}

std::optional<fs::path> ProjectIndex::Project::moduleFile(const fs::path& base, const std::vector<std::string>& parts,
                                                          size_t count) {
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

auto ProjectIndex::Project::resolve(const fs::path& from, const NameRef& ref, int depth) -> std::optional<Symbol> {
  if (ref.kind == NameRef::Kind::Local) return Symbol{from, ref.name};
  return resolveQualified(from, ref.name, depth);
}

auto ProjectIndex::Project::resolveDefinition(const fs::path& from, const NameRef& ref) -> std::optional<Symbol> {
  definitions_ = true;
  auto out = resolve(from, ref);
  definitions_ = false;
  return out;
}

std::vector<fs::path> ProjectIndex::Project::importBases(const fs::path& from, std::string_view qualified,
                                                        std::string_view& rest) {
  rest = qualified;
  if (qualified.front() == '.') {
    size_t dots = qualified.find_first_not_of('.');
    if (dots == std::string_view::npos) return {};
    fs::path dir = from.parent_path();
    for (size_t i = 1; i < dots; ++i) dir = dir.parent_path();
    rest = qualified.substr(dots);
    return {dir};
  }
  // As `python train.py` sees it: the script's own folder first (`sys.path[0]`), or for a
  // module of a package the folder holding the outermost package; then the project's roots.
  std::vector<fs::path> bases{localRoot(from)};
  for (const fs::path& root : import_roots_)
    if (root != bases.front()) bases.push_back(root);
  return bases;
}

auto ProjectIndex::Project::resolveQualified(const fs::path& from, std::string_view qualified,
                                             int depth) -> std::optional<Symbol> {
  if (depth > kMaxDepth || qualified.empty()) return std::nullopt;
  std::string_view rest;
  std::vector<fs::path> bases = importBases(from, qualified, rest);
  std::vector<std::string> parts = splitDotted(rest);
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

std::optional<fs::path> ProjectIndex::Project::importedFile(const fs::path& from, std::string_view qualified) {
  if (qualified.empty()) return std::nullopt;
  std::string_view rest;
  std::vector<fs::path> bases = importBases(from, qualified, rest);
  std::vector<std::string> parts = splitDotted(rest);
  for (const fs::path& base : bases)
    for (size_t n = parts.size(); n >= 1; --n)  // `from settings import configure`: settings.py
      if (auto file = moduleFile(base, parts, n)) return file;
  return std::nullopt;
}

const fs::path& ProjectIndex::Project::localRoot(const fs::path& file) {
  std::string key = file.parent_path().string();
  if (auto it = local_roots_.find(key); it != local_roots_.end()) return it->second;
  fs::path dir = file.parent_path();
  for (int depth = 0; depth < 64 && dir.has_relative_path() && index_.isPackageCached(dir); ++depth) dir = dir.parent_path();
  return local_roots_.emplace(std::move(key), std::move(dir)).first->second;
}

auto ProjectIndex::Project::symbolIn(const fs::path& file, const std::vector<std::string>& names,
                                     int depth) -> std::optional<Symbol> {
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

const analysis::ClassSummary* ProjectIndex::Project::classOf(const Symbol& s) {
  const ModuleSummary* summary = load(s.path);
  return summary ? summary->findClass(s.name) : nullptr;
}

const analysis::FunctionSummary* ProjectIndex::Project::functionOf(const Symbol& s) {
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

auto ProjectIndex::Project::basesOf(const Symbol& cls) -> const std::vector<Symbol>& {
  std::string key = cls.path.string() + "\n" + cls.name;
  if (auto it = bases_.find(key); it != bases_.end()) return it->second;
  std::vector<Symbol> out;
  if (const auto* summary = classOf(cls))
    for (const NameRef& base : summary->bases)
      if (auto b = resolve(cls.path, base); b && b->name.find('.') == std::string::npos) out.push_back(std::move(*b));
  return bases_.emplace(std::move(key), std::move(out)).first->second;
}

auto ProjectIndex::Project::findMethod(const Symbol& cls, std::string_view method) -> std::optional<Symbol> {
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

auto ProjectIndex::Project::classesOf(const Symbol& s, int depth) -> std::optional<std::vector<Symbol>> {
  if (depth > kMaxDepth) return std::nullopt;
  if (classOf(s) != nullptr) return std::vector<Symbol>{s};
  // Memoised: factories returning factories (a chain, a diamond, a cycle) are followed once.
  std::string key = s.path.string() + "\n" + s.name;
  if (auto it = classes_.find(key); it != classes_.end()) return it->second;
  classes_[key] = std::nullopt;  // reached again while being resolved: not followed
  auto out = factoryClasses(s, depth);
  return classes_[key] = std::move(out);
}

auto ProjectIndex::Project::factoryClasses(const Symbol& s, int depth) -> std::optional<std::vector<Symbol>> {
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

std::optional<std::vector<fs::path>> ProjectIndex::Project::filesNaming(std::string_view word) {
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

auto ProjectIndex::Project::registryOf(const Symbol& s, const analysis::FunctionSummary& fn) -> std::optional<Symbol> {
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

auto ProjectIndex::Project::registeredClasses(const Symbol& registry, int depth) -> std::optional<std::vector<Symbol>> {
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

auto ProjectIndex::Project::constructorArgument(const Symbol& cls, const std::string& name, int index,
                                                int depth) -> std::optional<std::vector<Symbol>> {
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

auto ProjectIndex::Project::parameterAttributeClasses(const Symbol& cls,
                                                      std::string_view attr) -> std::optional<std::vector<Symbol>> {
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

auto ProjectIndex::Project::attributeClasses(const Symbol& cls, std::string_view attr) -> std::vector<Symbol> {
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

bool ProjectIndex::Project::hasAttribute(const Symbol& cls, std::string_view attr) {
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

bool ProjectIndex::Project::unknownAttribute(const Symbol& cls, std::string_view attr) {
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

bool ProjectIndex::Project::isTorchModuleWith(const Symbol& cls, std::string_view method) {
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

bool ProjectIndex::Project::isLibraryName(const NameRef& ref) {
  if (ref.kind == NameRef::Kind::Local || ref.name.empty() || ref.name.front() == '.') return false;
  std::string top = ref.name.substr(0, ref.name.find('.'));
  if (top == "torch") return true;
  for (const fs::path& base : import_roots_)
    if (isFile(base / (top + ".py")) || fs::is_directory(base / top)) return false;
  return true;
}

}  // namespace ptlint::workspace
