#include "analysis/value_resolution.h"

#include "analysis/syntax.h"

namespace ptlint::analysis {

TSNode singleAssignedValue(const SemanticModel& model, TSNode name) {
  name = unparenthesize(name);
  if (!isKind(name, kind::identifier)) return {};
  const Binding* binding = model.resolve(model.text(name), name);
  if (binding == nullptr || binding->kind != BindingKind::Assignment || ts_node_is_null(binding->value)) return {};
  // Bound once in its scope: a second assignment, an augmented assignment, a `for` target or a
  // `global` rebinding elsewhere would each add a binding here.
  const auto* all = model.bindingsOf(*binding->scope, binding->name);
  if (all == nullptr || all->size() != 1) return {};
  return binding->value;
}

TSNode resolveValue(const SemanticModel& model, TSNode expr) {
  expr = unparenthesize(expr);
  for (int depth = 0; depth < 16; ++depth) {
    TSNode value = singleAssignedValue(model, expr);
    if (ts_node_is_null(value)) break;
    expr = unparenthesize(value);
  }
  return expr;
}

}  // namespace ptlint::analysis
