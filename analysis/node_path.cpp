#include "analysis/node_path.h"

#include "analysis/syntax.h"

namespace ptlint::analysis {

std::vector<TSNode> pathTo(TSNode root, TSNode target) {
  std::vector<TSNode> path;
  if (ts_node_is_null(root) || ts_node_is_null(target)) return path;
  uint32_t start = startOf(target), end = endOf(target);
  if (start < startOf(root) || end > endOf(root)) return path;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  path.push_back(root);
  while (!sameNode(path.back(), target)) {
    bool moved = ts_tree_cursor_goto_first_child_for_byte(&cursor, start) >= 0 || ts_tree_cursor_goto_first_child(&cursor);
    if (!moved) break;
    bool found = false;
    // Siblings never overlap, so the child holding the target's range is its ancestor (or it).
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (startOf(child) > start) break;
      if (sameNode(child, target) || (startOf(child) <= start && end <= endOf(child) && startOf(child) < endOf(child))) {
        found = true;
        break;
      }
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
    if (!found) break;
    path.push_back(ts_tree_cursor_current_node(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  if (!sameNode(path.back(), target)) path.clear();
  return path;
}

}  // namespace ptlint::analysis
