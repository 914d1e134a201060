// What classes the instances of an expression may be, for the module summary
// (module_summarizer.h): constructions, factories' returns, registries, containers, and what
// `__init__` binds to `self.<attr>`.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/module_summarizer.h"
#include "analysis/syntax.h"

namespace ptlint::analysis {

std::optional<NameRef> ModuleSummarizer::annotatedClass(TSNode ident) const {
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

void ModuleSummarizer::noteConstruction(TSNode call, TSNode callee) {
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

bool ModuleSummarizer::instanceClasses(TSNode expr, int depth, std::vector<NameRef>& out) const {
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

std::optional<NameRef> ModuleSummarizer::clsParameterClass(TSNode ident) const {
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

void ModuleSummarizer::noteReturn(TSNode statement, const Def& d) {
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

std::string ModuleSummarizer::moduleDictLookup(TSNode expr) const {
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

void ModuleSummarizer::noteRegistration(TSNode assignment, const Def& d) {
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

bool ModuleSummarizer::containerClasses(TSNode value, std::vector<NameRef>& out, int depth) const {
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

bool ModuleSummarizer::localListClasses(TSNode ident, std::vector<NameRef>& out, int depth) const {
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

std::vector<std::pair<std::string, TSNode>> ModuleSummarizer::moduleDictElements(TSNode value) const {
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

void ModuleSummarizer::addAttribute(size_t class_index, const std::string& key, std::vector<NameRef> classes) {
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

void ModuleSummarizer::poisonAttribute(size_t class_index, const std::string& key) {
  ClassSummary& cls = out_.classes[class_index];
  if (!poisoned_[class_index].insert(key).second) return;
  auto it = std::find_if(cls.attributes.begin(), cls.attributes.end(), [&](const auto& a) { return a.first == key; });
  if (it != cls.attributes.end()) cls.attributes.erase(it);
  cls.unknown_attributes.push_back(key);
}

void ModuleSummarizer::noteInitContainerGrowth(TSNode call, TSNode callee, const Def& d) {
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

void ModuleSummarizer::noteInitStore(TSNode assignment, const Def& d) {
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

std::string ModuleSummarizer::loopOverSelfAttribute(TSNode ident, const Def* d) const {
  TSNode right = loopIterable(ident);
  return ts_node_is_null(right) ? std::string{} : selfPath(right, d);
}

TSNode ModuleSummarizer::loopIterable(TSNode ident) const {
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

}  // namespace ptlint::analysis
