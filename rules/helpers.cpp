#include "rules/helpers.h"

#include <algorithm>
#include <charconv>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"

namespace ptlint::rules {

using analysis::fieldOf;
using analysis::isKind;
using analysis::textOf;

// The argument lookups live in analysis/syntax_helpers.h, shared with the analyses.
TSNode argumentList(TSNode call) { return analysis::argumentList(call); }
TSNode keywordArgumentNode(TSNode call, std::string_view name, std::string_view source) {
  return analysis::keywordArgumentNode(call, name, source);
}
TSNode keywordArgument(TSNode call, std::string_view name, std::string_view source) {
  return analysis::keywordArgument(call, name, source);
}
std::vector<TSNode> positionalArguments(TSNode call) { return analysis::positionalArguments(call); }

static bool hasChildKind(TSNode call, analysis::NodeKind kind) {
  TSNode args = argumentList(call);
  if (ts_node_is_null(args)) return false;
  bool found = false;
  analysis::forEachNamedChild(args, [&](TSNode arg) { found = found || isKind(arg, kind); });
  return found;
}

bool hasStarArguments(TSNode call) { return hasChildKind(call, kind::list_splat); }
bool hasDoubleStarArguments(TSNode call) { return hasChildKind(call, kind::dictionary_splat); }

bool isFalseLiteral(TSNode node) { return isKind(analysis::unparenthesize(node), kind::false_); }
bool isTrueLiteral(TSNode node) { return isKind(analysis::unparenthesize(node), kind::true_); }

std::optional<long long> integerLiteral(TSNode node, std::string_view source) {
  node = analysis::unparenthesize(node);
  if (!isKind(node, kind::integer)) return std::nullopt;
  std::string_view text = textOf(node, source);
  long long value = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string torchModuleName(const analysis::SemanticModel& model, TSNode at, bool& needs_import) {
  needs_import = false;
  if (auto name = model.visibleNameFor("torch", at)) return *name;
  // `torch` may be free (unbound) at `at`: then `import torch` makes it work. If it is bound
  // to something else, an import at module level would not reach it; callers then offer no fix
  // (needs_import with a shadowed name is reported as an empty result).
  if (model.resolve("torch", at) != nullptr) return {};
  needs_import = true;
  return "torch";
}

quickfix::Edit appendArgument(TSNode call, std::string_view argument, std::string_view source) {
  TSNode args = argumentList(call);
  uint32_t close = analysis::endOf(args) - 1;  // the ')'
  // Find the last real argument to decide on a comma (a trailing comma may already exist).
  TSNode last{};
  analysis::forEachNamedChild(args, [&](TSNode arg) {
    if (!isKind(arg, kind::comment)) last = arg;
  });
  if (ts_node_is_null(last)) return {close, close, std::string(argument)};
  std::string_view between = source.substr(analysis::endOf(last), close - analysis::endOf(last));
  if (size_t comma = between.find(','); comma != std::string_view::npos) {
    // One argument per line with a trailing comma: add a line like the last argument's, so
    // that the closing parenthesis keeps its own line.
    if (size_t newline = between.find('\n', comma); newline != std::string_view::npos) {
      uint32_t line_start = analysis::startOf(last);
      while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
      std::string_view prefix = source.substr(line_start, analysis::startOf(last) - line_start);
      if (prefix.find_first_not_of(" \t") == std::string_view::npos) {
        // At the end of the comma's line, after any comment there.
        uint32_t at = analysis::endOf(last) + static_cast<uint32_t>(newline);
        if (at > 0 && source[at - 1] == '\r') --at;
        return {at, at, "\n" + std::string(prefix) + std::string(argument) + ","};
      }
    }
    return {close, close, std::string(argument)};
  }
  uint32_t at = analysis::endOf(last);
  return {at, at, ", " + std::string(argument)};
}

std::optional<std::string> stringLiteral(TSNode node, std::string_view source) {
  node = analysis::unparenthesize(node);
  std::vector<TSNode> parts;
  if (analysis::isKind(node, kind::concatenated_string)) analysis::forEachNamedChild(node, [&](TSNode p) { parts.push_back(p); });
  else parts.push_back(node);
  std::string out;
  for (TSNode part : parts) {
    if (!analysis::isKind(part, kind::string)) return std::nullopt;
    std::string_view text = analysis::textOf(part, source);
    if (!text.empty() && text.front() != '"' && text.front() != '\'') return std::nullopt;  // f"", b"", r""
    bool plain = true;
    analysis::forEachNamedChild(part, [&](TSNode child) {
      if (analysis::isKind(child, kind::string_content)) out += analysis::textOf(child, source);
      else if (!analysis::isKind(child, kind::string_start) && !analysis::isKind(child, kind::string_end)) plain = false;
    });
    if (!plain) return std::nullopt;
  }
  return out;
}

TSNode definitionOf(TSNode statement) {
  if (isKind(statement, kind::decorated_definition)) return fieldOf(statement, "definition");
  return statement;
}

// The name of a function's first parameter (`self`), or empty.
std::string firstParameter(const analysis::SemanticModel& model, TSNode function) {
  TSNode params = fieldOf(function, "parameters");
  if (ts_node_is_null(params) || ts_node_named_child_count(params) == 0) return {};
  TSNode first = ts_node_named_child(params, 0);
  if (isKind(first, kind::default_parameter) || isKind(first, kind::typed_parameter) || isKind(first, kind::typed_default_parameter)) {
    TSNode name = fieldOf(first, "name");
    if (ts_node_is_null(name) && ts_node_named_child_count(first) > 0) name = ts_node_named_child(first, 0);
    first = name;
  }
  return isKind(first, kind::identifier) ? std::string(model.text(first)) : std::string();
}

// `self.<attr>` with `self` the given name: the attribute's name, else empty.
std::string_view selfAttribute(const analysis::SemanticModel& model, TSNode node, std::string_view self) {
  if (self.empty() || !isKind(node, kind::attribute)) return {};
  TSNode object = fieldOf(node, "object");
  if (!isKind(object, kind::identifier) || model.text(object) != self) return {};
  return model.text(fieldOf(node, "attribute"));
}

// The value a `self.<attr>` read in a method holds when the class assigns that attribute exactly
// once (`self.train_set = Crops(...)` in `setup`, read in `train_dataloader`); null otherwise.
TSNode selfAttributeValue(const analysis::SemanticModel& model, TSNode attribute) {
  TSNode function{};
  for (TSNode up = ts_node_parent(attribute); !ts_node_is_null(up); up = ts_node_parent(up))
    if (isKind(up, kind::function_definition)) {
      function = up;
      break;
    }
  if (ts_node_is_null(function)) return {};
  TSNode cls = ts_node_parent(function);
  if (isKind(cls, kind::decorated_definition)) cls = ts_node_parent(cls);
  cls = ts_node_parent(cls);  // block -> class_definition
  if (!isKind(cls, kind::class_definition)) return {};
  std::string_view attr = selfAttribute(model, attribute, firstParameter(model, function));
  if (attr.empty()) return {};
  TSNode value{};
  int count = 0;
  analysis::forEachNamedChild(fieldOf(cls, "body"), [&](TSNode statement) {
    TSNode method = definitionOf(statement);
    if (!isKind(method, kind::function_definition) || ts_node_is_null(fieldOf(method, "body"))) return;
    std::string self = firstParameter(model, method);
    analysis::walkTree(
        fieldOf(method, "body"),
        [&](TSNode node) {
          analysis::NodeKind kind = analysis::kindOf(node);
          if (kind == kind::class_definition || kind == kind::string || kind == kind::comment) return false;
          if ((kind == kind::assignment || kind == kind::augmented_assignment) &&
              selfAttribute(model, fieldOf(node, "left"), self) == attr) {
            if (isKind(fieldOf(node, "right"), kind::none)) return true;  // `self.train_set = None` first
            ++count;
            value = fieldOf(node, "right");
          }
          return true;
        },
        [](TSNode) {});
  });
  if (count == 0) {
    // Never assigned on the instance: a class-level default (`amp_dtype = torch.bfloat16` or
    // `amp_dtype: torch.dtype = torch.bfloat16` in the class body), bound once.
    analysis::forEachNamedChild(fieldOf(cls, "body"), [&](TSNode statement) {
      if (!isKind(statement, kind::expression_statement)) return;
      TSNode assignment = ts_node_named_child(statement, 0);
      if (!isKind(assignment, kind::assignment)) return;
      TSNode left = fieldOf(assignment, "left");
      if (!isKind(left, kind::identifier) || model.text(left) != attr) return;
      ++count;
      value = fieldOf(assignment, "right");
    });
    if (count == 1 && ts_node_is_null(value)) return {};  // `amp_dtype: torch.dtype`, no value
  }
  return count == 1 ? value : TSNode{};
}


std::vector<std::pair<uint32_t, uint32_t>> wordRanges(std::string_view text, std::initializer_list<std::string_view> words) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (std::string_view word : words)
    analysis::forEachWholeWord(text, word, [&](size_t at) {
      out.emplace_back(static_cast<uint32_t>(at), static_cast<uint32_t>(at + word.size()));
      return false;
    });
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> wordRangesWithin(std::string_view text, std::span<const std::string_view> words,
                                                            std::vector<std::pair<uint32_t, uint32_t>> outer) {
  // The outer ranges merged where they overlap, each searched once.
  std::vector<std::pair<uint32_t, uint32_t>> spans = outer;
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  for (auto span : spans) {
    span.second = std::min<uint32_t>(span.second, static_cast<uint32_t>(text.size()));
    if (span.first >= span.second) continue;
    if (!merged.empty() && span.first < merged.back().second) merged.back().second = std::max(merged.back().second, span.second);
    else merged.push_back(span);
  }
  std::vector<std::pair<uint32_t, uint32_t>> found;
  for (const auto& span : merged) {
    // A plain variable: clang 14 cannot capture a structured binding in the lambda below.
    const uint32_t from = span.first;
    std::string_view part = text.substr(from, span.second - from);
    for (std::string_view word : words)
      analysis::forEachOccurrence(part, word, [&](size_t at) {
        size_t start = from + at;
        // Whole words as in the whole text, not only within the span.
        if (analysis::isWholeWordAt(text, start, word.size()))
          found.emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(start + word.size()));
      });
  }
  return rangesWithin(std::move(found), std::move(outer));
}

std::vector<std::pair<uint32_t, uint32_t>> rangesWithin(std::vector<std::pair<uint32_t, uint32_t>> inner,
                                                        std::vector<std::pair<uint32_t, uint32_t>> outer) {
  std::sort(outer.begin(), outer.end());
  // The furthest end among the outer ranges starting at or before each one.
  std::vector<uint32_t> reach;
  for (const auto& range : outer) reach.push_back(std::max(reach.empty() ? 0 : reach.back(), range.second));
  std::erase_if(inner, [&](const std::pair<uint32_t, uint32_t>& range) {
    auto after = std::upper_bound(outer.begin(), outer.end(), range.first,
                                  [](uint32_t at, const auto& o) { return at < o.first; });
    size_t count = static_cast<size_t>(after - outer.begin());
    return count == 0 || reach[count - 1] < range.second;
  });
  return inner;
}

}  // namespace ptlint::rules
