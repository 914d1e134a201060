#include "rules/deprecated/call_rewrite.h"

#include <algorithm>

#include "analysis/syntax.h"
#include "rules/helpers.h"

namespace ptlint::rules::rewrite {

using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using quickfix::Edit;

TSNode baseOf(TSNode ref) {
  while (isKind(ref, kind::attribute)) ref = analysis::unparenthesize(fieldOf(ref, "object"));
  return ref;
}

std::string torchPrefix(TSNode ref, const analysis::SemanticModel& model, bool& needs_import) {
  needs_import = false;
  TSNode base = baseOf(ref);
  if (isKind(base, kind::identifier) && !analysis::sameNode(base, ref)) {
    const analysis::Binding* b = model.resolve(model.text(base), base);
    if (b != nullptr && b->kind == analysis::BindingKind::Import && b->qualified_name == "torch")
      return std::string(model.text(base));
  }
  return torchModuleName(model, ref, needs_import);
}

TSNode CallArgs::keywordValue(std::string_view name) const {
  for (const auto& [n, node] : keywords)
    if (n == name) return fieldOf(node, "value");
  return {};
}

std::optional<CallArgs> plainArguments(TSNode call, std::string_view source) {
  TSNode args = argumentList(call);
  if (ts_node_is_null(args) || !isKind(args, kind::argument_list)) return std::nullopt;
  CallArgs out;
  bool ok = true;
  analysis::forEachNamedChild(args, [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind == kind::comment || kind == kind::list_splat || kind == kind::dictionary_splat) ok = false;
    else if (kind == kind::keyword_argument) out.keywords.emplace_back(analysis::textOf(fieldOf(arg, "name"), source), arg);
    else out.positional.push_back(arg);
  });
  if (!ok) return std::nullopt;
  return out;
}

std::string asOperand(TSNode node, std::string_view source) {
  std::string text(analysis::textOf(node, source));
  analysis::NodeKind kind = kindOf(node);
  if (kind == kind::identifier || kind == kind::integer || kind == kind::float_ || kind == kind::attribute || kind == kind::call ||
      kind == kind::subscript || kind == kind::parenthesized_expression)
    return text;
  return "(" + text + ")";
}

std::string_view nodeText(TSNode node, std::string_view source) { return analysis::textOf(node, source); }

}  // namespace ptlint::rules::rewrite
