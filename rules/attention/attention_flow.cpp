#include "rules/attention/attention_flow.h"

#include <algorithm>

#include "analysis/syntax.h"

namespace ptlint::rules::attention {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::startOf;

namespace {

bool isStatementParent(TSNode node) { return isKind(node, "block") || isKind(node, "module"); }

bool opensScope(TSNode node) {
  std::string_view kind = kindOf(node);
  return kind == "function_definition" || kind == "class_definition" || kind == "lambda";
}

// Is this identifier a read of a variable (not `x.<name>`, not `f(<name>=...)`, not a target)?
bool isRead(TSNode identifier) {
  TSNode parent = ts_node_parent(identifier);
  if (isKind(parent, "attribute") && analysis::sameNode(fieldOf(parent, "attribute"), identifier)) return false;
  if (isKind(parent, "keyword_argument") && analysis::sameNode(fieldOf(parent, "name"), identifier)) return false;
  if (isKind(parent, "assignment") && analysis::sameNode(fieldOf(parent, "left"), identifier)) return false;
  return true;
}

}  // namespace

TSNode enclosingStatement(TSNode node) {
  for (TSNode cur = node; !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    TSNode parent = ts_node_parent(cur);
    if (ts_node_is_null(parent)) return {};
    if (isStatementParent(parent)) return cur;
  }
  return {};
}

TSNode enclosingFunctionOrModule(TSNode node) {
  TSNode last = node;
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    if (isKind(cur, "function_definition")) return cur;
    if (isKind(cur, "lambda") || isKind(cur, "class_definition")) return {};  // not a plain body
    last = cur;
  }
  return last;
}

std::string_view FunctionFlow::text(TSNode node) const { return analysis::textOf(node, source_); }

void FunctionFlow::addTargets(TSNode target, TSNode statement, TSNode block) {
  // Every identifier bound (or mutated through a subscript) by `target` becomes opaque.
  analysis::walkTree(
      target,
      [&](TSNode node) {
        if (isKind(node, "identifier")) {
          TSNode parent = ts_node_parent(node);
          if (isKind(parent, "attribute") && analysis::sameNode(fieldOf(parent, "attribute"), node)) return false;
          // In `x[i]` / `x.attr` only the base object counts as mutated.
          defs_.push_back({Definition::Kind::Opaque, text(node), statement, node, {}, block});
          return false;
        }
        if (isKind(node, "subscript")) {
          TSNode value = fieldOf(node, "value");
          while (isKind(value, "subscript") || isKind(value, "attribute"))
            value = isKind(value, "subscript") ? fieldOf(value, "value") : fieldOf(value, "object");
          if (isKind(value, "identifier"))
            defs_.push_back({Definition::Kind::Opaque, text(value), statement, value, {}, block});
          return false;
        }
        if (isKind(node, "attribute")) return false;  // self.x = ...: not a local
        return true;
      },
      [](TSNode) {});
}

FunctionFlow::FunctionFlow(TSNode owner, std::string_view source) : owner_(owner), source_(source) {
  TSNode body = isKind(owner, "function_definition") ? fieldOf(owner, "body") : owner;
  if (ts_node_is_null(body)) return;
  // Parameters are definitions too (opaque): a parameter is never followed.
  std::vector<TSNode> block_stack;
  int nested = 0;  // > 0 inside a nested def/class/lambda: reads only
  analysis::walkTree(
      body,
      [&](TSNode node) {
        if (isStatementParent(node)) block_stack.push_back(node);
        if (isKind(node, "identifier")) {
          if (nested > 0 || isRead(node)) uses_.push_back(node);
          return false;
        }
        if (!ts_node_is_named(node)) return true;
        if (opensScope(node)) {
          ++nested;
          return true;
        }
        if (nested > 0) return true;
        TSNode statement = enclosingStatement(node);
        TSNode block = block_stack.empty() ? TSNode{} : block_stack.back();
        std::string_view kind = kindOf(node);
        if (kind == "assignment") {
          TSNode left = fieldOf(node, "left");
          TSNode right = fieldOf(node, "right");
          // `a = b = value` nests assignments on the right; only a plain `name = value` is followed.
          if (isKind(left, "identifier") && !ts_node_is_null(right) && !isKind(right, "assignment"))
            defs_.push_back({Definition::Kind::Assign, text(left), statement, node, right, block});
          else if (!ts_node_is_null(left))
            addTargets(left, statement, block);
        } else if (kind == "augmented_assignment") {
          TSNode left = fieldOf(node, "left");
          if (isKind(left, "identifier"))
            defs_.push_back({Definition::Kind::AugAssign, text(left), statement, node, fieldOf(node, "right"), block});
          else
            addTargets(left, statement, block);
        } else if (kind == "named_expression") {
          defs_.push_back({Definition::Kind::Opaque, text(fieldOf(node, "name")), statement, node, {}, block});
        } else if (kind == "for_statement") {
          addTargets(fieldOf(node, "left"), node, block);
        } else if (kind == "as_pattern") {
          if (TSNode alias = fieldOf(node, "alias"); !ts_node_is_null(alias)) addTargets(alias, statement, block);
        } else if (kind == "delete_statement" || kind == "global_statement" || kind == "nonlocal_statement") {
          analysis::forEachNamedChild(node, [&](TSNode child) { addTargets(child, node, block); });
        } else if (kind == "expression_statement") {
          // `scores.masked_fill_(mask, -inf)`: an in-place method called for its effect.
          TSNode call = ts_node_named_child(node, 0);
          if (isKind(call, "call")) {
            TSNode function = fieldOf(call, "function");
            if (isKind(function, "attribute")) {
              TSNode object = analysis::unparenthesize(fieldOf(function, "object"));
              std::string_view method = text(fieldOf(function, "attribute"));
              if (isKind(object, "identifier") && method.size() > 1 && method.back() == '_' && method[method.size() - 2] != '_')
                defs_.push_back({Definition::Kind::InPlace, text(object), node, call, call, block});
            }
          }
        }
        return true;
      },
      [&](TSNode node) {
        if (isStatementParent(node) && !block_stack.empty()) block_stack.pop_back();
        if (opensScope(node)) --nested;
      });
  // Definitions take effect where their node ends; keep them ordered by that.
  std::stable_sort(defs_.begin(), defs_.end(),
                   [](const Definition& a, const Definition& b) { return endOf(a.node) < endOf(b.node); });
}

const Definition* FunctionFlow::reaching(std::string_view name, uint32_t at) const {
  const Definition* found = nullptr;
  for (const auto& def : defs_) {
    if (endOf(def.node) > at) break;
    if (def.name == name) found = &def;
  }
  return found;
}

const Definition* FunctionFlow::previous(const Definition* def) const {
  const Definition* found = nullptr;
  for (const auto& candidate : defs_) {
    if (&candidate == def) return found;
    if (candidate.name == def->name) found = &candidate;
  }
  return nullptr;
}

bool FunctionFlow::definedBetween(std::string_view name, uint32_t from, uint32_t to) const {
  return std::any_of(defs_.begin(), defs_.end(), [&](const Definition& def) {
    return def.name == name && startOf(def.node) >= from && startOf(def.node) < to;
  });
}

}  // namespace ptlint::rules::attention
