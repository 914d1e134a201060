// Which same-file function an expression names, for the compiled-region builder
// (compiled_regions_builder.h): functions and methods, bindings and aliases of torch.compile,
// the class of an instance (`Model()`, `self.block`, annotated parameters) and the method a call
// on it runs.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/compiled_regions_builder.h"
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

namespace {

constexpr int kMaxDepth = 8;  // alias chains, base classes, `self.x = ...` indirections

// Methods of `nn.Module` that return the module itself: `Model().cuda()` is still a `Model`.
bool returnsSelf(std::string_view method) {
  static constexpr std::string_view kSelfReturning[] = {"to",    "cuda",     "cpu",    "eval",   "train",
                                                        "half",  "float",    "double", "bfloat16",
                                                        "requires_grad_", "to_empty", "share_memory"};
  return std::find(std::begin(kSelfReturning), std::end(kSelfReturning), method) != std::end(kSelfReturning);
}

}  // namespace

int CompiledRegions::Builder::functionIndex(TSNode def) const {
  if (auto it = index_by_def_.find(def.id); it != index_by_def_.end()) return it->second;
  FunctionInfo info;
  info.def = def;
  info.body = fieldOf(def, "body");
  info.name = textOf(fieldOf(def, "name"), source_);
  TSNode holder = ts_node_parent(def);
  if (isKind(holder, kind::decorated_definition)) {
    forEachNamedChild(holder, [&](TSNode child) {
      if (isKind(child, kind::decorator) && ts_node_named_child_count(child) > 0)
        info.decorators.push_back(unparenthesize(ts_node_named_child(child, 0)));
    });
    holder = ts_node_parent(holder);
  }
  if (isKind(holder, kind::block) && isKind(ts_node_parent(holder), kind::class_definition)) info.cls = ts_node_parent(holder);
  for (TSNode decorator : info.decorators) {
    std::string_view text = textOf(decorator, source_);
    if ((text == "staticmethod") && model_.resolve(text, decorator) == nullptr) info.first_param_is_instance = false;
  }
  int index = static_cast<int>(functions_.size());
  index_by_def_[def.id] = index;
  functions_.push_back(std::move(info));
  return index;
}

int CompiledRegions::Builder::functionIndexIfDef(TSNode node) const {
  return isKind(node, kind::function_definition) ? functionIndex(node) : -1;
}

const std::unordered_map<std::string, int>& CompiledRegions::Builder::methodsOf(TSNode cls) const {
  auto [it, added] = methods_.try_emplace(cls.id);
  if (!added) return it->second;
  std::unordered_map<std::string, int> methods;
  TSNode body = fieldOf(cls, "body");
  if (isKind(body, kind::block)) {
    forEachNamedChild(body, [&](TSNode child) {
      TSNode def = isKind(child, kind::decorated_definition) ? fieldOf(child, "definition") : child;
      if (!isKind(def, kind::function_definition)) return;
      int index = functionIndex(def);
      if (sameNode(functions_[index].cls, cls)) methods[std::string(functions_[index].name)] = index;
    });
  }
  auto& slot = methods_[cls.id];  // functionIndex may have rehashed the map
  slot = std::move(methods);
  return slot;
}

auto CompiledRegions::Builder::scanned(int index) const -> FunctionInfo& {
  FunctionInfo& info = functions_[index];
  if (info.scanned) return info;
  info.scanned = true;
  if (ts_node_is_null(info.body)) return info;
  walkTree(
      info.body,
      [&](TSNode node) {
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::comment || kind == kind::class_definition) return false;
        if (kind == kind::block && !sameNode(node, info.body)) {
          TSNode parent = ts_node_parent(node);
          if (isKind(parent, kind::function_definition) && sameNode(node, fieldOf(parent, "body"))) return false;
        } else if (kind == kind::call) {
          info.calls.push_back(node);
        } else if (kind == kind::assignment) {
          noteAttributeStore(node, info);
        }
        return true;
      },
      [](TSNode) {});
  return info;
}

