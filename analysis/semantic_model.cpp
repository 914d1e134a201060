#include "analysis/semantic_model.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/node_access.h"
#include "analysis/semantic_model_builder.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

SemanticModel::SemanticModel(const ParsedFile& file) : file_(file) {
  ModelBuilder(*this).build();
}

SemanticModel::SemanticModel(const ParsedFile& file, const std::function<void(TSNode)>& visit) : file_(file) {
  ModelBuilder(*this).build(&visit);
}

std::string_view SemanticModel::text(TSNode node) const { return textOf(node, file_.text()); }

bool SemanticModel::bindsBefore(const std::unique_ptr<Binding>& a, const std::unique_ptr<Binding>& b) {
  return startOf(a->name_node) < startOf(b->name_node);
}

void SemanticModel::mergeGrowth(size_t scopes_before, size_t bindings_before, size_t expressions_before) const {
  // What a walk added joins the orders: scopes by start, bindings by position, pending
  // expressions by start (they lie inside what was walked, apart from all the others).
  auto scopes_mid = scopes_.begin() + static_cast<long>(scopes_before);
  std::sort(scopes_mid, scopes_.end(), ModelBuilder::startsBefore);
  std::inplace_merge(scopes_.begin() + 1, scopes_mid, scopes_.end(), ModelBuilder::startsBefore);
  auto bindings_mid = bindings_.begin() + static_cast<long>(bindings_before);
  std::stable_sort(bindings_mid, bindings_.end(), bindsBefore);
  std::inplace_merge(bindings_.begin(), bindings_mid, bindings_.end(), bindsBefore);
  auto by_start = [](const PendingExpression& a, const PendingExpression& b) { return a.start < b.start; };
  auto expressions_mid = pending_expressions_.begin() + static_cast<long>(expressions_before);
  std::sort(expressions_mid, pending_expressions_.end(), by_start);
  std::inplace_merge(pending_expressions_.begin(), expressions_mid, pending_expressions_.end(), by_start);
}

void SemanticModel::completeScope(Scope& scope, bool reorder) const {
  if (!scope.body_pending) return;
  scope.body_pending = false;
  size_t scopes_before = scopes_.size(), bindings_before = bindings_.size();
  size_t expressions_before = pending_expressions_.size();
  ModelBuilder(const_cast<SemanticModel&>(*this)).buildChildren(scope.node, &scope);
  if (reorder) mergeGrowth(scopes_before, bindings_before, expressions_before);
}

void SemanticModel::completeExpression(size_t index, bool reorder) const {
  PendingExpression expression = pending_expressions_[index];
  pending_expressions_.erase(pending_expressions_.begin() + static_cast<long>(index));
  size_t scopes_before = scopes_.size(), bindings_before = bindings_.size();
  size_t expressions_before = pending_expressions_.size();
  ModelBuilder(const_cast<SemanticModel&>(*this)).buildChildren(expression.node, expression.parent);
  if (reorder) mergeGrowth(scopes_before, bindings_before, expressions_before);
}

void SemanticModel::completeAll() const {
  if (pending_.empty() && pending_expressions_.empty()) return;
  // Completing a body or an expression may leave what it holds for later: repeat until nothing
  // is left, then order everything once.
  while (!pending_.empty() || !pending_expressions_.empty()) {
    std::vector<Scope*> batch;
    batch.swap(pending_);
    for (Scope* scope : batch) completeScope(*scope, false);
    while (!pending_expressions_.empty()) completeExpression(pending_expressions_.size() - 1, false);
  }
  std::sort(scopes_.begin() + 1, scopes_.end(), ModelBuilder::startsBefore);
  std::stable_sort(bindings_.begin(), bindings_.end(), bindsBefore);
}

const std::vector<std::unique_ptr<Scope>>& SemanticModel::scopes() const {
  std::lock_guard lock(lazy_mutex_);
  completeAll();
  return scopes_;
}

const std::vector<std::unique_ptr<Binding>>& SemanticModel::bindings() const {
  std::lock_guard lock(lazy_mutex_);
  completeAll();
  return bindings_;
}

