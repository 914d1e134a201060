#include "analysis/value_flow.h"

#include <algorithm>
#include <memory>
#include <string>

#include "analysis/syntax.h"
#include "analysis/value_flow_impl.h"

namespace ptlint::analysis {
namespace flow_detail {

bool isStatementContainer(TSNode node) { return isKind(node, kind::block) || isKind(node, kind::module); }

bool containsPos(TSNode node, uint32_t pos) { return startOf(node) <= pos && pos < endOf(node); }

bool isLoop(TSNode node) { return isKind(node, kind::for_statement) || isKind(node, kind::while_statement); }

bool isScopeBoundary(TSNode node) {
  analysis::NodeKind kind = kindOf(node);
  return kind == kind::function_definition || kind == kind::lambda || kind == kind::class_definition;
}

// The statement of a block (or module) that holds `node`.
TSNode anchorOf(TSNode node) {
  for (TSNode cur = node; !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    TSNode parent = ts_node_parent(cur);
    if (ts_node_is_null(parent) || isStatementContainer(parent)) return cur;
  }
  return node;
}

std::optional<std::string> literalString(TSNode node, std::string_view source) {
  node = unparenthesize(node);
  if (!isKind(node, kind::string)) return std::nullopt;
  std::string out;
  bool plain = true;
  forEachNamedChild(node, [&](TSNode part) {
    analysis::NodeKind kind = kindOf(part);
    if (kind == kind::string_content) out += textOf(part, source);
    else if (kind != kind::string_start && kind != kind::string_end) plain = false;
  });
  if (!plain) return std::nullopt;
  return out;
}

TSNode keyword(TSNode call, std::string_view name, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  TSNode found{};
  forEachNamedChild(args, [&](TSNode arg) {
    if (isKind(arg, kind::keyword_argument) && textOf(fieldOf(arg, "name"), source) == name) found = fieldOf(arg, "value");
  });
  return found;
}

bool hasSplat(TSNode call) {
  bool splat = false;
  forEachNamedChild(fieldOf(call, "arguments"), [&](TSNode arg) {
    splat = splat || isKind(arg, kind::list_splat) || isKind(arg, kind::dictionary_splat);
  });
  return splat;
}

std::vector<TSNode> positional(TSNode call) {
  std::vector<TSNode> out;
  forEachNamedChild(fieldOf(call, "arguments"), [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind != kind::keyword_argument && kind != kind::comment && kind != kind::list_splat && kind != kind::dictionary_splat)
      out.push_back(arg);
  });
  return out;
}

// True when every path through `block` ends in `return` or `raise`.
bool alwaysExits(TSNode block, int depth) {
  if (depth > 32 || ts_node_is_null(block)) return false;
  TSNode last{};
  forEachNamedChild(block, [&](TSNode child) {
    if (!isKind(child, kind::comment)) last = child;
  });
  analysis::NodeKind kind = kindOf(last);
  if (kind == kind::return_statement || kind == kind::raise_statement) return true;
  if (kind == kind::with_statement) return alwaysExits(fieldOf(last, "body"), depth + 1);
  if (kind == kind::if_statement) {
    if (!alwaysExits(fieldOf(last, "consequence"), depth + 1)) return false;
    bool has_else = false, all = true;
    forEachNamedChild(last, [&](TSNode clause) {
      if (isKind(clause, kind::elif_clause)) all = all && alwaysExits(fieldOf(clause, "consequence"), depth + 1);
      if (isKind(clause, kind::else_clause)) {
        has_else = true;
        all = all && alwaysExits(fieldOf(clause, "body"), depth + 1);
      }
    });
    return has_else && all;
  }
  if (kind == kind::try_statement) {
    bool all = alwaysExits(fieldOf(last, "body"), depth + 1);
    forEachNamedChild(last, [&](TSNode clause) {
      if (isKind(clause, kind::except_clause)) {
        TSNode body{};
        forEachNamedChild(clause, [&](TSNode c) {
          if (isKind(c, kind::block)) body = c;
        });
        all = all && alwaysExits(body, depth + 1);
      } else if (isKind(clause, kind::finally_clause)) {
        TSNode body{};
        forEachNamedChild(clause, [&](TSNode c) {
          if (isKind(c, kind::block)) body = c;
        });
        if (alwaysExits(body, depth + 1)) all = true;
      }
    });
    return all;
  }
  return false;
}

// The class a method is defined in (directly), or null.
TSNode classOfMethod(TSNode function) {
  TSNode up = ts_node_parent(function);
  if (isKind(up, kind::decorated_definition)) up = ts_node_parent(up);
  up = ts_node_parent(up);  // block -> class_definition
  return isKind(up, kind::class_definition) ? up : TSNode{};
}

TSNode firstParameterNode(TSNode function) {
  TSNode params = fieldOf(function, "parameters");
  if (ts_node_is_null(params) || ts_node_named_child_count(params) == 0) return {};
  TSNode first = ts_node_named_child(params, 0);
  if (isKind(first, kind::default_parameter) || isKind(first, kind::typed_parameter) ||
      isKind(first, kind::typed_default_parameter)) {
    TSNode name = fieldOf(first, "name");
    if (ts_node_is_null(name) && ts_node_named_child_count(first) > 0) name = ts_node_named_child(first, 0);
    first = name;
  }
  return isKind(first, kind::identifier) ? first : TSNode{};
}

ValueSet Flow::values(TSNode expr, int depth) {
  ValueSet out;
  if (ts_node_is_null(expr)) {
    out.unknown = true;
    return out;
  }
  expr = unparenthesize(expr);
  NodeKey key = keyOf(expr);
  {
    std::lock_guard lock(cache_.mutex);
    if (auto it = cache_.values.find(key); it != cache_.values.end()) return it->second;
  }
  if (depth > kMaxDepth) {
    out.unknown = true;
    return out;
  }
  if (std::find(active_.begin(), active_.end(), key) != active_.end()) {
    cycle_ = true;
    return out;  // a cycle adds no value of its own
  }
  active_.push_back(key);
  bool outer_cycle = cycle_;
  cycle_ = false;
  out = compute(expr, depth);
  bool hit = cycle_;
  cycle_ = outer_cycle || hit;
  active_.pop_back();
  if (!hit || active_.empty()) {
    std::lock_guard lock(cache_.mutex);
    cache_.values.emplace(key, out);
  }
  return out;
}

ValueSet Flow::returns(TSNode function, int depth) {
  ValueSet out;
  NodeKey key = keyOf(function);
  {
    std::lock_guard lock(cache_.mutex);
    if (auto it = cache_.returns.find(key); it != cache_.returns.end()) return it->second;
  }
  if (depth > kMaxDepth || std::find(active_.begin(), active_.end(), key) != active_.end()) {
    if (depth <= kMaxDepth) cycle_ = true;  // recursion: the other returns give the values
    else out.unknown = true;
    return out;
  }
  active_.push_back(key);
  bool outer_cycle = cycle_;
  cycle_ = false;
  out = computeReturns(function, depth);
  bool hit = cycle_;
  cycle_ = outer_cycle || hit;
  active_.pop_back();
  if (!hit || active_.empty()) {
    std::lock_guard lock(cache_.mutex);
    cache_.returns.emplace(key, out);
  }
  return out;
}

void Flow::add(ValueSet& out, const ValueSet& in) {
  out.unknown = out.unknown || in.unknown;
  for (const FlowValue& v : in.values) addValue(out, v);
}

void Flow::addValue(ValueSet& out, FlowValue v) {
  for (const FlowValue& have : out.values)
    if (have.kind == v.kind && have.model == v.model && sameNode(have.node, v.node)) return;
  if (out.values.size() >= 64) {
    out.unknown = true;
    return;
  }
  out.values.push_back(v);
}

ValueSet Flow::leaf(TSNode node, FlowValue::Kind kind) {
  ValueSet out;
  out.values.push_back({kind, node});
  return out;
}

ValueSet Flow::unknown() {
  ValueSet out;
  out.unknown = true;
  return out;
}

ValueSet Flow::compute(TSNode expr, int depth) {
  analysis::NodeKind kind = kindOf(expr);
  if (kind == kind::identifier) return nameValues(expr, depth);
  if (kind == kind::conditional_expression && ts_node_named_child_count(expr) == 3) {
    ValueSet out = values(ts_node_named_child(expr, 0), depth + 1);
    add(out, values(ts_node_named_child(expr, 2), depth + 1));
    return out;
  }
  if (kind == kind::boolean_operator) {
    ValueSet out = values(fieldOf(expr, "left"), depth + 1);
    add(out, values(fieldOf(expr, "right"), depth + 1));
    return out;
  }
  if (kind == kind::named_expression) return values(fieldOf(expr, "value"), depth + 1);
  if (kind == kind::attribute) return attributeValues(expr, depth);
  if (kind == kind::subscript) return subscriptValues(expr, depth);
  if (kind == kind::call) return callValues(expr, depth);
  return leaf(expr);
}

ValueSet Flow::nameValues(TSNode name, int depth) {
  const Binding* binding = model_.resolve(model_.text(name), name);
  if (binding == nullptr) return leaf(name);  // a builtin, or undefined
  const auto* all = model_.bindingsOf(*binding->scope, binding->name);
  if (all == nullptr || all->empty()) return leaf(name);
  bool declarations_only = std::all_of(all->begin(), all->end(), [](const Binding* b) {
    return b->kind == BindingKind::Import || b->kind == BindingKind::Function || b->kind == BindingKind::Class;
  });
  if (declarations_only) return leaf(name);
  if (all->size() > kMaxSites) return unknown();
  std::vector<Site> sites;
  for (const Binding* b : *all) sites.push_back({b->name_node, b->statement});
  ValueSet out;
  bool same_scope = flowsInScope(name, *binding->scope);
  std::vector<size_t> reaching = same_scope ? reachingSites(sites, name, binding->scope->node) : allSites(sites);
  if (reaching.empty()) return unknown();
  for (size_t i : reaching) add(out, bindingValues(*(*all)[i], depth));
  return out;
}

bool Flow::flowsInScope(TSNode use, const Scope& scope) {
  for (const Scope* s = &model_.scopeAt(use); s != nullptr; s = s->parent) {
    if (s == &scope) return true;
    if (s->kind != Scope::Kind::Comprehension) return false;
  }
  return false;
}

std::vector<size_t> Flow::allSites(const std::vector<Site>& sites) {
  std::vector<size_t> out(sites.size());
  for (size_t i = 0; i < sites.size(); ++i) out[i] = i;
  return out;
}

bool Flow::foreign(const Site& site, TSNode owner) {
  for (TSNode up = ts_node_parent(site.target); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (sameNode(up, owner)) return false;
    if (isKind(up, kind::function_definition) || isKind(up, kind::lambda)) return true;
  }
  return false;
}

bool Flow::inComprehensionOf(const Site& site, uint32_t pos) {
  if (!isKind(site.statement, kind::for_in_clause)) return false;
  TSNode comprehension = ts_node_parent(site.statement);
  return containsPos(comprehension, pos);
}

bool Flow::precedes(const Site& site, uint32_t pos) {
  if (startOf(site.target) >= pos) return false;
  TSNode statement = site.statement;
  if (!containsPos(statement, pos)) return true;
  analysis::NodeKind kind = kindOf(statement);
  if (kind == kind::for_statement) return containsPos(fieldOf(statement, "body"), pos);
  if (kind == kind::except_clause || kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda)
    return true;
  return false;  // an assignment whose right side holds the point
}

bool Flow::dominates(const Site& site, uint32_t pos) {
  TSNode statement = site.statement;
  analysis::NodeKind kind = kindOf(statement);
  if (kind == kind::for_statement) return containsPos(fieldOf(statement, "body"), pos);
  if (kind == kind::for_in_clause) return inComprehensionOf(site, pos);
  if (kind == kind::except_clause) return containsPos(statement, pos);
  TSNode anchor = anchorOf(statement);
  if (isKind(statement, kind::as_pattern) && isKind(anchor, kind::with_statement) && containsPos(fieldOf(anchor, "body"), pos))
    return true;
  if (kind == kind::named_expression && !sameNode(anchor, statement)) return false;  // in a condition
  TSNode container = ts_node_parent(anchor);
  return !ts_node_is_null(container) && containsPos(container, pos) && endOf(anchor) <= pos;
}

std::vector<size_t> Flow::reachingSites(const std::vector<Site>& sites, TSNode use, TSNode owner) {
  uint32_t pos = startOf(use);
  std::vector<size_t> before, after, out;
  for (size_t i = 0; i < sites.size(); ++i) {
    const Site& s = sites[i];
    if (foreign(s, owner)) out.push_back(i);
    else if (inComprehensionOf(s, pos) || precedes(s, pos)) before.push_back(i);
    else after.push_back(i);
  }
  std::vector<size_t> dominators;
  for (size_t i : before)
    if (dominates(sites[i], pos)) dominators.push_back(i);
  for (size_t i : before) {
    bool killed = false;
    for (size_t d : dominators)
      killed = killed || (d != i && startOf(sites[d].target) > startOf(sites[i].target) &&
                          !containsPos(sites[d].statement, startOf(sites[i].target)));
    if (!killed) out.push_back(i);
  }
  // A binding later in a loop that holds the use reaches it through the next iteration, unless
  // a binding inside that loop dominates the use.
  for (size_t i : after) {
    TSNode loop{};
    for (TSNode up = ts_node_parent(sites[i].target); !ts_node_is_null(up); up = ts_node_parent(up)) {
      if (sameNode(up, owner) || isScopeBoundary(up)) break;
      if (isLoop(up) && containsPos(up, pos)) {
        TSNode iterable = isKind(up, kind::for_statement) ? fieldOf(up, "right") : TSNode{};
        if (!ts_node_is_null(iterable) && containsPos(iterable, pos)) continue;
        loop = up;
        break;
      }
    }
    if (ts_node_is_null(loop)) continue;
    bool killed = false;
    for (size_t d : dominators) killed = killed || containsPos(loop, startOf(sites[d].target));
    if (!killed) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ValueSet Flow::parameterValues(const Binding& b, int depth) {
  ValueSet out = unknown();
  TSNode def = b.statement;
  if (!isKind(def, kind::function_definition) || !harmlessDecorators(def)) return out;
  // A method's parameter is followed only for `__init__`, to the calls of its class
  // (`Trainer(model, loader)`), whose arguments skip `self`.
  TSNode owner_class = classOfMethod(def);
  if (!ts_node_is_null(owner_class) && model_.text(fieldOf(def, "name")) != "__init__") return out;
  TSNode called = ts_node_is_null(owner_class) ? def : owner_class;
  size_t skipped = ts_node_is_null(owner_class) ? 0 : 1;
  // The parameter's position among the plain ones, and its default.
  size_t slot = 0, position = SIZE_MAX;
  TSNode default_value{};
  bool keyword_only = false;
  forEachNamedChild(fieldOf(def, "parameters"), [&](TSNode param) {
    if (position != SIZE_MAX) return;
    analysis::NodeKind kind = kindOf(param);
    if (kind == kind::list_splat_pattern || kind == kind::keyword_separator || kind == kind::dictionary_splat_pattern) {
      keyword_only = true;
      return;
    }
    if (kind == kind::positional_separator) return;
    TSNode name = kind == kind::identifier ? param : fieldOf(param, "name");
    if (kind == kind::typed_parameter) name = ts_node_named_child(param, 0);
    if (sameNode(name, b.name_node)) {
      position = keyword_only ? SIZE_MAX - 1 : slot;
      if (kind == kind::default_parameter || kind == kind::typed_default_parameter) default_value = fieldOf(param, "value");
      return;
    }
    ++slot;
  });
  if (position == SIZE_MAX || (skipped > 0 && position == 0)) return out;
  if (position != SIZE_MAX - 1) position -= skipped;
  const FileIndex& idx = index();
  auto it = idx.calls.find(std::string(model_.text(fieldOf(called, "name"))));
  if (it == idx.calls.end()) return out;
  for (TSNode call : it->second) {
    TSNode function = fieldOf(call, "function");
    const Binding* callee = model_.resolve(model_.text(function), function);
    if (callee == nullptr || !sameNode(callee->statement, called)) continue;
    TSNode arg = keyword(call, b.name, source_);
    if (ts_node_is_null(arg)) {
      if (hasSplat(call)) continue;  // `*args` / `**kwargs`: already unknown
      auto args = positional(call);
      if (position < args.size()) arg = args[position];
      else arg = default_value;
    }
    if (!ts_node_is_null(arg)) add(out, values(arg, depth + 1));
  }
  return out;
}

ValueSet Flow::bindingValues(const Binding& b, int depth) {
  switch (b.kind) {
    case BindingKind::Import:
    case BindingKind::Function:
    case BindingKind::Class:
      return leaf(b.name_node);
    case BindingKind::Parameter:
      return parameterValues(b, depth);
    case BindingKind::Assignment:
      if (ts_node_is_null(b.value)) return unknown();
      return values(b.value, depth + 1);
    case BindingKind::Other:
      return siteValues({b.name_node, b.statement}, depth);
  }
  return unknown();
}

ValueSet Flow::siteValues(const Site& site, int depth) {
  TSNode statement = site.statement;
  analysis::NodeKind kind = kindOf(statement);
  if (kind == kind::for_statement || kind == kind::for_in_clause) return leaf(statement, FlowValue::Kind::LoopTarget);
  if (kind == kind::assignment) {
    TSNode left = fieldOf(statement, "left");
    TSNode right = fieldOf(statement, "right");
    while (isKind(right, kind::assignment)) right = fieldOf(right, "right");
    if (sameNode(unparenthesize(left), site.target)) return values(right, depth + 1);
    // `a, b = x, y`: element by element when both sides are flat and of one length.
    TSNode element = elementFor(left, unparenthesize(right), site.target);
    if (!ts_node_is_null(element)) return values(element, depth + 1);
    if (ts_node_is_null(right)) return unknown();
    // `train, val = get_loaders()` where the function returns `a, b`: the element of each
    // tuple the right side may be; any other value stays a part of the right side.
    ValueSet out;
    bool unpacked = false, other = sourcesUnknown(right, depth);
    for (const FlowValue& v : values(right, depth + 1).values) {
      TSNode e = v.kind == FlowValue::Kind::Expression ? elementFor(left, v.node, site.target) : TSNode{};
      if (ts_node_is_null(e)) {
        other = true;
        continue;
      }
      unpacked = true;
      add(out, values(e, depth + 1));
    }
    if (!unpacked) return leaf(right, FlowValue::Kind::Part);
    if (other) addValue(out, {FlowValue::Kind::Part, right});
    return out;
  }
  if (kind == kind::as_pattern) {
    TSNode item = ts_node_parent(statement);
    if (isKind(item, kind::with_item)) return leaf(ts_node_named_child(statement, 0), FlowValue::Kind::Entered);
  }
  return unknown();  // augmented assignment, `except ... as`, `match` captures
}

TSNode Flow::elementFor(TSNode left, TSNode right, TSNode target) {
  auto flat = [](TSNode node) {
    std::vector<TSNode> out;
    analysis::NodeKind kind = kindOf(node);
    if (kind != kind::pattern_list && kind != kind::tuple_pattern && kind != kind::list_pattern && kind != kind::expression_list &&
        kind != kind::tuple && kind != kind::list)
      return out;
    forEachNamedChild(node, [&](TSNode child) {
      if (!isKind(child, kind::comment)) out.push_back(child);
    });
    return out;
  };
  auto targets = flat(unparenthesize(left));
  auto sources = flat(right);
  if (targets.empty() || targets.size() != sources.size()) return {};
  for (size_t i = 0; i < targets.size(); ++i) {
    if (isKind(targets[i], kind::list_splat_pattern) || isKind(sources[i], kind::list_splat)) return {};
  }
  for (size_t i = 0; i < targets.size(); ++i)
    if (sameNode(targets[i], target)) return sources[i];
  return {};
}

ValueSet Flow::callValues(TSNode call, int depth) {
  TSNode function = unparenthesize(fieldOf(call, "function"));
  TSNode def{};
  if (isKind(function, kind::identifier)) {
    const Binding* b = model_.resolve(model_.text(function), function);
    if (b != nullptr && b->kind == BindingKind::Function) {
      const auto* all = model_.bindingsOf(*b->scope, b->name);
      if (all != nullptr && all->size() == 1) def = b->statement;
    }
  } else if (isKind(function, kind::attribute)) {
    // `self.helper()`: a method of the class.
    TSNode object = unparenthesize(fieldOf(function, "object"));
    TSNode method = isKind(object, kind::identifier) ? enclosingMethod(call) : TSNode{};
    TSNode self = ts_node_is_null(method) ? TSNode{} : firstParameterNode(method);
    if (!ts_node_is_null(self) && model_.text(self) == model_.text(object)) {
      const Binding* b = model_.resolve(model_.text(object), object);
      if (b != nullptr && sameNode(b->name_node, self)) {
        std::string_view name = model_.text(fieldOf(function, "attribute"));
        int count = 0;
        forEachNamedChild(fieldOf(classOfMethod(method), "body"), [&](TSNode statement) {
          TSNode d = isKind(statement, kind::decorated_definition) ? fieldOf(statement, "definition") : statement;
          if (isKind(d, kind::function_definition) && model_.text(fieldOf(d, "name")) == name) {
            def = d;
            ++count;
          }
        });
        if (count != 1) def = TSNode{};
      }
    }
  }
  if (ts_node_is_null(def) || !isKind(def, kind::function_definition)) {
    if (auto across = projectCallValues(function)) return *across;
    return leaf(call);
  }
  return returns(def, depth + 1);
}

std::optional<ValueSet> Flow::projectCallValues(TSNode function) {
  if (cache_.project == nullptr) return std::nullopt;
  auto qualified = importedName(model_, function);
  if (!qualified) return std::nullopt;
  auto found = cache_.project->definition(*qualified);
  if (!found || found->model == nullptr || !isKind(found->node, kind::function_definition)) return std::nullopt;
  // The helper's own file answers (its imports, constants and branches); one file away only.
  ValueSet there = returnValues(*found->model, found->node);
  for (FlowValue& v : there.values)
    if (v.model == nullptr) v.model = found->model;
  return there;
}

bool Flow::harmlessDecorators(TSNode def) {
  TSNode decorated = ts_node_parent(def);
  if (!isKind(decorated, kind::decorated_definition)) return true;
  bool ok = true;
  forEachNamedChild(decorated, [&](TSNode d) {
    if (!isKind(d, kind::decorator)) return;
    TSNode expr = ts_node_named_child(d, 0);
    if (isKind(expr, kind::call)) expr = fieldOf(expr, "function");
    std::string_view text = model_.text(expr);
    if (text == "staticmethod" || text == "classmethod" || text == "property") return;
    auto name = model_.qualifiedName(expr);
    // Decorators that call the function with its own arguments and return what it returns.
    static constexpr std::string_view kPassThrough[] = {
        "functools.cache", "functools.lru_cache", "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
        "torch.amp.autocast", "torch.compile", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"};
    if (name && std::find(std::begin(kPassThrough), std::end(kPassThrough), *name) != std::end(kPassThrough)) return;
    ok = false;
  });
  return ok;
}

ValueSet Flow::computeReturns(TSNode def, int depth) {
  TSNode body = fieldOf(def, "body");
  if (ts_node_is_null(body) || !harmlessDecorators(def)) return unknown();
  // `async def` returns a coroutine.
  if (model_.text(def).starts_with("async")) return unknown();
  ValueSet out;
  bool gives_up = false;
  walkTree(
      body,
      [&](TSNode node) {
        if (gives_up) return false;
        analysis::NodeKind kind = kindOf(node);
        if (isScopeBoundary(node) || kind == kind::string || kind == kind::comment) return false;
        if (kind == kind::yield) {
          gives_up = true;
          return false;
        }
        if (kind == kind::return_statement) {
          TSNode value = ts_node_named_child(node, 0);
          if (ts_node_is_null(value)) out.unknown = true;
          else add(out, values(value, depth + 1));
        }
        return true;
      },
      [](TSNode) {});
  if (gives_up) return unknown();
  if (!alwaysExits(body)) out.unknown = true;  // falls off the end: None
  return out;
}

}  // namespace flow_detail

namespace {

const int& cacheTag() {
  static const int kTag = 0;
  return kTag;
}

const flow_detail::FlowCache& cacheOf(const SemanticModel& model) {
  return model.perFileAnalysis<flow_detail::FlowCache>(&cacheTag(), [] { return std::make_shared<const flow_detail::FlowCache>(); });
}

}  // namespace

std::optional<std::string> importedName(const SemanticModel& model, TSNode expr) {
  // `get_device` for an imported name, `utils.get_device` for an imported module.
  expr = unparenthesize(expr);
  TSNode head = expr;
  while (isKind(head, kind::attribute)) head = unparenthesize(fieldOf(head, "object"));
  if (!isKind(head, kind::identifier)) return std::nullopt;
  const Binding* b = model.resolve(model.text(head), head);
  if (b == nullptr || b->kind != BindingKind::Import || b->qualified_name.empty()) return std::nullopt;
  const auto* all = model.bindingsOf(*b->scope, b->name);
  if (all == nullptr || all->size() != 1) return std::nullopt;  // rebound: which one is meant is unknown
  std::string qualified = b->qualified_name;
  if (!sameNode(head, expr)) {
    std::string_view full = model.text(expr), bound = model.text(head);
    for (char c : full)
      if (c == ' ' || c == '\t' || c == '\n' || c == '\\' || c == '(' || c == '#') return std::nullopt;
    qualified += full.substr(bound.size());
  }
  return qualified;
}

void useProjectFunctions(const SemanticModel& model, std::shared_ptr<const ProjectFunctions> functions) {
  model.perFileAnalysis<flow_detail::FlowCache>(&cacheTag(), [&] {
    auto cache = std::make_shared<flow_detail::FlowCache>();
    cache->project = std::move(functions);
    return std::shared_ptr<const flow_detail::FlowCache>(std::move(cache));
  });
}

ValueSet valuesOf(const SemanticModel& model, TSNode expr) {
  flow_detail::Flow flow(model, cacheOf(model));
  return flow.values(expr, 0);
}

ValueSet returnValues(const SemanticModel& model, TSNode function_definition) {
  if (!isKind(function_definition, kind::function_definition)) {
    ValueSet out;
    out.unknown = true;
    return out;
  }
  flow_detail::Flow flow(model, cacheOf(model));
  return flow.returns(function_definition, 0);
}

}  // namespace ptlint::analysis