bool CompiledRegions::Builder::mayCompileOrDisable(TSNode call) const {
  TSNode callee = unparenthesize(fieldOf(call, "function"));
  if (isKind(callee, kind::call)) return true;
  TSNode name = isKind(callee, kind::attribute) ? fieldOf(callee, "attribute") : callee;
  if (!isKind(name, kind::identifier)) return false;
  std::string_view text = textOf(name, source_);
  if (text == "compile" || text == "disable" || text == "_disable_dynamo") return true;
  if (partial_names_.count(text)) return true;
  for (const auto& extra : out_.extra_decorators_)
    if (lastSegment(extra) == text) return true;
  return false;
}

bool CompiledRegions::Builder::isCompileName(TSNode callee, const std::optional<std::string>& q) const {
  if (q && isTorchCompile(*q)) return true;
  if (out_.extra_decorators_.empty()) return false;
  std::string dotted = q ? std::string{} : attributeChainText(callee, source_);
  for (const auto& extra : out_.extra_decorators_) {
    if (q) {
      if (*q == extra) return true;
      // A relative import (`from .utils import compiled`) matches by its trailing segments.
      if (q->starts_with('.')) {
        std::string_view rel = std::string_view(*q).substr(q->find_first_not_of('.'));
        if (!rel.empty() && extra.size() > rel.size() && std::string_view(extra).ends_with(rel) &&
            extra[extra.size() - rel.size() - 1] == '.')
          return true;
      }
    } else if (!dotted.empty() && dotted == extra) {
      return true;  // a decorator defined in this file, named as configured
    }
  }
  return false;
}

bool CompiledRegions::Builder::isPartialOfCompile(TSNode call) const {
  call = unparenthesize(call);
  if (!isKind(call, kind::call) || disablesItself(call, source_)) return false;
  auto q = model_.qualifiedName(unparenthesize(fieldOf(call, "function")));
  if (!q || *q != "functools.partial") return false;
  TSNode func = unparenthesize(targetArgument(call, "func", source_));
  return !ts_node_is_null(func) && isCompileName(func, model_.qualifiedName(func));
}

bool CompiledRegions::Builder::namesPartialOfCompile(TSNode ident) const {
  if (!isKind(ident, kind::identifier)) return false;
  const Binding* b = model_.resolve(textOf(ident, source_), ident);
  const auto* all = b != nullptr ? model_.bindingsOf(*b->scope, b->name) : nullptr;
  if (all == nullptr || all->empty()) return false;
  for (const Binding* c : *all)
    if (c->kind != BindingKind::Assignment || !isPartialOfCompile(c->value)) return false;
  return true;
}

const Binding* CompiledRegions::Builder::bindingFor(TSNode ident) const {
  std::string_view name = textOf(ident, source_);
  const Binding* b = model_.resolve(name, ident);
  if (b == nullptr) return nullptr;
  auto self_referential = [&](const Binding* c) {
    return (c->kind == BindingKind::Assignment || c->kind == BindingKind::Other) && contains(c->statement, ident);
  };
  if (!self_referential(b)) return b;
  const Binding* best = nullptr;
  if (const auto* all = model_.bindingsOf(*b->scope, name))
    for (const Binding* c : *all)
      if (!c->is_fallback && startOf(c->name_node) < startOf(ident) && !self_referential(c)) best = c;
  return best;
}

bool CompiledRegions::Builder::wrapsItself(const Binding* c) const {
  if (c->kind != BindingKind::Assignment || ts_node_is_null(c->value)) return false;
  TSNode v = unparenthesize(c->value);
  while (isKind(v, kind::call)) {
    TSNode callee = unparenthesize(fieldOf(v, "function"));
    TSNode first = unparenthesize(targetArgument(v, {}, source_));
    if (isKind(first, kind::identifier) && textOf(first, source_) == c->name) return true;
    if (!isKind(callee, kind::attribute) || !returnsSelf(textOf(fieldOf(callee, "attribute"), source_))) return false;
    v = unparenthesize(fieldOf(callee, "object"));
  }
  return isKind(v, kind::identifier) && textOf(v, source_) == c->name;
}

