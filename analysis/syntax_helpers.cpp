#include "analysis/syntax_helpers.h"

#include "analysis/syntax.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/node_access.h"
#include "analysis/parse.h"

namespace ptlint::analysis {

namespace detail {
const std::vector<uint16_t>& kindIndexBySymbol() {
  static const std::vector<uint16_t> table = [] {
    std::unordered_map<std::string_view, uint16_t> by_name;
    for (size_t i = 0; i < std::size(kAllNodeKinds); ++i) by_name.emplace(kAllNodeKinds[i].kind.name(), static_cast<uint16_t>(i));
    const TSLanguage* language = pythonLanguage();
    uint32_t count = ts_language_symbol_count(language);
    std::vector<uint16_t> out(count, NodeKind::kUnlisted);
    for (uint32_t symbol = 0; symbol < count; ++symbol) {
      const char* name = ts_language_symbol_name(language, static_cast<TSSymbol>(symbol));
      if (name == nullptr) continue;
      auto it = by_name.find(name);
      if (it != by_name.end()) out[symbol] = it->second;
    }
    return out;
  }();
  return table;
}
}  // namespace detail

namespace {
// The grammar's fields by name: open addressing over at least four slots per field, keyed by the
// length and the first and last bytes, so that most lookups compare one name.
class FieldTable {
 public:
  FieldTable() {
    const TSLanguage* language = pythonLanguage();
    uint32_t count = ts_language_field_count(language);
    size_t slots = 64;
    while (slots < 4 * static_cast<size_t>(count)) slots *= 2;
    slots_.resize(slots);
    for (uint32_t id = 1; id <= count; ++id) {
      const char* name = ts_language_field_name_for_id(language, static_cast<TSFieldId>(id));
      if (name == nullptr || *name == '\0') continue;
      size_t slot = slotOf(name);
      while (slots_[slot].second != 0) slot = (slot + 1) & (slots_.size() - 1);
      slots_[slot] = {name, static_cast<TSFieldId>(id)};
    }
  }
  TSFieldId find(std::string_view name) const {
    for (size_t slot = slotOf(name);; slot = (slot + 1) & (slots_.size() - 1)) {
      const auto& [known, id] = slots_[slot];
      if (id == 0) return 0;  // an empty slot: no such field
      if (known == name) return id;
    }
  }

 private:
  size_t slotOf(std::string_view name) const {
    if (name.empty()) return 0;
    return (name.size() * 73 + static_cast<unsigned char>(name.front()) * 31 + static_cast<unsigned char>(name.back())) &
           (slots_.size() - 1);
  }
  std::vector<std::pair<std::string_view, TSFieldId>> slots_;  // a power of two, never full
};
}  // namespace

TSFieldId fieldIdNamed(std::string_view field) {
  static const FieldTable table;
  return table.find(field);
}

TSNode fieldNamed(TSNode node, std::string_view field) { return ts_node_child_by_field_id(node, fieldIdNamed(field)); }

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
