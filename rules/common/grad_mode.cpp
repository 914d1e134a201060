#include "rules/common/grad_mode.h"

#include <array>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/common/blocks.h"
#include "rules/common/training_loops.h"
#include "rules/helpers.h"

namespace ptlint::rules {

using analysis::fieldOf;
using analysis::isKind;

namespace {

constexpr std::array<std::string_view, 8> kGradWords{"no_grad",  "inference_mode", "set_grad_enabled", "enable_grad",
                                                     "requires_grad_", "backward", "autograd", "grad"};

bool insideImport(TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (isKind(n, kind::import_statement) || isKind(n, kind::import_from_statement) || isKind(n, kind::future_import_statement))
      return true;
    if (isKind(n, kind::block) || isKind(n, kind::module)) return false;
  }
  return false;
}

}  // namespace

bool isGradModeCall(const analysis::SemanticModel& model, TSNode expr) {
  expr = analysis::unparenthesize(expr);
  if (isKind(expr, kind::call)) expr = fieldOf(expr, "function");
  auto name = model.qualifiedName(expr);
  if (!name) return false;
  return *name == "torch.no_grad" || *name == "torch.inference_mode" || *name == "torch.set_grad_enabled" ||
         *name == "torch.autograd.grad_mode.no_grad" || *name == "torch.autograd.grad_mode.inference_mode" ||
         *name == "torch.autograd.no_grad" || *name == "torch.autograd.grad_mode.set_grad_enabled";
}

bool underGradModeBlock(const analysis::SemanticModel& model, TSNode node) {
  for (TSNode item : enclosingWithItems(node))
    if (isGradModeCall(model, item)) return true;
  return false;
}

bool decoratedWithGradMode(const analysis::SemanticModel& model, TSNode function) {
  TSNode decorated = ts_node_parent(function);
  if (!isKind(decorated, kind::decorated_definition)) return false;
  bool found = false;
  analysis::forEachNamedChild(decorated, [&](TSNode child) {
    if (isKind(child, kind::decorator) && ts_node_named_child_count(child) > 0 &&
        isGradModeCall(model, ts_node_named_child(child, 0)))
      found = true;
  });
  return found;
}

bool spellsGradWords(TSNode node, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      node,
      [&](TSNode n) {
        if (found) return false;
        if (isKind(n, kind::identifier)) {
          std::string_view text = analysis::textOf(n, source);
          for (std::string_view word : kGradWords) found = found || text == word;
        }
        return !found;
      },
      [](TSNode) {});
  return found;
}

FunctionUse functionUseAt(const analysis::SemanticModel& model, TSNode name) {
  FunctionUse out;
  TSNode node = name;
  TSNode parent = ts_node_parent(node);
  if (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), node)) {
    node = parent;
    parent = ts_node_parent(node);
  }
  if (!isKind(parent, kind::call) || !analysis::sameNode(fieldOf(parent, "function"), node)) {
    // Passed as a value (a callback, a hook): its caller is unknown.
    out.grad_off_or_unknown = true;
    return out;
  }
  out.called = true;
  if (underGradModeBlock(model, parent)) out.grad_off_or_unknown = true;
  TSNode caller = enclosingFunctionOrModule(parent);
  if (isKind(caller, kind::function_definition) &&
      (decoratedWithGradMode(model, caller) || spellsGradWords(fieldOf(caller, "body"), model.file().text())))
    out.grad_off_or_unknown = true;
  return out;
}

TSNode runAfterEvalMode(const analysis::SemanticModel& model, TSNode call) {
  std::string_view source = model.file().text();
  if (methodName(call, source) != "eval" || ts_node_named_child_count(argumentList(call)) != 0) return {};
  if (!isKind(enclosingStatement(call), kind::expression_statement)) return {};  // `model.eval()` as a statement
  TSNode function = enclosingFunctionOrModule(call);
  if (!isKind(function, kind::function_definition)) return {};
  if (analysis::textOf(fieldOf(function, "name"), source).starts_with("test")) return {};  // a test's graphs are its own
  TSNode receiver = fieldOf(fieldOf(call, "function"), "object");
  if (!isKind(receiver, kind::identifier) && !isKind(receiver, kind::attribute)) return {};
  std::string_view name = analysis::textOf(receiver, source);
  TSNode body = fieldOf(function, "body");
  if (spellsGradWords(body, source) || decoratedWithGradMode(model, function)) return {};
  TSNode first{};
  analysis::walkTree(
      body,
      [&](TSNode n) {
        if (!ts_node_is_null(first) || isCodeBoundary(n)) return false;
        if (isKind(n, kind::call) && analysis::startOf(n) > analysis::endOf(call) &&
            analysis::textOf(fieldOf(n, "function"), source) == name && !underGradModeBlock(model, n) &&
            !insideAssertion(n, source))
          first = n;
        return ts_node_is_null(first);
      },
      [](TSNode) {});
  return first;
}

std::vector<std::string> evaluationModeFunctions(const analysis::SemanticModel& model) {
  std::vector<std::string> out;
  std::string_view source = model.file().text();
  TSNode root = model.file().root();
  analysis::forEachWholeWord(source, "eval", [&](size_t at) {
    TSNode word = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at), static_cast<uint32_t>(at + 4));
    TSNode attribute = ts_node_parent(word);
    if (!isKind(attribute, kind::attribute) || !analysis::sameNode(fieldOf(attribute, "attribute"), word)) return false;
    TSNode call = ts_node_parent(attribute);
    if (!isKind(call, kind::call) || !analysis::sameNode(fieldOf(call, "function"), attribute)) return false;
    if (ts_node_is_null(runAfterEvalMode(model, call))) return false;
    TSNode function = enclosingFunctionOrModule(call);
    TSNode holder = ts_node_parent(function);
    if (isKind(holder, kind::decorated_definition)) holder = ts_node_parent(holder);
    if (!isKind(holder, kind::module)) return false;  // top-level functions only
    std::string name(analysis::textOf(fieldOf(function, "name"), source));
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    return false;
  });
  return out;
}

std::vector<ImportedUse> importedUses(const analysis::SemanticModel& model, const std::vector<std::string>& names) {
  std::vector<ImportedUse> out;
  std::string_view source = model.file().text();
  TSNode root = model.file().root();
  for (const std::string& wanted : names) {
    analysis::forEachWholeWord(source, wanted, [&](size_t at) {
      TSNode word = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at),
                                                      static_cast<uint32_t>(at + wanted.size()));
      if (!isKind(word, kind::identifier) || analysis::startOf(word) != at || insideImport(word)) return false;
      TSNode parent = ts_node_parent(word);
      TSNode expr = word;
      if (isKind(parent, kind::attribute)) {
        if (!analysis::sameNode(fieldOf(parent, "attribute"), word)) return false;  // `evaluate.x`
        expr = parent;
      } else if (isKind(parent, kind::keyword_argument) && analysis::sameNode(fieldOf(parent, "name"), word)) {
        return false;
      } else if ((isKind(parent, kind::function_definition) || isKind(parent, kind::class_definition)) &&
                 analysis::sameNode(fieldOf(parent, "name"), word)) {
        return false;
      }
      auto qualified = model.qualifiedName(expr);
      if (!qualified) return false;  // not reached through an import
      out.push_back({std::move(*qualified), functionUseAt(model, word), analysis::startOf(word), analysis::endOf(word)});
      return false;
    });
  }
  return out;
}

}  // namespace ptlint::rules
