#include "rules/common/training_loops.h"

#include <string>

#include "analysis/value_resolution.h"

#include "analysis/syntax.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {

using analysis::fieldOf;
using analysis::isKind;

TSNode enclosingLoop(TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (isCodeBoundary(up)) return {};
    if ((isKind(up, kind::for_statement) || isKind(up, kind::while_statement)) && analysis::contains(fieldOf(up, "body"), node))
      return up;
  }
  return {};
}

bool loopRunsTrainingStep(const analysis::SemanticModel& model, TSNode loop) {
  std::string_view source = model.file().text();
  bool found = false;
  analysis::walkTree(
      fieldOf(loop, "body"),
      [&](TSNode n) {
        if (found || isCodeBoundary(n)) return false;
        if (isKind(n, kind::call)) {
          std::string_view method = methodName(n, source);
          if (method == "backward" || isBackwardCall(model, n)) found = true;
          else if (method == "step" && ts_node_named_child_count(argumentList(n)) == 0)
            found = looksLikeOptimizer(model, fieldOf(fieldOf(n, "function"), "object"));
        }
        return !found;
      },
      [](TSNode) {});
  return found;
}

bool looksLikeOptimizer(const analysis::SemanticModel& model, TSNode receiver) {
  TSNode bound{};
  if (isKind(receiver, kind::identifier)) bound = analysis::singleAssignedValue(model, receiver);
  else if (isKind(receiver, kind::attribute)) bound = selfAttributeValue(model, receiver);
  else return false;
  if (!ts_node_is_null(bound) && isKind(analysis::unparenthesize(bound), kind::call)) {
    if (auto callee = model.calleeName(analysis::unparenthesize(bound))) return callee->starts_with("torch.optim.");
  }
  std::string_view text = isKind(receiver, kind::attribute) ? model.text(fieldOf(receiver, "attribute")) : model.text(receiver);
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("sched") != std::string::npos || lower.find("lr") != std::string::npos) return false;
  return lower == "opt" || lower.find("optim") != std::string::npos || lower.starts_with("opt_") ||
         lower.ends_with("_opt");
}

namespace {

bool namesInterval(TSNode condition, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      condition,
      [&](TSNode n) {
        if (found) return false;
        if (isKind(n, kind::binary_operator) && analysis::textOf(fieldOf(n, "operator"), source) == "%") found = true;
        if (isKind(n, kind::identifier)) {
          std::string name(analysis::textOf(n, source));
          for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          for (std::string_view word : {"log", "interval", "every", "freq", "print", "verbose", "debug", "display",
                                        "report", "period", "rank", "main_process", "is_master"})
            if (name.find(word) != std::string::npos) found = true;
        }
        return !found;
      },
      [](TSNode) {});
  return found;
}

}  // namespace

bool underIntervalCondition(TSNode node, TSNode loop, std::string_view source) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up) && !analysis::sameNode(up, loop); up = ts_node_parent(up)) {
    TSNode condition{};
    if (isKind(up, kind::if_statement) || isKind(up, kind::elif_clause) || isKind(up, kind::conditional_expression))
      condition = isKind(up, kind::conditional_expression) ? up : fieldOf(up, "condition");
    if (!ts_node_is_null(condition) && namesInterval(condition, source)) return true;
    // `else` of an interval test is its complement: still interval-driven.
    if (isKind(up, kind::else_clause) && namesInterval(fieldOf(ts_node_parent(up), "condition"), source)) return true;
  }
  return false;
}

bool insideAssertion(TSNode node, std::string_view source) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up) && !isCodeBoundary(up); up = ts_node_parent(up)) {
    if (isKind(up, kind::assert_statement)) return true;
    if (isKind(up, kind::call)) {
      TSNode callee = fieldOf(up, "function");
      std::string_view name = isKind(callee, kind::attribute) ? analysis::textOf(fieldOf(callee, "attribute"), source)
                                                           : analysis::textOf(callee, source);
      if (name.starts_with("assert")) return true;
    }
  }
  return false;
}

namespace {

bool exits(TSNode block, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      block,
      [&](TSNode n) {
        if (found || isCodeBoundary(n)) return false;
        if (isKind(n, kind::break_statement) || isKind(n, kind::return_statement) || isKind(n, kind::raise_statement)) found = true;
        if (isKind(n, kind::call)) {
          // `sys.exit(1)`, `exit()`, `quit()`, `os._exit(1)`
          std::string_view callee = analysis::textOf(fieldOf(n, "function"), source);
          if (callee == "exit" || callee == "quit" || callee.ends_with(".exit") || callee.ends_with("._exit")) found = true;
        }
        return !found && !isKind(n, kind::for_statement) && !isKind(n, kind::while_statement);
      },
      [](TSNode) {});
  return found;
}

bool readsName(TSNode node, std::string_view name, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      node,
      [&](TSNode n) {
        if (found) return false;
        if (isKind(n, kind::identifier) && analysis::textOf(n, source) == name) found = true;
        return !found;
      },
      [](TSNode) {});
  return found;
}

}  // namespace

bool decidesLoopExit(TSNode call, TSNode loop, std::string_view source) {
  std::string_view name;
  for (TSNode up = ts_node_parent(call); !ts_node_is_null(up) && !analysis::sameNode(up, loop); up = ts_node_parent(up)) {
    if (isKind(up, kind::if_statement) && analysis::contains(fieldOf(up, "condition"), call) &&
        exits(fieldOf(up, "consequence"), source))
      return true;
    if (isKind(up, kind::assignment) && isKind(fieldOf(up, "left"), kind::identifier)) {
      name = analysis::textOf(fieldOf(up, "left"), source);
      break;
    }
  }
  if (name.empty()) return false;
  bool found = false;
  analysis::walkTree(
      fieldOf(loop, "body"),
      [&](TSNode n) {
        if (found || isCodeBoundary(n)) return false;
        if (isKind(n, kind::if_statement) && readsName(fieldOf(n, "condition"), name, source) &&
            exits(fieldOf(n, "consequence"), source))
          found = true;
        if (isKind(n, kind::assert_statement) && readsName(n, name, source)) found = true;
        return !found;
      },
      [](TSNode) {});
  return found;
}

bool conditionalWithinLoop(TSNode node, TSNode loop) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up) && !analysis::sameNode(up, loop); up = ts_node_parent(up)) {
    analysis::NodeKind kind = analysis::kindOf(up);
    if (kind == kind::if_statement || kind == kind::elif_clause || kind == kind::else_clause || kind == kind::except_clause ||
        kind == kind::conditional_expression || kind == kind::boolean_operator || kind == kind::while_statement ||
        kind == kind::for_statement || kind == kind::case_clause || kind == kind::except_group_clause)
      return true;
  }
  return false;
}

}  // namespace ptlint::rules
