#include "rules/common/module_methods.h"

#include <string_view>

#include "analysis/syntax.h"
#include "rules/helpers.h"

namespace ptlint::rules {

using analysis::fieldOf;
using analysis::isKind;

namespace {

TSNode classOfDefinition(TSNode def) {
  TSNode up = ts_node_parent(def);
  if (isKind(up, kind::decorated_definition)) up = ts_node_parent(up);
  if (!isKind(up, kind::block)) return {};
  up = ts_node_parent(up);
  return isKind(up, kind::class_definition) ? up : TSNode{};
}

bool derivesFromModule(const analysis::SemanticModel& model, TSNode cls, int depth) {
  if (depth > 8 || ts_node_is_null(cls)) return false;
  TSNode bases = fieldOf(cls, "superclasses");
  if (ts_node_is_null(bases)) return false;
  bool found = false;
  analysis::forEachNamedChild(bases, [&](TSNode base) {
    if (found || isKind(base, kind::keyword_argument)) return;
    if (auto name = model.qualifiedName(base)) {
      std::string_view q = *name;
      found = q.starts_with("torch.nn.") || q == "pytorch_lightning.LightningModule" ||
              q == "lightning.LightningModule" || q == "lightning.pytorch.LightningModule" ||
              q == "pytorch_lightning.core.LightningModule" || q == "lightning.pytorch.core.LightningModule";
      return;
    }
    if (!isKind(base, kind::identifier)) return;
    const analysis::Binding* binding = model.resolve(model.text(base), base);
    if (binding != nullptr && binding->kind == analysis::BindingKind::Class)
      found = derivesFromModule(model, binding->statement, depth + 1);
  });
  return found;
}

}  // namespace

TSNode enclosingMethod(TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (isKind(up, kind::class_definition)) return {};
    if (isKind(up, kind::function_definition) && !ts_node_is_null(classOfDefinition(up))) return up;
  }
  return {};
}

TSNode classOfMethod(TSNode method) { return classOfDefinition(method); }

bool isTorchModuleClass(const analysis::SemanticModel& model, TSNode cls) {
  if (isKind(cls, kind::class_definition)) return derivesFromModule(model, cls, 0);
  return false;
}

bool mentionsTraining(TSNode node, std::string_view source) {
  if (ts_node_is_null(node)) return false;
  std::string_view text = analysis::textOf(node, source);
  if (text.find("training") == std::string_view::npos) return false;
  bool found = false;
  analysis::walkTree(
      node,
      [&](TSNode n) {
        if (found) return false;
        if (isKind(n, kind::identifier) && analysis::textOf(n, source) == "training") found = true;
        return !found && !isKind(n, kind::string) && !isKind(n, kind::comment);
      },
      [](TSNode) {});
  return found;
}

bool classDefinesMethod(TSNode cls, std::string_view name, std::string_view source) {
  bool found = false;
  analysis::forEachNamedChild(fieldOf(cls, "body"), [&](TSNode statement) {
    TSNode def = definitionOf(statement);
    if (isKind(def, kind::function_definition) && analysis::textOf(fieldOf(def, "name"), source) == name) found = true;
  });
  return found;
}

bool modeBlindModuleMethod(const analysis::SemanticModel& model, TSNode call, ModeBlindMethod& out) {
  TSNode method = enclosingMethod(call);
  if (ts_node_is_null(method)) return false;
  TSNode cls = classOfMethod(method);
  std::string_view source = model.file().text();
  // A static or class method has no instance whose mode could decide.
  if (TSNode decorated = ts_node_parent(method); isKind(decorated, kind::decorated_definition)) {
    std::string_view decorators = analysis::textOf(decorated, source).substr(0, analysis::startOf(method) - analysis::startOf(decorated));
    if (decorators.find("staticmethod") != std::string_view::npos || decorators.find("classmethod") != std::string_view::npos)
      return false;
  }
  if (!isTorchModuleClass(model, cls)) return false;
  if (mentionsTraining(fieldOf(method, "body"), source)) return false;
  if (classDefinesMethod(cls, "train", source) || classDefinesMethod(cls, "eval", source)) return false;
  std::string self = firstParameter(model, method);
  if (self.empty()) return false;
  out = {method, cls, std::move(self)};
  return true;
}

}  // namespace ptlint::rules