const Scope& SemanticModel::scopeAtLocked(uint32_t pos) const {
  for (;;) {
    // Scopes [1..] are sorted by start; the last one starting at or before `pos`, then out
    // until one contains it. A pending def around `pos` is walked first (its body, defaults
    // and annotations hold the scopes that may be the answer).
    auto it = std::upper_bound(scopes_.begin() + 1, scopes_.end(), pos,
                               [](uint32_t p, const auto& scope) { return p < scope->start; });
    // A pending expression around `pos` is walked a level down first (it may hold the answer).
    auto expression = std::upper_bound(pending_expressions_.begin(), pending_expressions_.end(), pos,
                                       [](uint32_t p, const PendingExpression& e) { return p < e.start; });
    if (expression != pending_expressions_.begin() && pos < std::prev(expression)->end) {
      completeExpression(static_cast<size_t>(std::prev(expression) - pending_expressions_.begin()));
      continue;
    }
    if (it == scopes_.begin() + 1) return *scopes_.front();
    Scope* candidate = std::prev(it)->get();
    Scope* pending = nullptr;
    for (Scope* s = candidate; s != nullptr; s = const_cast<Scope*>(s->parent))
      if (s->body_pending && s->start <= pos && pos < s->end) pending = s;
    if (pending != nullptr) {
      completeScope(*pending);
      continue;
    }
    const Scope* scope = candidate;
    while (scope->parent != nullptr && !scope->owns(pos)) scope = scope->parent;
    return *scope;
  }
}

const Scope& SemanticModel::scopeAt(TSNode node) const {
  std::lock_guard lock(lazy_mutex_);
  return scopeAtLocked(startOf(node));
}

const std::vector<const Binding*>* SemanticModel::bindingsOf(const Scope& scope, std::string_view name) const {
  {
    std::lock_guard lock(lazy_mutex_);
    if (scope.body_pending) completeScope(const_cast<Scope&>(scope));
  }
  auto it = scope.bindings.find(std::string(name));
  return it == scope.bindings.end() ? nullptr : &it->second;
}

const Binding* SemanticModel::resolve(std::string_view name, TSNode at) const {
  const Scope* start = &scopeAt(at);
  uint32_t pos = startOf(at);
  // `from`: where the lookup stands in `scope` — the use, then the start of the scope it came
  // out of. A scope that does not own that point evaluates it outside (a lambda in a default).
  uint32_t from = pos;
  for (const Scope* scope = start; scope != nullptr; from = scope->start, scope = scope->parent) {
    if (!scope->owns(from) && scope->parent != nullptr) continue;
    // A class body's names are not visible inside the functions nested in it.
    if (scope->kind == Scope::Kind::Class && scope != start) continue;
    const auto* found = bindingsOf(*scope, name);
    if (found == nullptr || found->empty()) continue;
    const Binding* before = nullptr;
    const Binding* first = nullptr;
    const Binding* fallback_only = nullptr;
    for (const Binding* b : *found) {
      if (b->is_fallback) {
        if (fallback_only == nullptr) fallback_only = b;
        continue;
      }
      if (first == nullptr) first = b;
      if (startOf(b->name_node) <= pos) before = b;
    }
    if (before != nullptr) return before;
    if (first != nullptr) return first;
    return fallback_only;
  }
  return nullptr;
}

std::optional<std::string> SemanticModel::qualifiedName(TSNode expr) const {
  return qualifiedNameImpl(expr, 0);
}

