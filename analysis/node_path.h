// The chain of ancestors of a node, found from the root down. tree-sitter 0.20's ts_node_parent
// walks down from the root on every call, so a loop of ts_node_parent is quadratic in the depth
// (inputs nest 100,000 deep); one descent is linear.
#pragma once

#include <tree_sitter/api.h>

#include <vector>

namespace ptlint::analysis {

// [root, ..., target]: each node the parent of the next. Empty when `target` is not found under
// `root` (a zero-width node the descent cannot place, a node of another tree).
std::vector<TSNode> pathTo(TSNode root, TSNode target);

}  // namespace ptlint::analysis
