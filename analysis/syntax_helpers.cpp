#include "analysis/syntax_helpers.h"

#include "analysis/syntax.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "analysis/node_access.h"
#include "analysis/parse.h"

namespace ptlint::analysis {

TSNode fieldNamed(TSNode node, std::string_view field) {
  // The grammar's field names, sorted, with their ids (ids start at 1; 0 is no field).
  static const std::vector<std::pair<std::string_view, TSFieldId>> fields = [] {
    std::vector<std::pair<std::string_view, TSFieldId>> out;
    const TSLanguage* language = pythonLanguage();
    uint32_t count = ts_language_field_count(language);
    for (uint32_t id = 1; id <= count; ++id)
      if (const char* name = ts_language_field_name_for_id(language, static_cast<TSFieldId>(id)))
        out.emplace_back(name, static_cast<TSFieldId>(id));
    std::sort(out.begin(), out.end());
    return out;
  }();
  auto it = std::lower_bound(fields.begin(), fields.end(), field,
                             [](const std::pair<std::string_view, TSFieldId>& f, std::string_view name) { return f.first < name; });
  if (it == fields.end() || it->first != field) return ts_node_child_by_field_id(node, 0);
  return ts_node_child_by_field_id(node, it->second);
}

std::string dottedNameText(TSNode node, std::string_view source) {
  if (!isKind(node, kind::dotted_name)) return std::string(textOf(node, source));
  std::string out;
  forEachNamedChild(node, [&](TSNode part) {
    if (!out.empty()) out += '.';
    out += textOf(part, source);
  });
  return out;
}

std::string attributeChainText(TSNode expr, std::string_view source) {
  std::vector<std::string_view> parts;
  expr = unparenthesize(expr);
  while (isKind(expr, kind::attribute)) {
    parts.push_back(textOf(fieldNamed(expr, "attribute"), source));
    expr = unparenthesize(fieldNamed(expr, "object"));
  }
  if (!isKind(expr, kind::identifier)) return {};
  std::string out(textOf(expr, source));
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    out += '.';
    out += *it;
  }
  return out;
}

TSNode argumentList(TSNode call) {
  TSNode args = fieldNamed(call, "arguments");
  return isKind(args, kind::argument_list) ? args : TSNode{};
}

TSNode keywordArgumentNode(TSNode call, std::string_view name, std::string_view source) {
  TSNode args = argumentList(call);
  if (ts_node_is_null(args)) return {};
  uint32_t count = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode arg = ts_node_named_child(args, i);
    if (isKind(arg, kind::keyword_argument) && textOf(fieldNamed(arg, "name"), source) == name) return arg;
  }
  return {};
}

TSNode keywordArgument(TSNode call, std::string_view name, std::string_view source) {
  TSNode kw = keywordArgumentNode(call, name, source);
  return ts_node_is_null(kw) ? TSNode{} : fieldNamed(kw, "value");
}

std::vector<TSNode> positionalArguments(TSNode call) {
  std::vector<TSNode> out;
  TSNode args = argumentList(call);
  if (ts_node_is_null(args)) return out;
  forEachNamedChild(args, [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind == kind::keyword_argument || kind == kind::list_splat || kind == kind::dictionary_splat || kind == kind::comment) return;
    out.push_back(arg);
  });
  return out;
}

bool hasNoArguments(TSNode call) {
  TSNode args = argumentList(call);
  if (ts_node_is_null(args)) return false;
  bool any = false;
  forEachNamedChild(args, [&](TSNode arg) { any = any || !isKind(arg, kind::comment); });
  return !any;
}

TSNode argumentFor(TSNode call, size_t position, std::string_view keyword, std::string_view source) {
  TSNode value = keywordArgument(call, keyword, source);
  if (!ts_node_is_null(value)) return value;
  auto positional = positionalArguments(call);
  return position < positional.size() ? positional[position] : TSNode{};
}

}  // namespace ptlint::analysis