std::optional<std::string> SemanticModel::qualifiedNameImpl(TSNode expr, int depth) const {
  if (depth > 8) return std::nullopt;
  expr = unparenthesize(expr);
  // Collect the attribute chain iteratively: a.b.c -> base `a`, members [c, b].
  std::vector<std::string_view> members;
  while (isKind(expr, kind::attribute)) {
    members.push_back(text(fieldNamed(expr, "attribute")));
    expr = unparenthesize(fieldNamed(expr, "object"));
    if (members.size() > 64) return std::nullopt;
  }
  if (!isKind(expr, kind::identifier)) return std::nullopt;
  const Binding* binding = resolve(text(expr), expr);
  if (binding == nullptr) return std::nullopt;
  std::string base;
  if (binding->kind == BindingKind::Import) {
    base = binding->qualified_name;
  } else if (binding->kind == BindingKind::Assignment && !ts_node_is_null(binding->value)) {
    // `ac = torch.cuda.amp.autocast`: an alias, if the name is bound only here.
    const auto* all = bindingsOf(*binding->scope, binding->name);
    if (all == nullptr || all->size() != 1) return std::nullopt;
    TSNode value = unparenthesize(binding->value);
    if (!isKind(value, kind::identifier) && !isKind(value, kind::attribute)) return std::nullopt;
    auto resolved = qualifiedNameImpl(value, depth + 1);
    if (!resolved) return std::nullopt;
    base = *resolved;
  } else {
    return std::nullopt;
  }
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    base += '.';
    base += *it;
  }
  return canonicalQualifiedName(std::move(base));
}

bool SemanticModel::refersTo(TSNode expr, std::string_view qualified) const {
  auto name = qualifiedName(expr);
  return name && *name == qualified;
}

std::optional<std::string> SemanticModel::calleeName(TSNode call) const {
  if (!isKind(call, kind::call)) return std::nullopt;
  return qualifiedName(fieldNamed(call, "function"));
}

bool SemanticModel::importsModule(std::string_view module) const {
  for (const Binding* b : imports_) {
    std::string_view q = b->qualified_name;
    if (q == module || (q.size() > module.size() && q.substr(0, module.size()) == module && q[module.size()] == '.'))
      return true;
  }
  return false;
}

std::optional<std::string> SemanticModel::visibleNameFor(std::string_view qualified, TSNode at) const {
  // Prefer the conventional spelling, then any alias bound at module level.
  std::string last_segment(qualified.substr(qualified.rfind('.') == std::string_view::npos ? 0 : qualified.rfind('.') + 1));
  const Binding* b = resolve(last_segment, at);
  if (b != nullptr && b->kind == BindingKind::Import && b->qualified_name == qualified) return last_segment;
  for (const Binding* binding : imports_) {
    if (binding->qualified_name != qualified) continue;
    const Binding* seen = resolve(binding->name, at);
    if (seen == binding) return binding->name;
  }
  return std::nullopt;
}

std::string canonicalQualifiedName(std::string name) {
  // Re-exports that PyTorch documents under a shorter public path. Prefix match on whole
  // segments; the first match wins.
  static const std::array<std::pair<std::string_view, std::string_view>, 15> kReexports{{
      {"torch.autocast", "torch.amp.autocast"},
      {"torch.GradScaler", "torch.amp.GradScaler"},
      {"torch.amp.autocast_mode.autocast", "torch.amp.autocast"},
      {"torch.amp.grad_scaler.GradScaler", "torch.amp.GradScaler"},
      {"torch.cuda.amp.autocast_mode", "torch.cuda.amp"},
      {"torch.cuda.amp.grad_scaler", "torch.cuda.amp"},
      {"torch.cpu.amp.autocast_mode", "torch.cpu.amp"},
      {"torch.cpu.amp.grad_scaler", "torch.cpu.amp"},
      {"torch.nn.parallel.distributed.DistributedDataParallel", "torch.nn.parallel.DistributedDataParallel"},
      {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.DistributedDataParallel"},
      {"torch.utils.data.dataloader.DataLoader", "torch.utils.data.DataLoader"},
      {"torch.nn.modules.activation.Softmax", "torch.nn.Softmax"},
      {"torch.nn.modules.dropout.Dropout", "torch.nn.Dropout"},
      {"torch.functional.einsum", "torch.einsum"},
      {"torch._C._nn.scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"},
  }};
  for (const auto& [from, to] : kReexports) {
    if (name.size() >= from.size() && name.compare(0, from.size(), from) == 0 &&
        (name.size() == from.size() || name[from.size()] == '.')) {
      return std::string(to) + name.substr(from.size());
    }
  }
  return name;
}

}  // namespace ptlint::analysis
