#include "rules/common/blocks.h"

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "analysis/value_flow.h"
#include "analysis/value_resolution.h"
#include "rules/helpers.h"

namespace ptlint::rules {

using analysis::fieldOf;
using analysis::isKind;

bool isCodeBoundary(TSNode node) {
  return isKind(node, kind::function_definition) || isKind(node, kind::lambda) || isKind(node, kind::class_definition);
}

std::vector<TSNode> enclosingWithItems(TSNode node) {
  std::vector<TSNode> out;
  TSNode child = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); child = parent, parent = ts_node_parent(parent)) {
    if (isCodeBoundary(parent)) break;
    if (!isKind(parent, kind::with_statement)) continue;
    TSNode body = fieldOf(parent, "body");
    if (ts_node_is_null(body) || !analysis::sameNode(body, child)) continue;
    analysis::forEachNamedChild(parent, [&](TSNode clause) {
      if (!isKind(clause, kind::with_clause)) return;
      analysis::forEachNamedChild(clause, [&](TSNode item) {
        if (!isKind(item, kind::with_item)) return;
        TSNode value = fieldOf(item, "value");
        if (isKind(value, kind::as_pattern)) value = ts_node_named_child(value, 0);
        if (!ts_node_is_null(value)) out.push_back(analysis::unparenthesize(value));
      });
    });
  }
  return out;
}

bool isUnderCondition(TSNode node) {
  TSNode child = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); child = parent, parent = ts_node_parent(parent)) {
    if (isCodeBoundary(parent)) return false;
    analysis::NodeKind kind = analysis::kindOf(parent);
    if (kind == kind::if_statement || kind == kind::elif_clause || kind == kind::else_clause || kind == kind::except_clause ||
        kind == kind::except_group_clause || kind == kind::conditional_expression || kind == kind::while_statement ||
        kind == kind::boolean_operator || kind == kind::match_statement || kind == kind::case_clause)
      return true;
  }
  (void)child;
  return false;
}

bool isBuiltinCall(const analysis::SemanticModel& model, TSNode call, std::string_view name) {
  TSNode callee = fieldOf(call, "function");
  if (!isKind(callee, kind::identifier) || model.text(callee) != name) return false;
  return model.resolve(name, callee) == nullptr;
}

std::string_view methodName(TSNode call, std::string_view source) {
  TSNode callee = fieldOf(call, "function");
  if (!isKind(callee, kind::attribute)) return {};
  return analysis::textOf(fieldOf(callee, "attribute"), source);
}

TSNode enclosingFunctionOrModule(TSNode node) {
  TSNode last = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); parent = ts_node_parent(parent)) {
    if (isKind(parent, kind::function_definition)) return parent;
    last = parent;
  }
  return last;
}

TSNode enclosingStatement(TSNode node) {
  TSNode child = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); child = parent, parent = ts_node_parent(parent)) {
    if (isKind(parent, kind::block) || isKind(parent, kind::module)) return child;
  }
  return child;
}

namespace {

// The clause of `statement` (an if/try) that contains `node`: its consequence/body, or one of
// its elif/else/except/finally children. Null when `node` is in the condition or elsewhere.
TSNode branchOf(TSNode statement, TSNode node) {
  TSNode found{};
  uint32_t count = ts_node_named_child_count(statement);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(statement, i);
    analysis::NodeKind kind = analysis::kindOf(child);
    bool branch = kind == kind::block || kind == kind::elif_clause || kind == kind::else_clause || kind == kind::except_clause ||
                  kind == kind::except_group_clause;
    if (branch && analysis::contains(child, node)) found = child;
  }
  return found;
}

}  // namespace

bool inExclusiveBranches(TSNode a, TSNode b) {
  for (TSNode parent = ts_node_parent(a); !ts_node_is_null(parent); parent = ts_node_parent(parent)) {
    if (!analysis::contains(parent, b)) continue;
    if (!isKind(parent, kind::if_statement) && !isKind(parent, kind::try_statement)) continue;
    TSNode branch_a = branchOf(parent, a), branch_b = branchOf(parent, b);
    if (ts_node_is_null(branch_a) || ts_node_is_null(branch_b)) continue;
    if (!analysis::sameNode(branch_a, branch_b)) return true;
  }
  return false;
}

namespace {

std::optional<bool> literalTruth(const analysis::SemanticModel& model, TSNode expr) {
  TSNode value = analysis::resolveValue(model, expr);
  if (isTrueLiteral(value)) return true;
  if (isFalseLiteral(value)) return false;
  return std::nullopt;
}

}  // namespace

std::optional<bool> boolValue(const analysis::SemanticModel& model, TSNode expr) {
  if (ts_node_is_null(expr)) return std::nullopt;
  if (auto truth = literalTruth(model, expr)) return truth;
  // Every value the expression may hold is the same literal (`pin = True` in both branches).
  std::optional<bool> common;
  auto values = analysis::valuesOf(model, expr);
  bool agree = values.all([&](const analysis::FlowValue& v) {
    auto one = v.kind == analysis::FlowValue::Kind::Expression ? literalTruth(v.in(model), v.node) : std::nullopt;
    if (!one || (common && *common != *one)) return false;
    common = one;
    return true;
  });
  return agree ? common : std::nullopt;
}

}  // namespace ptlint::rules

