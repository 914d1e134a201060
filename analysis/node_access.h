// Two forms of syntax.h questions for the hot walks (qualified names, call arguments, module
// summaries, the model's parameters), answering exactly as those do: a field named by a
// string_view, and the named children in one pass.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>

namespace ptlint::analysis {

// What `fieldOf(node, field)` answers (null when the grammar has no such field), for a name that
// need not end with a NUL.
TSNode fieldNamed(TSNode node, std::string_view field);

// `forEachNamedChild` in one pass over the children: ts_node_named_child(node, i) walks the
// children from the first on every call, which makes long lists (parameters) quadratic.
template <typename Visit>
void forEachNamedChildInOnePass(TSNode node, Visit&& visit) {
  if (ts_node_is_null(node) || ts_node_named_child_count(node) == 0) return;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) visit(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

}  // namespace ptlint::analysis
