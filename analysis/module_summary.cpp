#include "analysis/module_summary.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/compiled_regions.h"
#include "analysis/environment_writes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

const ClassSummary* ModuleSummary::findClass(std::string_view name) const {
  for (const auto& c : classes)
    if (c.name == name) return &c;
  return nullptr;
}

const FunctionSummary* ModuleSummary::findFunction(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const std::string* ModuleSummary::importOf(std::string_view name) const {
  const std::string* found = nullptr;
  for (const auto& [bound, qualified] : imports)
    if (bound == name) found = &qualified;  // the last one, as Python rebinds
  return found;
}

const CrossFileNote* ProjectWideFacts::setsEnvironment(std::string_view variable) const {
  for (const auto& [name, where] : environment)
    if (name == variable) return &where;
  return nullptr;
}

SourcePos sourcePosOf(const ParsedFile& file, uint32_t start, uint32_t end) {
  SourcePos p;
  p.start = start;
  p.end = end;
  const LineIndex& lines = file.lines();
  p.line = lines.lineOf(p.start);
  uint32_t line_start = lines.lineStart(p.line);
  std::string_view prefix = file.text().substr(line_start, p.start - line_start);
  p.column_bytes = static_cast<uint32_t>(prefix.size());
  p.column = countCodePoints(prefix) + 1;
  uint32_t utf16 = 0;
  for (unsigned char c : prefix) {
    if ((c & 0xC0) == 0x80) continue;
    utf16 += c >= 0xF0 ? 2 : 1;
  }
  p.column_utf16 = utf16;
  return p;
}

const ExternalUse* ProjectFacts::useOf(std::string_view function) const {
  for (const auto& use : uses)
    if (use.function == function) return &use;
  return nullptr;
}

const std::vector<std::string_view>& indexedEnvironmentVariables() {
  static const std::vector<std::string_view> kVariables{"CUBLAS_WORKSPACE_CONFIG"};
  return kVariables;
}

bool mayHoldCompileSite(std::string_view text) {
  // Every site is a call of something spelled `compile` (`torch.compile(m)`, `m.compile()`,
  // `tc = compile` aside) or a decorator `@torch.compile`. Regular expressions (`re.compile(`)
  // and definitions (`def compile(`) are not sites.
  return forEachWholeWord(text, "compile", [&](size_t at) {
    size_t end = at + 7;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    bool called = end < text.size() && text[end] == '(';
    size_t back = at;
    while (back > 0 && (isIdentifierByte(text[back - 1]) || text[back - 1] == '.')) --back;
    std::string_view chain = text.substr(back, at - back);
    if (chain == "re." || chain == "regex.") return false;
    size_t before = back;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
    if (before > 0 && text[before - 1] == '@') return true;  // a decorator
    if (!called) return false;
    return !(before >= 3 && text.substr(before - 3, 3) == "def" && chain.empty());
  });
}

namespace {

constexpr int kMaxDepth = 8;

bool returnsSelf(std::string_view method) {
  static constexpr std::string_view kSelfReturning[] = {"to",   "cuda",  "cpu",    "eval",     "train",
                                                        "half", "float", "double", "bfloat16", "requires_grad_"};
  return std::find(std::begin(kSelfReturning), std::end(kSelfReturning), method) != std::end(kSelfReturning);
}

TSNode firstArgument(TSNode call, std::string_view keyword, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  if (!isKind(args, kind::argument_list)) return {};
  TSNode positional{}, by_keyword{};
  forEachNamedChild(args, [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind == kind::keyword_argument) {
      if (!keyword.empty() && textOf(fieldOf(arg, "name"), source) == keyword) by_keyword = fieldOf(arg, "value");
    } else if (kind != kind::comment && kind != kind::list_splat && kind != kind::dictionary_splat && ts_node_is_null(positional)) {
      positional = arg;
    }
  });
  return ts_node_is_null(positional) ? by_keyword : positional;
}

bool hasTrueKeyword(TSNode call, std::string_view keyword, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  bool found = false;
  if (!isKind(args, kind::argument_list)) return false;
  forEachNamedChild(args, [&](TSNode arg) {
    if (isKind(arg, kind::keyword_argument) && textOf(fieldOf(arg, "name"), source) == keyword &&
        isKind(unparenthesize(fieldOf(arg, "value")), kind::true_))
      found = true;
  });
  return found;
}

class Summarizer {
 public:
  explicit Summarizer(const SemanticModel& model) : model_(model), source_(model.file().text()) {}

  ModuleSummary run() {
    // Each top-level name once, in order; the set keeps this linear in the number of bindings.
    std::unordered_set<std::string_view> defined;
    for (const auto& b : model_.bindings()) {
      if (b->kind == BindingKind::Import) out_.imports.emplace_back(b->name, b->qualified_name);
      if (b->scope == &model_.moduleScope() && b->kind != BindingKind::Import && defined.insert(b->name).second)
        out_.definitions.push_back(b->name);
    }
    TSNode root = model_.file().root();
    // Top-level functions and classes first, so that calls can name them.
    forEachNamedChild(root, [&](TSNode stmt) {
      TSNode def = isKind(stmt, kind::decorated_definition) ? fieldOf(stmt, "definition") : stmt;
      if (isKind(def, kind::function_definition)) {
        out_.functions.push_back(functionHeader(def));
        defs_.push_back({def, {}, out_.functions.size() - 1, SIZE_MAX});
      } else if (isKind(def, kind::class_definition)) {
        ClassSummary cls;
        cls.name = std::string(textOf(fieldOf(def, "name"), source_));
        TSNode supers = fieldOf(def, "superclasses");
        if (isKind(supers, kind::argument_list))
          forEachNamedChild(supers, [&](TSNode base) {
            if (auto ref = nameRef(base)) cls.bases.push_back(*ref);
          });
        if (isKind(stmt, kind::decorated_definition))
          forEachNamedChild(stmt, [&](TSNode child) {
            if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
            TSNode expr = unparenthesize(ts_node_named_child(child, 0));
            TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldOf(expr, "function")) : expr;
            if (auto ref = nameRef(callee)) cls.decorators.push_back(std::move(*ref));
          });
        out_.classes.push_back(std::move(cls));
        size_t ci = out_.classes.size() - 1;
        forEachNamedChild(fieldOf(def, "body"), [&](TSNode member) {
          TSNode mdef = isKind(member, kind::decorated_definition) ? fieldOf(member, "definition") : member;
          if (!isKind(mdef, kind::function_definition)) return;
          out_.classes[ci].methods.push_back(functionHeader(mdef));
          defs_.push_back({mdef, def, ci, out_.classes[ci].methods.size() - 1});
        });
      }
    });
    for (size_t i = 0; i < defs_.size(); ++i) index_by_def_[defs_[i].def.id] = i;
    walk();
    // The indexed variables as the rules read them in one file (a dict of defaults applied over
    // its items, `env["X"] = v` for a child process, ...), not only the `os.environ` forms above.
    for (std::string_view variable : indexedEnvironmentVariables())
      if (std::find(out_.environment.begin(), out_.environment.end(), variable) == out_.environment.end() &&
          source_.find(variable) != std::string_view::npos && setsEnvironmentVariable(model_.file(), variable))
        out_.environment.emplace_back(variable);
    return std::move(out_);
  }

 private:
  struct Def {
    TSNode def;
    TSNode cls;          // null for a top-level function
    size_t index;        // into out_.functions, or into out_.classes
    size_t method;       // into the class's methods; SIZE_MAX for a top-level function
  };

  FunctionSummary& summaryOf(const Def& d) {
    return d.method == SIZE_MAX ? out_.functions[d.index] : out_.classes[d.index].methods[d.method];
  }

  SourcePos pos(TSNode node) const { return sourcePosOf(model_.file(), startOf(node), endOf(node)); }

  FunctionSummary functionHeader(TSNode def) {
    FunctionSummary fn;
    fn.name = std::string(textOf(fieldOf(def, "name"), source_));
    fn.at = pos(fieldOf(def, "name"));
    TSNode holder = ts_node_parent(def);
    if (isKind(holder, kind::decorated_definition))
      forEachNamedChild(holder, [&](TSNode child) {
        if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
        TSNode expr = unparenthesize(ts_node_named_child(child, 0));
        TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldOf(expr, "function")) : expr;
        auto q = model_.qualifiedName(callee);
        if (q ? isDynamoDisable(*q) || (!q->starts_with("torch.") && namesDynamoDisable(*q))
              : namesDynamoDisable(textOf(callee, source_)))
          fn.disabled = true;
        if (auto ref = nameRef(callee)) fn.decorators.push_back(std::move(*ref));
      });
    return fn;
  }

  // A name the module can refer to: an import, a top-level def or class, `Cls.method`.
  std::optional<NameRef> nameRef(TSNode expr) const {
    expr = unparenthesize(expr);
    if (auto q = model_.qualifiedName(expr)) return NameRef{NameRef::Kind::Imported, *q};
    if (isKind(expr, kind::identifier)) {
      const Binding* b = model_.resolve(textOf(expr, source_), expr);
      if (b != nullptr && b->scope == &model_.moduleScope() &&
          (b->kind == BindingKind::Class || b->kind == BindingKind::Function))
        return NameRef{NameRef::Kind::Local, b->name};
      return std::nullopt;
    }
    if (isKind(expr, kind::attribute)) {
      TSNode object = unparenthesize(fieldOf(expr, "object"));
      if (!isKind(object, kind::identifier)) return std::nullopt;
      const Binding* b = model_.resolve(textOf(object, source_), object);
      if (b != nullptr && b->scope == &model_.moduleScope() && b->kind == BindingKind::Class)
        return NameRef{NameRef::Kind::Local, b->name + "." + std::string(textOf(fieldOf(expr, "attribute"), source_))};
    }
    return std::nullopt;
  }

  // Is `expr` the instance parameter (`self`) of the method `d`?
  bool isSelf(TSNode expr, const Def* d) const {
    expr = unparenthesize(expr);
    if (d == nullptr || ts_node_is_null(d->cls) || !isKind(expr, kind::identifier)) return false;
    const Binding* b = model_.resolve(textOf(expr, source_), expr);
    if (b == nullptr || b->kind != BindingKind::Parameter || !sameNode(b->statement, d->def)) return false;
    TSNode params = fieldOf(d->def, "parameters");
    if (ts_node_named_child_count(params) == 0) return false;
    TSNode first = ts_node_named_child(params, 0);
    if (isKind(first, kind::typed_parameter)) first = ts_node_named_child(first, 0);
    return isKind(first, kind::identifier) && sameNode(first, b->name_node);
  }

  // `self.<attr>` -> attr, else empty.
  std::string_view selfAttribute(TSNode expr, const Def* d) const {
    expr = unparenthesize(expr);
    if (!isKind(expr, kind::attribute) || !isSelf(fieldOf(expr, "object"), d)) return {};
    return textOf(fieldOf(expr, "attribute"), source_);
  }

  // Is `ident` a parameter of `__init__` `d` (not `self`)? Its name and position after `self`
  // (-1 when keyword-only).
  bool initParameter(TSNode ident, const Def* d, std::string& name, int& index) const {
    if (d == nullptr || ts_node_is_null(d->cls)) return false;
    if (out_.classes[d->index].methods[d->method].name != "__init__") return false;
    return parameterOf(ident, d, name, index);
  }

  // `ident` is a parameter of the top-level function `d` (`def maybe_compile(m)`).
  bool functionParameter(TSNode ident, const Def* d, std::string& name, int& index) const {
    return d != nullptr && ts_node_is_null(d->cls) && parameterOf(ident, d, name, index);
  }

  // A parameter of `d`: its name and position (after `self` in a method; -1 keyword-only).
  bool parameterOf(TSNode ident, const Def* d, std::string& name, int& index) const {
    ident = unparenthesize(ident);
    if (!isKind(ident, kind::identifier)) return false;
    bool method = !ts_node_is_null(d->cls);
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    if (b == nullptr || b->kind != BindingKind::Parameter || !sameNode(b->statement, d->def)) return false;
    TSNode params = fieldOf(d->def, "parameters");
    int position = method ? -1 : 0;  // `self` is -1
    bool keyword_only = false;
    bool found = false;
    forEachNamedChild(params, [&](TSNode p) {
      if (found) return;
      analysis::NodeKind kind = kindOf(p);
      if (kind == kind::list_splat_pattern || kind == kind::keyword_separator || kind == kind::dictionary_splat_pattern) {
        keyword_only = true;
        return;
      }
      if (kind == kind::positional_separator || kind == kind::comment) return;
      TSNode n = p;
      if (kind == kind::typed_parameter) n = ts_node_named_child(p, 0);
      else if (kind == kind::default_parameter || kind == kind::typed_default_parameter) n = fieldOf(p, "name");
      ++position;
      if (isKind(n, kind::identifier) && sameNode(n, b->name_node)) found = true;
    });
    if (!found || position < 1) return false;
    name = b->name;
    index = keyword_only ? -1 : position - 1;
    return true;
  }

  // The class a parameter is annotated with (`model: GPT`, `model: "GPT"` aside), as the module
  // names it; nullopt for anything else.
  std::optional<NameRef> annotatedClass(TSNode ident) const {
    ident = unparenthesize(ident);
    if (!isKind(ident, kind::identifier)) return std::nullopt;
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    if (b == nullptr || b->kind != BindingKind::Parameter) return std::nullopt;
    TSNode param = ts_node_parent(b->name_node);
    if (!isKind(param, kind::typed_parameter) && !isKind(param, kind::typed_default_parameter)) return std::nullopt;
    TSNode type = fieldOf(param, "type");
    if (isKind(type, kind::type) && ts_node_named_child_count(type) == 1) type = ts_node_named_child(type, 0);
    auto ref = nameRef(type);
    if (!ref || (ref->kind == NameRef::Kind::Imported && ref->name.starts_with("torch."))) return std::nullopt;
    if (ref->kind == NameRef::Kind::Local) {
      const Binding* cls = model_.resolve(ref->name, type);
      if (cls == nullptr || cls->kind != BindingKind::Class) return std::nullopt;
    }
    return ref;
  }

  // `Trainer(model, opt)`, `Trainer(model=UNet())`: the arguments that are module instances.
  void noteConstruction(TSNode call, TSNode callee) {
    auto ref = nameRef(callee);
    if (!ref || (ref->kind == NameRef::Kind::Imported && ref->name.starts_with("torch."))) return;
    if (ref->kind == NameRef::Kind::Local && isKind(callee, kind::identifier)) {
      // A class of the file, or a function (which may compile what it is given).
      const Binding* b = model_.resolve(textOf(callee, source_), callee);
      if (b == nullptr || (b->kind != BindingKind::Class && b->kind != BindingKind::Function)) return;
    }
    TSNode args = fieldOf(call, "arguments");
    if (!isKind(args, kind::argument_list)) return;
    Construction c;
    c.callee = std::move(*ref);
    c.at = pos(call);
    int index = 0;
    bool splat = false;
    forEachNamedChild(args, [&](TSNode arg) {
      analysis::NodeKind kind = kindOf(arg);
      if (kind == kind::comment) return;
      if (kind == kind::list_splat || kind == kind::dictionary_splat) {
        splat = true;
        return;
      }
      Construction::Argument a;
      TSNode value = arg;
      if (kind == kind::keyword_argument) {
        a.keyword = std::string(textOf(fieldOf(arg, "name"), source_));
        value = fieldOf(arg, "value");
      } else {
        a.index = splat ? -1 : index++;
        if (splat) return;
      }
      if (instanceClasses(value, 0, a.classes)) c.arguments.push_back(std::move(a));
      else c.unknown_arguments.emplace_back(a.keyword, a.index);
    });
    if (!c.arguments.empty()) out_.constructions.push_back(std::move(c));
  }

  // `self.a` -> "a", `self.a.b` -> "a.b", `self.a["b"]` -> "a.b", `self.a[i]` -> "a"; else empty.
  std::string selfPath(TSNode expr, const Def* d) const {
    expr = unparenthesize(expr);
    if (isKind(expr, kind::subscript)) {
      std::string base = selfPath(fieldOf(expr, "value"), d);
      if (base.empty() || base.find('.') != std::string::npos) return base;
      if (auto key = stringLiteral(fieldOf(expr, "subscript"), source_)) return base + "." + *key;
      return base;
    }
    if (!isKind(expr, kind::attribute)) return {};
    if (std::string_view attr = selfAttribute(expr, d); !attr.empty()) return std::string(attr);
    TSNode object = unparenthesize(fieldOf(expr, "object"));
    std::string_view inner = selfAttribute(object, d);
    if (inner.empty()) return {};
    return std::string(inner) + "." + std::string(textOf(fieldOf(expr, "attribute"), source_));
  }

  bool isCompileCall(TSNode call) const {
    TSNode callee = unparenthesize(fieldOf(call, "function"));
    auto q = model_.qualifiedName(callee);
    return q && isTorchCompile(*q);
  }

  // The classes whose instance `expr` may evaluate to: `Cls(...)`, `Cls(...).to(device)`, a
  // factory's result (`build(cfg)`, `Cls.from_pretrained(...)`: the linker follows what it
  // returns), a name every binding of which is one of those (wrappers `torch.compile(name)`
  // aside; `model = GPT(cfg)` in one branch and `model = GPT.from_pretrained(...)` in another give
  // both). False when some alternative cannot be named.
  bool instanceClasses(TSNode expr, int depth, std::vector<NameRef>& out) const {
    expr = unparenthesize(expr);
    if (depth > kMaxDepth) return false;
    auto add = [&](NameRef ref) {
      if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(std::move(ref));
      return true;
    };
    if (isKind(expr, kind::call)) {
      TSNode callee = unparenthesize(fieldOf(expr, "function"));
      if (isKind(callee, kind::attribute) && returnsSelf(textOf(fieldOf(callee, "attribute"), source_)))
        return instanceClasses(fieldOf(callee, "object"), depth + 1, out);
      if (isCompileCall(expr)) return false;
      auto ref = nameRef(callee);
      if (!ref) {
        if (auto cls = clsParameterClass(callee)) return add(std::move(*cls));
        return false;
      }
      // A local class, a local factory function or `Cls.method`; an import may be any of them:
      // the linker decides.
      if (ref->kind == NameRef::Kind::Local && isKind(callee, kind::identifier)) {
        const Binding* b = model_.resolve(textOf(callee, source_), callee);
        if (b == nullptr || (b->kind != BindingKind::Class && b->kind != BindingKind::Function)) return false;
      }
      return add(std::move(*ref));
    }
    if (isKind(expr, kind::identifier)) {
      const Binding* b = model_.resolve(textOf(expr, source_), expr);
      if (b == nullptr || b->kind != BindingKind::Assignment) return false;
      // Memoised per name and scope: names bound (several times) from names are followed once
      // each; a name reached again while being followed cannot be named.
      // (Node-based maps: the references stay valid while the recursion adds entries.)
      auto& by_name = name_classes_[static_cast<const void*>(b->scope)];
      if (auto [entry, first] = by_name.try_emplace(b->name, std::nullopt); first) {
        std::vector<NameRef> mine;
        bool any = false, ok = true;
        for (const Binding* c : *model_.bindingsOf(*b->scope, b->name)) {
          if (c->kind != BindingKind::Assignment || ts_node_is_null(c->value)) {
            ok = false;
            break;
          }
          TSNode v = unparenthesize(c->value);
          if (isKind(v, kind::call) && isCompileCall(v)) continue;  // `model = torch.compile(model)`
          if (!instanceClasses(v, depth + 1, mine)) {
            ok = false;
            break;
          }
          any = true;
        }
        if (ok && any) entry->second = std::move(mine);
      }
      const auto& known = by_name.at(b->name);
      if (!known) return false;
      for (const NameRef& ref : *known) add(ref);
      return true;
    }
    return false;
  }

  // `cls` in a classmethod of a top-level class: that class (`model = cls(**kwargs)`).
  std::optional<NameRef> clsParameterClass(TSNode ident) const {
    if (!isKind(ident, kind::identifier)) return std::nullopt;
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    if (b == nullptr || b->kind != BindingKind::Parameter || !isKind(b->statement, kind::function_definition))
      return std::nullopt;
    auto it = index_by_def_.find(b->statement.id);
    if (it == index_by_def_.end() || ts_node_is_null(defs_[it->second].cls)) return std::nullopt;
    const Def& d = defs_[it->second];
    TSNode params = fieldOf(d.def, "parameters");
    if (ts_node_named_child_count(params) == 0 || !sameNode(ts_node_named_child(params, 0), b->name_node))
      return std::nullopt;
    bool classmethod = false;
    TSNode holder = ts_node_parent(d.def);
    if (isKind(holder, kind::decorated_definition))
      forEachNamedChild(holder, [&](TSNode child) {
        if (isKind(child, kind::decorator) && ts_node_named_child_count(child) > 0 &&
            textOf(unparenthesize(ts_node_named_child(child, 0)), source_) == "classmethod")
          classmethod = true;
      });
    if (!classmethod) return std::nullopt;
    return NameRef{NameRef::Kind::Local, out_.classes[d.index].name};
  }

  // `return <value>` in `d`: what a factory returns, for the linker.
  void noteReturn(TSNode statement, const Def& d) {
    FunctionSummary& fn = summaryOf(d);
    if (fn.returns_unknown) return;
    TSNode value = ts_node_named_child_count(statement) > 0 ? unparenthesize(ts_node_named_child(statement, 0)) : TSNode{};
    if (ts_node_is_null(value) || isKind(value, kind::none)) return;
    // `return cls(...)` in a classmethod: an instance of the class.
    if (isKind(value, kind::call) && !ts_node_is_null(d.cls)) {
      TSNode callee = unparenthesize(fieldOf(value, "function"));
      TSNode params = fieldOf(d.def, "parameters");
      if (isKind(callee, kind::identifier) && ts_node_named_child_count(params) > 0) {
        TSNode first = ts_node_named_child(params, 0);
        if (isKind(first, kind::identifier) && textOf(first, source_) == textOf(callee, source_) &&
            textOf(first, source_) == "cls") {
          NameRef self_class{NameRef::Kind::Local, out_.classes[d.index].name};
          if (std::find(fn.returns.begin(), fn.returns.end(), self_class) == fn.returns.end())
            fn.returns.push_back(std::move(self_class));
          return;
        }
      }
    }
    if (std::string dict = moduleDictLookup(value); !dict.empty()) {
      fn.registry_lookup = dict;
      fn.returns.clear();
      fn.returns_unknown = true;
      return;
    }
    if (!instanceClasses(value, 0, fn.returns)) {
      fn.returns.clear();
      fn.returns_unknown = true;
    }
  }

  // The module-level name `expr` subscripts (`REGISTRY[name]`, `REGISTRY.get(name)`), when that
  // name is bound once, to a dict display or `dict()`.
  std::string moduleDictLookup(TSNode expr) const {
    expr = unparenthesize(expr);
    TSNode object{};
    if (isKind(expr, kind::subscript)) {
      object = unparenthesize(fieldOf(expr, "value"));
    } else if (isKind(expr, kind::call)) {
      TSNode callee = unparenthesize(fieldOf(expr, "function"));
      if (isKind(callee, kind::attribute) && textOf(fieldOf(callee, "attribute"), source_) == "get")
        object = unparenthesize(fieldOf(callee, "object"));
    }
    if (ts_node_is_null(object) || !isKind(object, kind::identifier)) return {};
    const Binding* b = model_.resolve(textOf(object, source_), object);
    if (b == nullptr || b->scope != &model_.moduleScope() || b->kind != BindingKind::Assignment) return {};
    const auto* all = model_.bindingsOf(*b->scope, b->name);
    if (all == nullptr || all->size() != 1) return {};
    TSNode v = unparenthesize(b->value);
    bool dict = isKind(v, kind::dictionary) ||
                (isKind(v, kind::call) && textOf(unparenthesize(fieldOf(v, "function")), source_) == "dict");
    return dict ? b->name : std::string{};
  }

  // `REGISTRY[key] = fn` in a function whose parameter `fn` is: the decorator registers into it.
  void noteRegistration(TSNode assignment, const Def& d) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    if (!isKind(left, kind::subscript)) return;
    TSNode right = unparenthesize(fieldOf(assignment, "right"));
    if (!isKind(right, kind::identifier)) return;
    const Binding* p = model_.resolve(textOf(right, source_), right);
    if (p == nullptr || p->kind != BindingKind::Parameter) return;
    TSNode object = unparenthesize(fieldOf(left, "value"));
    if (!isKind(object, kind::identifier)) return;
    const Binding* b = model_.resolve(textOf(object, source_), object);
    if (b == nullptr || b->scope != &model_.moduleScope()) return;
    summaryOf(d).registers = b->name;
  }

  // The element classes of a module container built by `value`, or of a plain module.
  bool containerClasses(TSNode value, std::vector<NameRef>& out, int depth = 0) const {
    value = unparenthesize(value);
    if (depth > kMaxDepth) return false;
    if (isKind(value, kind::none)) return true;  // `self.head = None`: nothing to run
    if (isKind(value, kind::conditional_expression) && ts_node_named_child_count(value) == 3)
      // `DropPath(p) if p > 0 else nn.Identity()`: either.
      return containerClasses(ts_node_named_child(value, 0), out, depth + 1) &&
             containerClasses(ts_node_named_child(value, 2), out, depth + 1);
    if (!isKind(value, kind::call)) return instanceClasses(value, 0, out);  // a name bound to one
    TSNode callee = unparenthesize(fieldOf(value, "function"));
    auto q = model_.qualifiedName(callee);
    std::string_view last;
    if (q && q->starts_with("torch.nn.")) last = std::string_view(*q).substr(q->rfind('.') + 1);
    bool dict_call = isKind(callee, kind::identifier) && textOf(callee, source_) == "dict" &&
                     model_.resolve("dict", callee) == nullptr;
    if (last != "ModuleList" && last != "Sequential" && last != "ModuleDict" && !dict_call)
      return instanceClasses(value, 0, out);
    // Elements: calls inside the arguments (list displays, comprehensions, dict values, splats,
    // `dict(name=...)`). An empty container is filled later (`self.layers.append(Block())`).
    bool ok = true;
    TSNode args = fieldOf(value, "arguments");
    std::vector<TSNode> stack;
    forEachNamedChild(args, [&](TSNode arg) { stack.push_back(arg); });
    while (!stack.empty() && ok) {
      TSNode n = unparenthesize(stack.back());
      stack.pop_back();
      analysis::NodeKind kind = kindOf(n);
      if (kind == kind::comment || kind == kind::string || kind == kind::for_in_clause || kind == kind::if_clause) continue;
      if (kind == kind::keyword_argument) {
        if (dict_call) stack.push_back(fieldOf(n, "value"));
        continue;
      }
      if (kind == kind::list || kind == kind::tuple || kind == kind::list_splat || kind == kind::dictionary ||
          kind == kind::list_comprehension || kind == kind::generator_expression || kind == kind::dictionary_comprehension) {
        forEachNamedChild(n, [&](TSNode c) { stack.push_back(c); });
      } else if (kind == kind::pair) {
        stack.push_back(fieldOf(n, "value"));
      } else if (kind == kind::call || kind == kind::conditional_expression) {
        if (!containerClasses(n, out, depth + 1)) ok = false;
      } else if (kind == kind::identifier) {
        // `nn.ModuleList(blocks)` with `blocks = []` filled by `blocks.append(Block())`, or a
        // name bound to a module.
        if (!localListClasses(n, out, depth + 1) && !instanceClasses(n, 0, out)) ok = false;
      } else {
        ok = false;  // an element the analysis cannot name
      }
    }
    return ok;
  }

  // A local list of modules: `blocks = []` (or a list display) bound once in a function, grown
  // only by `blocks.append(...)` / `blocks.extend([...])` there.
  bool localListClasses(TSNode ident, std::vector<NameRef>& out, int depth) const {
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    if (b == nullptr || b->kind != BindingKind::Assignment || b->scope == &model_.moduleScope()) return false;
    const auto* all = model_.bindingsOf(*b->scope, b->name);
    if (all == nullptr || all->size() != 1) return false;
    TSNode v = unparenthesize(b->value);
    if (!isKind(v, kind::list)) return false;
    bool ok = true;
    forEachNamedChild(v, [&](TSNode element) {
      if (!isKind(element, kind::comment)) ok = ok && containerClasses(element, out, depth + 1);
    });
    std::string_view name = b->name;
    walkTree(
        b->scope->node,
        [&](TSNode node) {
          if (!ok) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::string || kind == kind::comment) return false;
          if (!isKind(node, kind::identifier) || textOf(node, source_) != name || sameNode(node, b->name_node)) return true;
          TSNode parent = ts_node_parent(node);
          if (!isKind(parent, kind::attribute) || !sameNode(fieldOf(parent, "object"), node)) return true;
          std::string_view method = textOf(fieldOf(parent, "attribute"), source_);
          TSNode call = ts_node_parent(parent);
          if (method != "append" || !isKind(call, kind::call)) {
            ok = false;  // `blocks.insert(...)`, `blocks.extend(...)`: not followed
            return true;
          }
          TSNode args = fieldOf(call, "arguments");
          if (ts_node_named_child_count(args) != 1 || !containerClasses(ts_node_named_child(args, 0), out, depth + 1))
            ok = false;
          return true;
        },
        [](TSNode) {});
    return ok;
  }

  // The named elements of `nn.ModuleDict(dict(a=...))` / `nn.ModuleDict({"a": ...})`.
  std::vector<std::pair<std::string, TSNode>> moduleDictElements(TSNode value) const {
    std::vector<std::pair<std::string, TSNode>> out;
    value = unparenthesize(value);
    if (!isKind(value, kind::call)) return out;
    auto q = model_.qualifiedName(unparenthesize(fieldOf(value, "function")));
    if (!q || !q->starts_with("torch.nn.") || !q->ends_with(".ModuleDict")) return out;
    TSNode arg = unparenthesize(firstArgument(value, "modules", source_));
    if (isKind(arg, kind::dictionary)) {
      forEachNamedChild(arg, [&](TSNode pair) {
        if (!isKind(pair, kind::pair)) return;
        if (auto key = stringLiteral(fieldOf(pair, "key"), source_)) out.emplace_back(*key, fieldOf(pair, "value"));
      });
    } else if (isKind(arg, kind::call) && isKind(unparenthesize(fieldOf(arg, "function")), kind::identifier) &&
               textOf(unparenthesize(fieldOf(arg, "function")), source_) == "dict") {
      forEachNamedChild(fieldOf(arg, "arguments"), [&](TSNode kw) {
        if (isKind(kw, kind::keyword_argument)) out.emplace_back(std::string(textOf(fieldOf(kw, "name"), source_)), fieldOf(kw, "value"));
      });
    }
    return out;
  }

  // Adds `classes` to the attribute `key` of the class (poisoned attributes stay unknown).
  void addAttribute(size_t class_index, const std::string& key, std::vector<NameRef> classes) {
    ClassSummary& cls = out_.classes[class_index];
    if (poisoned_[class_index].count(key)) return;
    auto it = std::find_if(cls.attributes.begin(), cls.attributes.end(), [&](const auto& a) { return a.first == key; });
    if (it == cls.attributes.end()) {
      cls.attributes.emplace_back(key, std::move(classes));
    } else {
      for (auto& c : classes)
        if (std::find(it->second.begin(), it->second.end(), c) == it->second.end()) it->second.push_back(c);
    }
  }

  void poisonAttribute(size_t class_index, const std::string& key) {
    ClassSummary& cls = out_.classes[class_index];
    if (!poisoned_[class_index].insert(key).second) return;
    auto it = std::find_if(cls.attributes.begin(), cls.attributes.end(), [&](const auto& a) { return a.first == key; });
    if (it != cls.attributes.end()) cls.attributes.erase(it);
    cls.unknown_attributes.push_back(key);
  }

  // `self.<attr>.append(Block())`, `.extend([...])`, `.add_module("x", Block())` in `__init__`.
  void noteInitContainerGrowth(TSNode call, TSNode callee, const Def& d) {
    if (!isKind(callee, kind::attribute)) return;
    std::string_view method = textOf(fieldOf(callee, "attribute"), source_);
    if (method != "append" && method != "extend" && method != "add_module" && method != "insert") return;
    std::string_view attr = selfAttribute(fieldOf(callee, "object"), &d);
    if (attr.empty()) return;
    std::string key(attr);
    auto& attrs = out_.classes[d.index].attributes;
    if (std::none_of(attrs.begin(), attrs.end(), [&](const auto& a) { return a.first == key; })) return;
    TSNode args = fieldOf(call, "arguments");
    uint32_t count = ts_node_named_child_count(args);
    TSNode element = count > 0 ? ts_node_named_child(args, count - 1) : TSNode{};
    std::vector<NameRef> classes;
    bool ok = !ts_node_is_null(element);
    if (ok && method == "extend") {
      ok = false;
      TSNode list = unparenthesize(element);
      if (isKind(list, kind::list) || isKind(list, kind::list_comprehension) || isKind(list, kind::tuple) ||
          isKind(list, kind::generator_expression)) {
        ok = true;
        forEachNamedChild(list, [&](TSNode c) {
          if (isKind(c, kind::for_in_clause) || isKind(c, kind::if_clause) || isKind(c, kind::comment)) return;
          ok = ok && containerClasses(c, classes);
        });
      }
    } else if (ok) {
      ok = containerClasses(element, classes);
    }
    if (ok) addAttribute(d.index, key, std::move(classes));
    else poisonAttribute(d.index, key);
  }

  void noteInitStore(TSNode assignment, const Def& d) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    std::string_view attr = selfAttribute(left, &d);
    if (attr.empty()) return;
    TSNode right = fieldOf(assignment, "right");
    std::string key(attr);
    TSNode v = unparenthesize(right);
    if (isKind(v, kind::call) && isCompileCall(v)) return;  // `self.m = torch.compile(self.m)`
    std::vector<NameRef> classes;
    if (ts_node_is_null(right) || !containerClasses(right, classes)) {
      poisonAttribute(d.index, key);
      std::string parameter;
      int index = -1;
      if (initParameter(right, &d, parameter, index))
        out_.classes[d.index].parameter_attributes.push_back({key, parameter, index});
      return;
    }
    addAttribute(d.index, key, std::move(classes));
    // `self.transformer = nn.ModuleDict(dict(h=nn.ModuleList(...), ...))`: `transformer.h` too.
    for (const auto& [name, element] : moduleDictElements(right)) {
      std::vector<NameRef> element_classes;
      if (containerClasses(element, element_classes)) addAttribute(d.index, key + "." + name, std::move(element_classes));
      else poisonAttribute(d.index, key + "." + name);
    }
  }

  // `block` bound by `for block in self.<attr>` (or `.values()`, `enumerate(...)` aside): attr.
  std::string loopOverSelfAttribute(TSNode ident, const Def* d) const {
    TSNode right = loopIterable(ident);
    return ts_node_is_null(right) ? std::string{} : selfPath(right, d);
  }

  // What a `for` target walks over: `self.h` for `block` in `for block in self.h`,
  // `enumerate(self.h)`, `self.heads.values()` / `.items()`; null when `ident` is no such target.
  TSNode loopIterable(TSNode ident) const {
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    if (b == nullptr || b->kind != BindingKind::Other || !isKind(b->statement, kind::for_statement)) return {};
    TSNode left = unparenthesize(fieldOf(b->statement, "left"));
    TSNode right = unparenthesize(fieldOf(b->statement, "right"));
    // `for i, block in enumerate(self.h)`, `for name, m in self.heads.items()`: the second name.
    bool pair = isKind(left, kind::pattern_list) || isKind(left, kind::tuple_pattern);
    if (pair && (ts_node_named_child_count(left) != 2 || !sameNode(ts_node_named_child(left, 1), b->name_node))) return {};
    if (!pair && !isKind(left, kind::identifier)) return {};
    if (isKind(right, kind::call)) {
      TSNode callee = unparenthesize(fieldOf(right, "function"));
      if (pair && isKind(callee, kind::identifier) && textOf(callee, source_) == "enumerate" &&
          model_.resolve("enumerate", callee) == nullptr) {
        right = firstArgument(right, {}, source_);
      } else if (isKind(callee, kind::attribute) &&
                 textOf(fieldOf(callee, "attribute"), source_) == (pair ? "items" : "values")) {
        right = fieldOf(callee, "object");
      } else {
        return {};
      }
    } else if (pair) {
      return {};
    }
    return right;
  }

  void noteCall(TSNode call, const Def* d) {
    TSNode callee = unparenthesize(fieldOf(call, "function"));
    noteCompileSite(call, callee, d);
    noteEnvironment(call, callee);
    noteConstruction(call, callee);
    if (d == nullptr) return;
    CallRef ref;
    ref.at = pos(call);
    if (d->method != SIZE_MAX && out_.classes[d->index].methods[d->method].name == "__init__")
      noteInitContainerGrowth(call, callee, *d);
    if (isKind(callee, kind::subscript) || isKind(callee, kind::attribute)) {
      ref.attr = selfPath(callee, d);
      ref.kind = CallRef::Kind::SelfAttr;
      if (isKind(callee, kind::attribute) && ref.attr.empty()) {
        if (auto cls = annotatedClass(fieldOf(callee, "object"))) {
          ref.kind = CallRef::Kind::Instance;  // `model.decode(x)` for `model: GPT`
          ref.target = std::move(*cls);
          ref.attr = std::string(textOf(fieldOf(callee, "attribute"), source_));
          summaryOf(*d).calls.push_back(std::move(ref));
          return;
        }
      }
      if (ref.attr.empty()) {
        if (auto target = nameRef(callee)) {
          if (target->kind == NameRef::Kind::Imported && target->name.starts_with("torch.")) return;
          ref.kind = CallRef::Kind::Name;
          ref.target = std::move(*target);
        }
      }
    } else if (isKind(callee, kind::identifier) && !(ref.attr = loopOverSelfAttribute(callee, d)).empty()) {
      ref.kind = CallRef::Kind::SelfAttr;
    } else if (auto cls = annotatedClass(callee)) {
      ref.kind = CallRef::Kind::Instance;  // `model(x)` for `model: GPT`
      ref.target = std::move(*cls);
    } else if (auto target = nameRef(callee)) {
      if (target->kind == NameRef::Kind::Imported && target->name.starts_with("torch.")) return;
      ref.target = std::move(*target);
    } else {
      if (isKind(callee, kind::identifier) && callsUnknownValue(callee)) summaryOf(*d).calls_unknown = true;
      return;
    }
    if (ref.kind == CallRef::Kind::SelfAttr && ref.attr.empty()) return;
    summaryOf(*d).calls.push_back(std::move(ref));
  }

  // `fn(x)` where `fn` is a parameter, a loop variable or a local bound to a value: unknown code
  // (a module-level name bound to `torch.compile(...)` runs what it compiles, not unknown code).
  bool callsUnknownValue(TSNode ident) const {
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    if (b == nullptr) return false;  // a builtin
    if (b->kind == BindingKind::Parameter || b->kind == BindingKind::Other) return true;
    if (b->kind != BindingKind::Assignment) return false;
    if (b->scope != &model_.moduleScope()) return true;
    TSNode v = unparenthesize(b->value);
    return !(isKind(v, kind::call) && (isCompileCall(v) || compiledValueIsKnown(v)));
  }

  void noteCompileSite(TSNode call, TSNode callee, const Def* d) {
    TSNode name = isKind(callee, kind::attribute) ? fieldOf(callee, "attribute") : callee;
    if (!isKind(name, kind::identifier) || textOf(name, source_) != "compile") return;
    auto q = model_.qualifiedName(callee);
    CompileSite site;
    site.at = pos(call);
    if (q && isTorchCompile(*q)) {
      if (hasTrueKeyword(call, "disable", source_)) return;
      // A statement of its own: the compiled wrapper is thrown away, nothing runs compiled.
      TSNode up = ts_node_parent(call);
      while (isKind(up, kind::parenthesized_expression)) up = ts_node_parent(up);
      if (isKind(up, kind::expression_statement)) return;
      TSNode target = unparenthesize(firstArgument(call, "model", source_));
      if (ts_node_is_null(target)) return;
      if (std::string_view attr = selfAttribute(target, d); !attr.empty()) {
        site.kind = CompileSite::Kind::SelfAttr;
        site.owner = out_.classes[d->index].name;
        site.attr = std::string(attr);
      } else if (std::vector<NameRef> classes; instanceClasses(target, 0, classes)) {
        site.kind = CompileSite::Kind::Instance;
        for (auto& cls : classes) {
          site.target = std::move(cls);
          out_.compile_sites.push_back(site);
        }
        return;
      } else if (auto fn = nameRef(target)) {
        site.kind = CompileSite::Kind::Function;
        site.target = std::move(*fn);
      } else if (auto wrapped = compiledInPlace(target)) {
        site.kind = CompileSite::Kind::Function;  // `global step; step = torch.compile(step)`
        site.target = std::move(*wrapped);
      } else if (initParameter(target, d, site.attr, site.parameter_index)) {
        // `self.model = torch.compile(model)` in `__init__`: what the constructor is given.
        site.kind = CompileSite::Kind::Parameter;
        site.owner = out_.classes[d->index].name;
      } else if (functionParameter(target, d, site.attr, site.parameter_index)) {
        site.kind = CompileSite::Kind::FunctionParameter;  // `def maybe_compile(m): return torch.compile(m)`
        site.owner = out_.functions[d->index].name;
      } else {
        if (!compiledValueIsKnown(target)) out_.unknown_compile_sites.push_back(site.at);
        return;
      }
    } else if (!q && isKind(callee, kind::attribute)) {
      // `model.compile()`: nn.Module.compile compiles the module's forward in place.
      site.method = true;
      TSNode object = fieldOf(callee, "object");
      if (std::string_view attr = selfAttribute(object, d); !attr.empty()) {
        site.kind = CompileSite::Kind::SelfAttr;
        site.owner = out_.classes[d->index].name;
        site.attr = std::string(attr);
      } else if (std::vector<NameRef> classes; instanceClasses(object, 0, classes)) {
        site.kind = CompileSite::Kind::Instance;
        for (auto& cls : classes) {
          site.target = std::move(cls);
          out_.compile_sites.push_back(site);
        }
        return;
      } else if (initParameter(object, d, site.attr, site.parameter_index)) {
        site.kind = CompileSite::Kind::Parameter;
        site.owner = out_.classes[d->index].name;
      } else if (functionParameter(object, d, site.attr, site.parameter_index)) {
        site.kind = CompileSite::Kind::FunctionParameter;  // `def compile_model(m): m.compile()`
        site.owner = out_.functions[d->index].name;
      } else if (std::string looped = isKind(object, kind::identifier) ? loopOverSelfAttribute(object, d) : std::string{};
                 !looped.empty() && looped.find('.') == std::string::npos) {
        // `for block in self.blocks: block.compile()`: each element of the container.
        site.kind = CompileSite::Kind::SelfAttr;
        site.owner = out_.classes[d->index].name;
        site.attr = std::move(looped);
      } else if (TSNode over = isKind(object, kind::identifier) ? loopIterable(object) : TSNode{};
                 isKind(over, kind::attribute) && instanceClasses(fieldOf(over, "object"), 0, classes_of_owner_)) {
        // `for block in model.blocks: block.compile()`: the elements of a model's container.
        site.kind = CompileSite::Kind::InstanceAttr;
        site.attr = std::string(textOf(fieldOf(over, "attribute"), source_));
        std::vector<NameRef> owners = std::move(classes_of_owner_);
        classes_of_owner_.clear();
        for (auto& cls : owners) {
          site.target = std::move(cls);
          out_.compile_sites.push_back(site);
        }
        return;
      } else {
        classes_of_owner_.clear();
        out_.unknown_compile_sites.push_back(site.at);
        return;
      }
    } else {
      return;
    }
    out_.compile_sites.push_back(std::move(site));
  }

  // A module-level function rebound to its compiled self (`decode = torch.compile(decode)`,
  // also under `global decode` in a function): every binding of the name is the one def or
  // such a wrapper of it.
  std::optional<NameRef> compiledInPlace(TSNode target) const {
    target = unparenthesize(target);
    if (!isKind(target, kind::identifier)) return std::nullopt;
    std::string_view name = textOf(target, source_);
    const auto* all = model_.bindingsOf(model_.moduleScope(), name);
    if (all == nullptr) return std::nullopt;
    int defs = 0;
    for (const Binding* b : *all) {
      if (b->kind == BindingKind::Function) {
        ++defs;
        continue;
      }
      TSNode v = b->kind == BindingKind::Assignment ? unparenthesize(b->value) : TSNode{};
      if (ts_node_is_null(v) || !isKind(v, kind::call) || !isCompileCall(v)) return std::nullopt;
      TSNode first = unparenthesize(firstArgument(v, "model", source_));
      if (!isKind(first, kind::identifier) || textOf(first, source_) != name) return std::nullopt;
    }
    // The name must mean the module's binding where it is compiled (a local of that name does not).
    const Binding* here = model_.resolve(name, target);
    if (defs != 1 || here == nullptr || here->scope != &model_.moduleScope()) return std::nullopt;
    return NameRef{NameRef::Kind::Local, std::string(name)};
  }

  // Can what `torch.compile(target)` compiles be told without a summary of it? A lambda or a
  // `functools.partial` of torch's own functions only runs torch code; so does a torch function.
  bool compiledValueIsKnown(TSNode target) const {
    target = unparenthesize(target);
    if (auto q = model_.qualifiedName(target)) return q->starts_with("torch.");
    if (isKind(target, kind::identifier)) {
      // `flex_attention = torch.compile(flex_attention)`: the name is torch's function, or what
      // compiling it gave.
      const Binding* b = model_.resolve(textOf(target, source_), target);
      const auto* all = b != nullptr ? model_.bindingsOf(*b->scope, b->name) : nullptr;
      if (all == nullptr) return false;
      for (const Binding* c : *all) {
        if (c->kind == BindingKind::Import && c->qualified_name.starts_with("torch.")) continue;
        TSNode v = c->kind == BindingKind::Assignment ? unparenthesize(c->value) : TSNode{};
        if (!ts_node_is_null(v) && isKind(v, kind::call) && isCompileCall(v)) continue;
        return false;
      }
      return true;
    }
    if (isKind(target, kind::call)) {
      auto q = model_.qualifiedName(unparenthesize(fieldOf(target, "function")));
      if (q && *q == "functools.partial") {
        auto inner = model_.qualifiedName(unparenthesize(firstArgument(target, "func", source_)));
        return inner && inner->starts_with("torch.");
      }
    }
    return false;
  }

  void noteDecoratorSites(const Def& d) {
    TSNode holder = ts_node_parent(d.def);
    if (!isKind(holder, kind::decorated_definition)) return;
    forEachNamedChild(holder, [&](TSNode child) {
      if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
      TSNode expr = unparenthesize(ts_node_named_child(child, 0));
      if (isKind(expr, kind::call) && hasTrueKeyword(expr, "disable", source_)) return;
      TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldOf(expr, "function")) : expr;
      auto q = model_.qualifiedName(callee);
      if (!q || !isTorchCompile(*q)) return;
      CompileSite site;
      site.kind = CompileSite::Kind::Function;
      std::string name(textOf(fieldOf(d.def, "name"), source_));
      site.target = {NameRef::Kind::Local, ts_node_is_null(d.cls) ? name : out_.classes[d.index].name + "." + name};
      site.at = pos(expr);
      out_.compile_sites.push_back(std::move(site));
    });
  }

  // `torch._dynamo.config.capture_scalar_outputs = True` as a statement of the module, or under
  // `if __name__ == "__main__":` (see ModuleSummary::captures_scalars).
  void noteCaptureFlag(TSNode assignment) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    if (!isKind(left, kind::attribute) || textOf(fieldOf(left, "attribute"), source_) != "capture_scalar_outputs" ||
        !isKind(unparenthesize(fieldOf(assignment, "right")), kind::true_))
      return;
    auto q = model_.qualifiedName(left);
    if (!q || !q->starts_with("torch.")) return;
    TSNode statement = ts_node_parent(assignment);
    if (!isKind(statement, kind::expression_statement)) return;
    TSNode holder = ts_node_parent(statement);
    if (isKind(holder, kind::block)) {
      TSNode test = ts_node_parent(holder);
      if (!isKind(test, kind::if_statement) || !isKind(ts_node_parent(test), kind::module)) return;
      std::string_view condition = textOf(fieldOf(test, "condition"), source_);
      if (condition != "__name__ == \"__main__\"" && condition != "__name__ == '__main__'") return;
    } else if (!isKind(holder, kind::module)) {
      return;
    }
    out_.captures_scalars = true;
  }

  // `compiler = functools.partial(torch.compile, mode=...)`, `optimize = torch._dynamo.optimize("inductor")`
  // at module level, the name bound once: calling it compiles its first argument.
  void noteCompilerAlias(TSNode assignment) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    TSNode right = unparenthesize(fieldOf(assignment, "right"));
    if (!isKind(left, kind::identifier) || !isKind(right, kind::call)) return;
    const auto* all = model_.bindingsOf(model_.moduleScope(), textOf(left, source_));
    if (all == nullptr || all->size() != 1 || hasTrueKeyword(right, "disable", source_)) return;
    auto q = model_.qualifiedName(unparenthesize(fieldOf(right, "function")));
    if (!q) return;
    bool compiler = isDynamoOptimize(*q);
    if (*q == "functools.partial") {
      auto inner = model_.qualifiedName(unparenthesize(firstArgument(right, "func", source_)));
      compiler = inner && isTorchCompile(*inner);
    }
    if (!compiler) return;
    CompileSite site;
    site.kind = CompileSite::Kind::FunctionParameter;
    site.owner = std::string(textOf(left, source_));
    site.parameter_index = 0;
    site.at = pos(right);
    out_.compile_sites.push_back(std::move(site));
  }

  static std::optional<std::string> stringLiteral(TSNode node, std::string_view source) {
    node = unparenthesize(node);
    if (!isKind(node, kind::string)) return std::nullopt;
    std::string out;
    bool plain = true;
    forEachNamedChild(node, [&](TSNode part) {
      if (isKind(part, kind::string_content)) out += textOf(part, source);
      else if (!isKind(part, kind::string_start) && !isKind(part, kind::string_end)) plain = false;
    });
    if (!plain) return std::nullopt;
    return out;
  }

  void noteEnvironment(TSNode call, TSNode callee) {
    if (!isKind(callee, kind::attribute)) return;
    std::string_view method = textOf(fieldOf(callee, "attribute"), source_);
    if (method != "setdefault" && method != "putenv" && method != "update") return;
    auto q = model_.qualifiedName(callee);
    if (!q) return;
    if (*q == "os.environ.update") {
      // `os.environ.update({"X": "1"})`, `os.environ.update(X="1")`.
      TSNode args = fieldOf(call, "arguments");
      if (!isKind(args, kind::argument_list)) return;
      forEachNamedChild(args, [&](TSNode arg) {
        if (isKind(arg, kind::keyword_argument)) {
          out_.environment.emplace_back(textOf(fieldOf(arg, "name"), source_));
        } else if (isKind(unparenthesize(arg), kind::dictionary)) {
          forEachNamedChild(unparenthesize(arg), [&](TSNode pair) {
            if (!isKind(pair, kind::pair)) return;
            if (auto key = stringLiteral(fieldOf(pair, "key"), source_)) out_.environment.push_back(*key);
          });
        }
      });
      return;
    }
    if (*q != "os.environ.setdefault" && *q != "os.putenv") return;
    if (auto key = stringLiteral(firstArgument(call, {}, source_), source_)) out_.environment.push_back(*key);
  }

  void noteAssignment(TSNode assignment) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    if (!isKind(left, kind::subscript)) return;
    auto q = model_.qualifiedName(fieldOf(left, "value"));
    if (!q || *q != "os.environ") return;
    if (auto key = stringLiteral(fieldOf(left, "subscript"), source_)) out_.environment.push_back(*key);
  }

  void walk() {
    // The function whose calls are being recorded: top-level functions and methods only; a def
    // nested in them records nothing (what it runs is not known to run).
    struct Frame {
      TSNode node;
      const Def* def;
    };
    std::vector<Frame> stack{{model_.file().root(), nullptr}};
    walkTree(
        model_.file().root(),
        [&](TSNode node) {
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::comment || kind == kind::string) return false;
          const Def* current = stack.back().def;
          if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) {
            const Def* def = nullptr;
            if (auto it = index_by_def_.find(node.id); it != index_by_def_.end()) {
              def = &defs_[it->second];
              noteDecoratorSites(*def);
            }
            stack.push_back({node, def});
          } else if (kind == kind::call) {
            noteCall(node, current);
          } else if (kind == kind::return_statement && current != nullptr &&
                     sameNode(stack.back().node, current->def)) {
            noteReturn(node, *current);
          } else if (kind == kind::assignment) {
            noteAssignment(node);
            if (current == nullptr && stack.size() == 1) noteCaptureFlag(node);
            if (current == nullptr && stack.size() == 1) noteCompilerAlias(node);
            if (current != nullptr) noteRegistration(node, *current);
            if (current != nullptr && current->method != SIZE_MAX &&
                out_.classes[current->index].methods[current->method].name == "__init__")
              noteInitStore(node, *current);
          }
          return true;
        },
        [&](TSNode node) {
          if (stack.size() > 1 && sameNode(stack.back().node, node)) stack.pop_back();
        });
  }

  const SemanticModel& model_;
  // instanceClasses of a name, by scope and name (nullopt: cannot be named, or being followed).
  mutable std::unordered_map<const void*, std::map<std::string, std::optional<std::vector<NameRef>>>> name_classes_;
  std::string_view source_;
  ModuleSummary out_;
  std::vector<Def> defs_;
  std::unordered_map<const void*, size_t> index_by_def_;
  std::unordered_map<size_t, std::unordered_set<std::string>> poisoned_;  // class -> attrs bound to unknowns
  std::vector<NameRef> classes_of_owner_;  // scratch for noteCompileSite
};

}  // namespace

ModuleSummary summarizeModule(const SemanticModel& model) { return Summarizer(model).run(); }

}  // namespace ptlint::analysis