TSNode CompiledRegions::Builder::classNamed(TSNode ident) const {
  if (!isKind(ident, kind::identifier)) return {};
  const Binding* b = bindingFor(ident);
  return b != nullptr && b->kind == BindingKind::Class ? b->statement : TSNode{};
}

int CompiledRegions::Builder::enclosingFunction(TSNode node) const {
  for (const Scope* scope = &model_.scopeAt(node); scope != nullptr; scope = scope->parent) {
    if (scope->kind == Scope::Kind::Class || scope->kind == Scope::Kind::Module) return -1;
    if (scope->kind != Scope::Kind::Function) continue;
    int index = functionIndexIfDef(scope->node);
    if (index < 0) return -1;
    if (contains(functions_[index].body, node)) return index;
  }
  return -1;
}

int CompiledRegions::Builder::methodOf(TSNode cls, std::string_view name, bool skip_own) const {
  if (ts_node_is_null(cls)) return -1;
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(cls.id)) + (skip_own ? "^" : ".") + std::string(name);
  if (auto it = method_of_.find(key); it != method_of_.end()) return it->second;
  int found = -1;
  std::unordered_set<const void*> seen;
  std::vector<TSNode> stack;
  auto pushBases = [&](TSNode c) {
    std::vector<TSNode> bases;
    forEachBase(c, [&](TSNode base) { bases.push_back(base); });
    for (auto it = bases.rbegin(); it != bases.rend(); ++it) stack.push_back(*it);
  };
  if (skip_own) {
    seen.insert(cls.id);
    pushBases(cls);
  } else {
    stack.push_back(cls);
  }
  while (!stack.empty() && found < 0) {
    TSNode c = stack.back();
    stack.pop_back();
    if (!seen.insert(c.id).second) continue;
    const auto& methods = methodsOf(c);
    if (auto m = methods.find(std::string(name)); m != methods.end()) {
      found = m->second;
      break;
    }
    pushBases(c);
  }
  method_of_[key] = found;
  return found;
}

TSNode CompiledRegions::Builder::isinstanceClass(TSNode ident, const Binding* binding) const {
  // The test of an `if` whose body holds `ident`: `isinstance(ident, C)`, alone or in an `and`.
  std::function<TSNode(TSNode)> classTested = [&](TSNode test) -> TSNode {
    test = unparenthesize(test);
    if (isKind(test, kind::boolean_operator) && textOf(fieldOf(test, "operator"), source_) == "and") {
      TSNode left = classTested(fieldOf(test, "left"));
      return ts_node_is_null(left) ? classTested(fieldOf(test, "right")) : left;
    }
    if (!isKind(test, kind::call)) return {};
    TSNode callee = fieldOf(test, "function");
    if (!isKind(callee, kind::identifier) || textOf(callee, source_) != "isinstance" ||
        model_.resolve("isinstance", callee) != nullptr)
      return {};
    TSNode args = fieldOf(test, "arguments");
    if (ts_node_named_child_count(args) != 2) return {};
    TSNode subject = ts_node_named_child(args, 0), cls = ts_node_named_child(args, 1);
    if (!isKind(subject, kind::identifier) || textOf(subject, source_) != textOf(ident, source_) ||
        bindingFor(subject) != binding || !isKind(cls, kind::identifier))
      return {};
    return classNamed(cls);
  };
  TSNode child = ident;
  for (TSNode up = ts_node_parent(ident); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
    analysis::NodeKind kind = kindOf(up);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) break;
    if (kind == kind::if_statement && sameNode(fieldOf(up, "consequence"), child)) {
      TSNode cls = classTested(fieldOf(up, "condition"));
      if (!ts_node_is_null(cls)) return cls;
    }
  }
  return {};
}

