#include "rules/common/dropout_values.h"

#include <cstdlib>
#include <string>

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/common/module_methods.h"
#include "rules/helpers.h"

namespace ptlint::rules {

using analysis::fieldOf;
using analysis::isKind;

namespace {

std::optional<double> numberLiteral(TSNode node, std::string_view source) {
  node = analysis::unparenthesize(node);
  if (!isKind(node, kind::integer) && !isKind(node, kind::float_)) return std::nullopt;
  std::string text(analysis::textOf(node, source));
  std::erase(text, '_');
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return value;
}

// The identifier at the root of an attribute chain (`self` in `self.config.p`), or null when the
// chain passes through a call or a subscript.
TSNode chainRoot(TSNode node) {
  while (isKind(node, kind::attribute)) node = fieldOf(node, "object");
  return isKind(node, kind::identifier) ? node : TSNode{};
}

bool modeBlind(const analysis::SemanticModel& model, TSNode value, TSNode cls, std::string_view self, int depth) {
  if (depth > 6 || ts_node_is_null(value)) return false;
  std::string_view source = model.file().text();
  value = analysis::unparenthesize(value);
  if (auto number = numberLiteral(value, source)) return *number != 0.0;
  if (isKind(value, kind::attribute)) {
    TSNode root = chainRoot(value);
    if (ts_node_is_null(root) || model.text(root) != self) return false;
    // A module's own attribute's binding is a parameter of `self`: the chain's root must be it.
    const analysis::Binding* binding = model.resolve(self, root);
    if (binding == nullptr || binding->kind != analysis::BindingKind::Parameter) return false;
    if (isKind(fieldOf(value, "object"), kind::identifier)) {
      // `self.p`: known only when the class binds it once, and not a property computing it.
      std::string_view attr = model.text(fieldOf(value, "attribute"));
      if (classDefinesMethod(cls, attr, source)) return false;
      TSNode bound = selfAttributeValue(model, value);
      if (ts_node_is_null(bound) || mentionsTraining(bound, source)) return false;
      bound = analysis::unparenthesize(bound);
      if (auto number = numberLiteral(bound, source)) return *number != 0.0;
      return true;  // a constructor argument, a config value: fixed for the module's life
    }
    return true;  // `self.config.attn_pdrop`, `self.drop.p`
  }
  if (isKind(value, kind::identifier)) {
    const analysis::Binding* binding = model.resolve(model.text(value), value);
    if (binding == nullptr || binding->kind != analysis::BindingKind::Assignment) return false;
    TSNode bound = analysis::singleAssignedValue(model, value);
    if (ts_node_is_null(bound) || mentionsTraining(bound, source)) return false;
    return modeBlind(model, bound, cls, self, depth + 1);
  }
  return false;
}

}  // namespace

bool isZeroProbability(const analysis::SemanticModel& model, TSNode value) {
  if (ts_node_is_null(value)) return false;
  auto number = numberLiteral(analysis::resolveValue(model, value), model.file().text());
  return number && *number == 0.0;
}

bool isModeBlindProbability(const analysis::SemanticModel& model, TSNode value, TSNode cls, std::string_view self) {
  return modeBlind(model, value, cls, self, 0);
}

}  // namespace ptlint::rules
