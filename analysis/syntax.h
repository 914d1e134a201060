// Small helpers over tree-sitter's C API. Nodes are plain TSNode values; text is always read
// from the source buffer by byte offsets, never copied into the tree.
#pragma once

#include <tree_sitter/api.h>

#include "analysis/node_kinds.h"  // generated from the grammar: kind::call, NodeKind

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace ptlint::analysis {

inline uint32_t startOf(TSNode node) { return ts_node_start_byte(node); }
inline uint32_t endOf(TSNode node) { return ts_node_end_byte(node); }

inline std::string_view textOf(TSNode node, std::string_view source) {
  if (ts_node_is_null(node)) return {};  // broken syntax leaves fields missing
  uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
  if (start > source.size()) return {};
  if (end > source.size()) end = static_cast<uint32_t>(source.size());
  return source.substr(start, end - start);
}

namespace detail {
// For each grammar symbol, the index in kAllNodeKinds of the constant named as the symbol is
// (NodeKind::kUnlisted for hidden rules), made once from the grammar (syntax_helpers.cpp).
const std::vector<uint16_t>& kindIndexBySymbol();

inline uint16_t kindIndexOf(TSNode node) {
  static const std::vector<uint16_t>& table = kindIndexBySymbol();
  TSSymbol symbol = ts_node_symbol(node);
  if (symbol < table.size()) return table[symbol];
  return symbol == static_cast<TSSymbol>(-1) ? kind::error.index() : NodeKind::kUnlisted;  // ERROR
}
}  // namespace detail

// The node's kind, to compare with the grammar's constants (`kindOf(n) == kind::call`); a null
// node's kind is the empty name, equal to no constant.
inline NodeKind kindOf(TSNode node) {
  if (ts_node_is_null(node)) return detail::NodeKindTable::unlisted("", 0);
  uint16_t index = detail::kindIndexOf(node);
  if (index != NodeKind::kUnlisted) return kAllNodeKinds[index].kind;
  const char* name = ts_node_type(node);
  return detail::NodeKindTable::unlisted(name, static_cast<uint32_t>(std::strlen(name)));
}
// The kind's name as text, for messages and tests.
inline std::string_view kindName(TSNode node) { return kindOf(node).name(); }
// A comparison of symbols' indices, not of names (this runs for most nodes of every walk).
inline bool isKind(TSNode node, NodeKind kind) {
  return !ts_node_is_null(node) && detail::kindIndexOf(node) == kind.index();
}

// The id of the grammar's field `field`, or 0 (no such field), from a table made once:
// ts_node_child_by_field_name compares the name with every field name on each call.
TSFieldId fieldIdNamed(std::string_view field);

inline TSNode fieldOf(TSNode node, const char* field) { return ts_node_child_by_field_id(node, fieldIdNamed(field)); }

inline bool sameNode(TSNode a, TSNode b) { return ts_node_eq(a, b); }

inline bool contains(TSNode outer, TSNode inner) {
  return startOf(outer) <= startOf(inner) && endOf(inner) <= endOf(outer);
}

// Skips redundant parentheses: `((x))` -> `x`.
inline TSNode unparenthesize(TSNode node) {
  while (isKind(node, kind::parenthesized_expression) && ts_node_named_child_count(node) == 1)
    node = ts_node_named_child(node, 0);
  return node;
}

// Calls `visit(child)` for every named child.
template <typename Visit>
void forEachNamedChild(TSNode node, Visit&& visit) {
  uint32_t count = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < count; ++i) visit(ts_node_named_child(node, i));
}

}  // namespace ptlint::analysis

namespace ptlint::analysis {

// Iterative pre-order walk (inputs can nest 100,000 deep, so no recursion).
// `enter(node)` returns false to skip the node's children; `leave(node)` runs after them.
template <typename Enter, typename Leave>
void walkTree(TSNode root, Enter&& enter, Leave&& leave) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (enter(node) && ts_tree_cursor_goto_first_child(&cursor)) continue;
    leave(node);
    bool finished = false;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) { finished = true; break; }
      leave(ts_tree_cursor_current_node(&cursor));
    }
    if (finished) break;
  }
  ts_tree_cursor_delete(&cursor);
}

// Children of `node` stored under `field` (a node may hold several, e.g. import names).
// Uses a cursor: tree-sitter 0.20's ts_node_field_name_for_child misses repeated fields after
// the first (`from m import a, b as c` loses `b as c`).
template <typename Visit>
void forEachFieldChild(TSNode node, const char* field, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const char* name = ts_tree_cursor_current_field_name(&cursor);
      if (name != nullptr && std::strcmp(name, field) == 0) visit(ts_tree_cursor_current_node(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

}  // namespace ptlint::analysis