TSNode CompiledRegions::Builder::instanceClass(TSNode expr, int depth) const {
  expr = unparenthesize(expr);
  if (depth > kMaxDepth) return {};
  if (isKind(expr, kind::call)) {
    TSNode callee = unparenthesize(fieldOf(expr, "function"));
    if (isKind(callee, kind::identifier)) return classNamed(callee);
    if (isKind(callee, kind::attribute) && returnsSelf(textOf(fieldOf(callee, "attribute"), source_)))
      return instanceClass(fieldOf(callee, "object"), depth + 1);
    return {};
  }
  if (isKind(expr, kind::identifier)) {
    const Binding* b = bindingFor(expr);
    if (b == nullptr) return {};
    // `for m in model.modules(): if isinstance(m, Block): m.compile()`: the test names the class.
    if (TSNode narrowed = isinstanceClass(expr, b); !ts_node_is_null(narrowed)) return narrowed;
    if (b->kind == BindingKind::Parameter) {
      TSNode cls = selfClass(b);
      return ts_node_is_null(cls) ? annotatedClass(b) : cls;
    }
    // Memoised per identifier: names bound from names bound from names (each several times)
    // are followed once each; a name reached again while resolved is unknown.
    if (auto it = instance_class_.find(expr.id); it != instance_class_.end()) return it->second;
    instance_class_[expr.id] = TSNode{};
    // Every binding of the name in its scope must build the same class (`model = Model()` and
    // `model = torch.compile(model)` agree; a parameter or another value does not).
    TSNode found{};
    for (const Binding* c : *model_.bindingsOf(*b->scope, b->name)) {
      if (wrapsItself(c)) continue;
      if (c->kind != BindingKind::Assignment || ts_node_is_null(c->value)) return {};
      TSNode vc = instanceClass(c->value, depth + 1);
      if (ts_node_is_null(vc) || (!ts_node_is_null(found) && !sameNode(found, vc))) return {};
      found = vc;
    }
    return instance_class_[expr.id] = found;
  }
  if (isKind(expr, kind::attribute)) {
    TSNode owner_cls = instanceClass(fieldOf(expr, "object"), depth + 1);
    if (ts_node_is_null(owner_cls)) return {};
    return attributeClass(owner_cls, textOf(fieldOf(expr, "attribute"), source_), depth + 1);
  }
  return {};
}

TSNode CompiledRegions::Builder::annotatedClass(const Binding* param) const {
  TSNode holder = ts_node_parent(param->name_node);
  if (!isKind(holder, kind::typed_parameter) && !isKind(holder, kind::typed_default_parameter)) return {};
  TSNode type = fieldOf(holder, "type");
  if (isKind(type, kind::type) && ts_node_named_child_count(type) == 1) type = ts_node_named_child(type, 0);
  type = unparenthesize(type);
  if (isKind(type, kind::string)) {
    // A forward reference, `model: "GPT"`: the class of that name at module level.
    std::string_view text = textOf(type, source_);
    if (text.size() < 3 || (text.front() != '"' && text.front() != '\'') || text.back() != text.front()) return {};
    std::string_view name = text.substr(1, text.size() - 2);
    const auto* all = model_.bindingsOf(model_.moduleScope(), name);
    if (all == nullptr || all->size() != 1 || (*all)[0]->kind != BindingKind::Class) return {};
    return (*all)[0]->statement;
  }
  return classNamed(type);
}

TSNode CompiledRegions::Builder::selfClass(const Binding* param) const {
  int index = functionIndexIfDef(param->statement);
  if (index < 0) return {};
  const FunctionInfo& fn = functions_[index];
  if (ts_node_is_null(fn.cls) || !fn.first_param_is_instance) return {};
  TSNode params = fieldOf(fn.def, "parameters");
  if (ts_node_named_child_count(params) == 0) return {};
  TSNode first = ts_node_named_child(params, 0);
  if (isKind(first, kind::typed_parameter)) first = ts_node_named_child(first, 0);
  return isKind(first, kind::identifier) && sameNode(first, param->name_node) ? fn.cls : TSNode{};
}