namespace ptlint::rules {

namespace {

std::optional<std::string_view> plainString(const analysis::SemanticModel& model, TSNode expr) {
  TSNode value = analysis::resolveValue(model, expr);
  if (!analysis::isKind(value, kind::string)) return std::nullopt;
  std::string_view text = model.text(value);
  if (text.size() < 2) return std::nullopt;
  char quote = text.front();
  if ((quote != '"' && quote != '\'') || text.back() != quote) return std::nullopt;
  if (text.starts_with("\"\"\"") || text.starts_with("'''")) return std::nullopt;
  std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.find('\\') != std::string_view::npos || inner.find(quote) != std::string_view::npos) return std::nullopt;
  return inner;
}

}  // namespace

std::optional<std::string_view> stringValue(const analysis::SemanticModel& model, TSNode expr) {
  if (ts_node_is_null(expr)) return std::nullopt;
  if (auto text = plainString(model, expr)) return text;
  // Every value the expression may hold is the same string (`device_type = "cuda"` in each branch).
  std::optional<std::string_view> common;
  auto values = analysis::valuesOf(model, expr);
  bool agree = values.all([&](const analysis::FlowValue& v) {
    auto one = v.kind == analysis::FlowValue::Kind::Expression ? plainString(v.in(model), v.node) : std::nullopt;
    if (!one || (common && *common != *one)) return false;
    common = one;
    return true;
  });
  return agree ? common : std::nullopt;
}

namespace {

// Does the file's text hold `autograd` anywhere? A qualified name is spelled from the file's own
// names (imports, attributes, aliases), so without those bytes no callee resolves to
// `torch.autograd.backward`. Searched once per file: rules ask for every call of a function.
bool mayNameAutograd(const analysis::SemanticModel& model) {
  struct Answer {
    bool found;
  };
  static const char kTag = 0;
  return model
      .perFileAnalysis<Answer>(&kTag,
                               [&] {
                                 return std::make_shared<const Answer>(Answer{
                                     analysis::findBytes(model.file().text(), "autograd") != std::string_view::npos});
                               })
      .found;
}

}  // namespace

bool isBackwardCall(const analysis::SemanticModel& model, TSNode call) {
  bool autograd = mayNameAutograd(model);
  if (methodName(call, model.file().text()) == "backward") {
    auto callee = model.calleeName(call);
    return !callee || (autograd && *callee == "torch.autograd.backward");
  }
  if (!autograd) return false;
  auto callee = model.calleeName(call);
  return callee && *callee == "torch.autograd.backward";
}

}  // namespace ptlint::rules

#include "analysis/text_search.h"

namespace ptlint::rules {

bool namesIdentifier(const analysis::ParsedFile& file, std::string_view word) {
  std::string_view source = file.text();
  TSNode root = file.root();
  return analysis::forEachWholeWord(source, word, [&](size_t at) {
    auto start = static_cast<uint32_t>(at), end = static_cast<uint32_t>(at + word.size());
    TSNode node = ts_node_descendant_for_byte_range(root, start, end);
    return analysis::isKind(node, kind::identifier) && analysis::startOf(node) == start && analysis::endOf(node) == end;
  });
}

bool callsNamed(const analysis::ParsedFile& file, std::string_view word) {
  std::string_view source = file.text();
  TSNode root = file.root();
  return analysis::forEachWholeWord(source, word, [&](size_t at) {
    auto start = static_cast<uint32_t>(at), end = static_cast<uint32_t>(at + word.size());
    TSNode node = ts_node_descendant_for_byte_range(root, start, end);
    if (!analysis::isKind(node, kind::identifier) || analysis::startOf(node) != start || analysis::endOf(node) != end)
      return false;
    TSNode callee = node;
    TSNode parent = ts_node_parent(node);
    if (analysis::isKind(parent, kind::attribute)) {
      if (!analysis::sameNode(fieldOf(parent, "attribute"), node)) return false;
      callee = parent;
      parent = ts_node_parent(parent);
    }
    return analysis::isKind(parent, kind::call) && analysis::sameNode(fieldOf(parent, "function"), callee);
  });
}

size_t closingBracket(std::string_view code, size_t open) {
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i + 1;
  }
  return code.size();
}

std::string_view callArgumentsAt(std::string_view code, size_t at, size_t word_size) {
  size_t open = at + word_size;
  while (open < code.size() && (code[open] == ' ' || code[open] == '\t' || code[open] == '\n' || code[open] == '\\'))
    ++open;
  if (open >= code.size() || code[open] != '(') return {};
  size_t close = closingBracket(code, open);
  return code.substr(open + 1, close > open + 1 ? close - open - 2 : 0);
}

bool codeCalls(const analysis::PrefilterText& source, std::string_view word, bool method, bool no_arguments) {
  const std::string* view = source.code();
  if (view == nullptr) return true;
  std::string_view code = *view;
  return analysis::forEachWholeWord(code, word, [&](size_t at) {
    // `import word as alias` / `from m import word as alias`: the alias may be what is called.
    if (!method && code.substr(at + word.size()).starts_with(" as ")) return true;
    std::string_view args = callArgumentsAt(code, at, word.size());
    if (args.data() == nullptr) return false;
    if (no_arguments && args.find_first_not_of(" \t\n\\") != std::string_view::npos) return false;
    if (!method) return true;
    size_t before = at;
    while (before > 0 && (code[before - 1] == ' ' || code[before - 1] == '\t' || code[before - 1] == '\n' ||
                          code[before - 1] == '\\'))
      --before;
    return before > 0 && code[before - 1] == '.';
  });
}

}  // namespace ptlint::rules