TSNode CompiledRegions::Builder::attributeClass(TSNode cls, std::string_view attr, int depth) const {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(cls.id)) + "." + std::string(attr);
  if (auto it = attribute_class_.find(key); it != attribute_class_.end()) return it->second;
  attribute_class_[key] = TSNode{};  // in progress: cycles resolve to unknown
  TSNode found{};
  bool unknown = false, any = false;
  std::vector<TSNode> classes{cls};
  forEachBase(cls, [&](TSNode base) { classes.push_back(base); });
  for (TSNode c : classes) {
    for (const auto& [name, index] : methodsOf(c)) {
      for (const auto& [object, stored_attr, value] : scanned(index).attribute_stores) {
        if (stored_attr != attr) continue;
        const Binding* b = bindingFor(object);
        if (b == nullptr || b->kind != BindingKind::Parameter || ts_node_is_null(selfClass(b))) continue;
        TSNode v = unparenthesize(value);
        if (isKind(v, kind::call)) {
          TSNode callee = unparenthesize(fieldOf(v, "function"));
          if (isCompileName(callee, model_.qualifiedName(callee)) || compilesParameter(functionOf(callee))) continue;
        }
        any = true;
        TSNode vc = instanceClass(v, depth + 1);
        if (ts_node_is_null(vc) || (!ts_node_is_null(found) && !sameNode(found, vc))) unknown = true;
        else found = vc;
      }
    }
  }
  TSNode result = any && !unknown ? found : TSNode{};
  attribute_class_[key] = result;
  return result;
}

int CompiledRegions::Builder::functionOf(TSNode expr, int depth) const {
  expr = unparenthesize(expr);
  if (depth > kMaxDepth) return -1;
  if (isKind(expr, kind::identifier)) {
    const Binding* b = bindingFor(expr);
    if (b == nullptr) return -1;
    const auto& all = *model_.bindingsOf(*b->scope, b->name);
    if (b->kind == BindingKind::Assignment && !ts_node_is_null(b->value) && all.size() == 1) {
      TSNode v = unparenthesize(b->value);
      if (isKind(v, kind::identifier) || isKind(v, kind::attribute)) return functionOf(v, depth + 1);  // `step = train_step`
      return -1;
    }
    // One def, and no other value for the name than wrappers of it (`f = torch.compile(f)`).
    int fn = -1;
    for (const Binding* c : all) {
      if (wrapsItself(c)) continue;
      if (c->kind != BindingKind::Function) return -1;
      int index = functionIndexIfDef(c->statement);
      if (index < 0 || (fn >= 0 && fn != index)) return -1;
      fn = index;
    }
    return fn;
  }
  if (!isKind(expr, kind::attribute)) return -1;
  std::string_view name = textOf(fieldOf(expr, "attribute"), source_);
  TSNode object = unparenthesize(fieldOf(expr, "object"));
  if (TSNode cls = classNamed(object); !ts_node_is_null(cls)) return methodOf(cls, name);
  if (isKind(object, kind::call) && ts_node_named_child_count(fieldOf(object, "arguments")) == 0) {
    TSNode callee = unparenthesize(fieldOf(object, "function"));
    if (isKind(callee, kind::identifier) && textOf(callee, source_) == "super" &&
        model_.resolve("super", callee) == nullptr) {
      int method = enclosingFunction(object);
      if (method < 0 || ts_node_is_null(functions_[method].cls)) return -1;
      return methodOf(functions_[method].cls, name, /*skip_own=*/true);
    }
  }
  TSNode cls = instanceClass(object, depth + 1);
  return ts_node_is_null(cls) ? -1 : methodOf(cls, name);
}

int CompiledRegions::Builder::runTarget(TSNode expr) const {
  int fn = functionOf(expr);
  if (fn >= 0) return fn;
  TSNode cls = instanceClass(expr);
  if (ts_node_is_null(cls)) return -1;
  int forward = methodOf(cls, "forward");
  return forward >= 0 ? forward : methodOf(cls, "__call__");
}

}  // namespace ptlint::analysis
