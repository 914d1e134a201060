#include "analysis/grammar_gaps.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <vector>

#include "analysis/syntax.h"

namespace ptlint::analysis {
namespace {

struct Leaf {
  NodeKind kind;
  uint32_t start = 0;
  uint32_t end = 0;
  TSNode node;
};

bool isStatementParent(TSNode node) { return isKind(node, kind::module) || isKind(node, kind::block); }

// The statements that hold the tree's syntax errors: for each ERROR or MISSING node, its
// outermost ancestor below a module or block (or the node itself at that level). Iterative.
std::vector<TSNode> errorStatements(TSNode root) {
  std::vector<TSNode> statements;
  if (!ts_node_has_error(root)) return statements;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool done = false;
  while (!done) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    bool descend = false;
    if (ts_node_is_missing(node) || isKind(node, kind::error)) {
      TSNode statement = node;
      for (TSNode parent = ts_node_parent(statement); !ts_node_is_null(parent) && !isStatementParent(parent);
           parent = ts_node_parent(statement))
        statement = parent;
      if (statements.empty() || !contains(statements.back(), statement)) statements.push_back(statement);
    } else if (ts_node_has_error(node)) {
      descend = true;
    }
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) { done = true; break; }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return statements;
}

// The tokens of `node`'s subtree in source order, without comments and zero-width nodes.
std::vector<Leaf> leavesOf(TSNode node) {
  std::vector<Leaf> leaves;
  walkTree(
      node,
      [&](TSNode n) {
        if (ts_node_child_count(n) > 0) return true;
        uint32_t start = startOf(n), end = endOf(n);
        if (end > start && !isKind(n, kind::comment)) leaves.push_back({kindOf(n), start, end, n});
        return false;
      },
      [](TSNode) {});
  return leaves;
}

bool leafIs(const Leaf& leaf, std::string_view word, std::string_view text) {
  return text.substr(leaf.start, leaf.end - leaf.start) == word;
}

bool isOpen(NodeKind kind) { return kind == kind::lparen || kind == kind::lbracket || kind == kind::lbrace; }
bool isClose(NodeKind kind) { return kind == kind::rparen || kind == kind::rbracket || kind == kind::rbrace; }

// Tokens after which a `*` starts a starred expression (never a multiplication). `=` and the
// augmented assignments only count outside brackets (inside, `=` names a keyword argument).
bool precedesStarredExpression(NodeKind kind, int depth) {
  static constexpr std::array<NodeKind, 7> anywhere{kind::lparen, kind::lbracket, kind::lbrace, kind::comma, kind::return_, kind::yield, kind::in};
  static constexpr std::array<NodeKind, 14> assignments{
      kind::equal, kind::plus_equal, kind::minus_equal, kind::star_equal, kind::slash_equal, kind::slash_slash_equal, kind::percent_equal, kind::star_star_equal, kind::greater_greater_equal, kind::less_less_equal, kind::amp_equal, kind::caret_equal, kind::pipe_equal, kind::at_equal};
  if (std::find(anywhere.begin(), anywhere.end(), kind) != anywhere.end()) return true;
  return depth == 0 && std::find(assignments.begin(), assignments.end(), kind) != assignments.end();
}

// Is the star part of an assignment or for-loop target (`a, *(b, c) = seq`)? Then only a
// parenthesised or bracketed target may follow it; a literal or an operator never can.
bool isInTarget(const std::vector<Leaf>& leaves, size_t star, std::string_view text) {
  bool for_header = !leaves.empty() && (leafIs(leaves[0], "for", text) || leafIs(leaves[0], "async", text));
  for (size_t j = 0; j < star && for_header; ++j)
    if (leaves[j].kind == kind::in) for_header = false;  // after `in`: the iterable
  int depth = 0;
  for (size_t i = star + 1; i < leaves.size(); ++i) {
    NodeKind kind = leaves[i].kind;
    if (isOpen(kind)) ++depth;
    else if (isClose(kind)) --depth;
    else if (depth <= 0 && (kind == kind::semicolon || kind == kind::colon)) return false;
    else if (depth <= 0 && kind == kind::in) return for_header;
    else if (depth <= 0 && kind == kind::equal) return true;
  }
  return false;
}

// Tokens that end an operand: a `(` after one opens a call's arguments.
bool endsOperand(NodeKind kind) {
  return kind == kind::identifier || kind == kind::rparen || kind == kind::rbracket || kind == kind::string_end;
}

// Python allows a starred expression as an element of a comma-separated list only (`return *a`
// and `x = *a` are errors, `return *a,` is not): after a `,`, or followed by one at its depth.
// Alone, it may fill a list or set display, a subscript (`d[*idx]`) or a call's arguments.
// Never in a comprehension (`[*a for a in b]`).
bool isListElement(const std::vector<Leaf>& leaves, size_t star, std::string_view text) {
  bool alone_ok = false;
  if (star > 0) {
    NodeKind before = leaves[star - 1].kind;
    if (before == kind::comma) return true;
    alone_ok = before == kind::lbracket || before == kind::lbrace;
    if (before == kind::lparen && star > 1) {
      alone_ok = endsOperand(leaves[star - 2].kind);
    }
  }
  int depth = 0;
  for (size_t i = star + 1; i < leaves.size(); ++i) {
    NodeKind kind = leaves[i].kind;
    if (depth == 0 && i > star + 1) {
      // A line break outside brackets (and not continued) ends the statement.
      std::string_view gap = text.substr(leaves[i - 1].end, leaves[i].start - leaves[i - 1].end);
      if (gap.find('\n') != std::string_view::npos && gap.find('\\') == std::string_view::npos) return false;
    }
    if (isOpen(kind)) ++depth;
    else if (isClose(kind) && --depth < 0) return alone_ok;
    else if (depth == 0 && kind == kind::comma) return true;
    else if (depth == 0 && (kind == kind::equal || kind == kind::colon || kind == kind::semicolon)) return false;
    // Error recovery may read a keyword as a name: compare the text.
    else if (depth == 0 && (leafIs(leaves[i], "for", text) || leafIs(leaves[i], "if", text))) return false;
  }
  return false;
}

// Tokens that start an operand the grammar does not accept after `*` in an expression list
// (it accepts a name, an attribute and a subscript there).
bool startsUnstarrableOperand(NodeKind kind) {
  static constexpr std::array<NodeKind, 14> kinds{
      kind::lparen, kind::lbracket, kind::lbrace, kind::await, kind::minus, kind::plus, kind::tilde, kind::string_start, kind::integer, kind::float_, kind::true_, kind::false_, kind::none, kind::ellipsis};
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool isWhitespace(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\f'; });
}

// Is the leaf the first token on its line?
bool startsLine(const Leaf& leaf, std::string_view text) {
  size_t line_start = text.rfind('\n', leaf.start == 0 ? 0 : leaf.start - 1);
  line_start = (line_start == std::string_view::npos || leaf.start == 0) ? 0 : line_start + 1;
  if (leaf.start == 0) return true;
  return isWhitespace(text.substr(line_start, leaf.start - line_start));
}

// Index of the bracket closing the one at `open` (or leaves.size()).
size_t matchingClose(const std::vector<Leaf>& leaves, size_t open) {
  int depth = 0;
  for (size_t i = open; i < leaves.size(); ++i) {
    if (isOpen(leaves[i].kind)) ++depth;
    else if (isClose(leaves[i].kind) && --depth == 0) return i;
  }
  return leaves.size();
}

// A type-parameter list: `[` right after the name in `def NAME[`, `class NAME[`, `type NAME[`.
bool opensTypeParameters(const std::vector<Leaf>& leaves, size_t i, std::string_view text) {
  if (leaves[i].kind != kind::lbracket || i < 2 || leaves[i - 1].kind != kind::identifier) return false;
  const Leaf& keyword = leaves[i - 2];
  return keyword.kind == kind::def || keyword.kind == kind::class_ ||
         (leafIs(keyword, "type", text) && startsLine(keyword, text));
}

// `def f[T = int]`, `class C[*Ts = *tuple[int]]`, `type A[**P = [int]] = ...` (PEP 696): each
// default's `=` becomes `|` and its parameter's stars spaces, so the list reads as expressions.
void rewriteTypeParameterDefaults(const std::vector<Leaf>& leaves, size_t open, size_t close, std::string& text) {
  // A parameter without a default after one with a default is an error: leave the list as is.
  {
    int depth = 0;
    bool defaulted = false, has_default = false;
    for (size_t i = open + 1; i <= close && i < leaves.size(); ++i) {
      NodeKind kind = leaves[i].kind;
      bool end = i == close;
      if (!end && isOpen(kind)) ++depth;
      else if (!end && isClose(kind)) --depth;
      if (depth == 0 && kind == kind::equal) has_default = true;
      if (depth == 0 && (kind == kind::comma || end)) {
        bool empty = i > 0 && (leaves[i - 1].kind == kind::comma || leaves[i - 1].kind == kind::lbracket);
        if (!empty && defaulted && !has_default) return;
        defaulted = defaulted || has_default;
        has_default = false;
      }
    }
  }
  int depth = 0;
  size_t parameter = open + 1;
  for (size_t i = open + 1; i < close; ++i) {
    NodeKind kind = leaves[i].kind;
    if (isOpen(kind)) ++depth;
    else if (isClose(kind)) --depth;
    else if (depth == 0 && kind == kind::comma) parameter = i + 1;
    else if (depth == 0 && kind == kind::equal) {
      // Only `NAME [: bound] = default`, with `*` or `**` before NAME, and one `=`: anything else
      // keeps its error. A star default belongs to a `*Ts` parameter only.
      size_t name = parameter + ((leaves[parameter].kind == kind::star || leaves[parameter].kind == kind::star_star) ? 1 : 0);
      if (name >= i || leaves[name].kind != kind::identifier || (leaves[name + 1].kind != kind::colon && name + 1 != i)) continue;
      bool second = false;
      for (size_t j = parameter; j < i; ++j) second = second || leaves[j].kind == kind::equal;
      int inner = 0;
      for (size_t j = i + 1; j < close && !second; ++j) {
        if (isOpen(leaves[j].kind)) ++inner;
        else if (isClose(leaves[j].kind)) --inner;
        else if (inner == 0 && leaves[j].kind == kind::comma) break;
        else if (inner == 0 && leaves[j].kind == kind::equal) second = true;
      }
      if (second) continue;
      if (i + 1 < close && leaves[i + 1].kind == kind::star && leaves[parameter].kind != kind::star) continue;
      text[leaves[i].start] = '|';
      if (leaves[parameter].kind == kind::star || leaves[parameter].kind == kind::star_star)
        std::fill(text.begin() + leaves[parameter].start, text.begin() + leaves[parameter].end, ' ');
      // `*Ts = *(int, str)`: the default's own star, as in an expression list (a star default
      // belongs to a `*Ts` parameter only).
      if (i + 2 < close && leaves[i + 1].kind == kind::star && startsUnstarrableOperand(leaves[i + 2].kind) &&
          leaves[parameter].kind == kind::star)
        text[leaves[i + 1].start] = ' ';
    }
  }
}

// Is the `:=` leaf the first `:` of a format spec (`f"{x:=^10}"`)? Python reads a `:` at the top
// level of a replacement field as the start of the spec, never as a walrus.
bool startsFormatSpec(const Leaf& leaf) {
  for (TSNode parent = ts_node_parent(leaf.node); !ts_node_is_null(parent); parent = ts_node_parent(parent)) {
    if (isKind(parent, kind::interpolation)) return true;
    if (!isKind(parent, kind::named_expression) && !isKind(parent, kind::error)) return false;
  }
  return false;
}

void rewriteStatement(TSNode statement, std::string& text) {
  std::vector<Leaf> leaves = leavesOf(statement);
  int depth = 0;
  // Inside a def header, a lambda's parameters, a case pattern or a type-parameter list, a star
  // is a parameter or a pattern, never a starred expression: skip them.
  int skip_until_colon_at = -1;
  size_t skip_until_leaf = 0;
  std::vector<bool> call_parens;  // per open bracket: is it a call's argument list?
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf& leaf = leaves[i];
    NodeKind kind = leaf.kind;
    if (opensTypeParameters(leaves, i, text)) {
      size_t close = matchingClose(leaves, i);
      rewriteTypeParameterDefaults(leaves, i, close, text);
      skip_until_leaf = std::max(skip_until_leaf, close);
    }
    if (isOpen(kind)) {
      ++depth;
      // A call's parentheses: the grammar accepts any starred argument there.
      call_parens.push_back(kind == kind::lparen && i > 0 && endsOperand(leaves[i - 1].kind));
    } else if (isClose(kind)) {
      depth = std::max(0, depth - 1);
      if (!call_parens.empty()) call_parens.pop_back();
    }
    if (skip_until_colon_at < 0 &&
        (kind == kind::def || kind == kind::lambda ||
         ((kind == kind::case_ || kind == kind::identifier) && leafIs(leaf, "case", text) && startsLine(leaf, text)))) {
      skip_until_colon_at = depth;
      continue;
    }
    if (kind == kind::colon && depth == skip_until_colon_at) {
      skip_until_colon_at = -1;
      continue;
    }
    if (kind == kind::colon_equal && startsFormatSpec(leaf)) {
      text[leaf.start + 1] = ' ';
      continue;
    }
    // `(a.\n b)`: the dot moves next to the name (inside brackets the newline means nothing).
    // The name may lie past the statement the tree ended there, so it is found in the text.
    if (kind == kind::dot && depth > 0) {
      size_t name = leaf.end;
      while (name < text.size() && std::string_view(" \t\f\r\n").find(text[name]) != std::string_view::npos) ++name;
      bool identifier_start = name < text.size() && (std::isalpha(static_cast<unsigned char>(text[name])) ||
                                                     text[name] == '_' || static_cast<unsigned char>(text[name]) >= 0x80);
      if (identifier_start && std::string_view(text).substr(leaf.end, name - leaf.end).find('\n') != std::string_view::npos) {
        text[leaf.start] = ' ';
        text[name - 1] = '.';
      }
      continue;
    }
    if (kind != kind::star || skip_until_colon_at >= 0 || i < skip_until_leaf) continue;
    if (!call_parens.empty() && call_parens.back()) continue;
    if (i + 1 >= leaves.size() || !startsUnstarrableOperand(leaves[i + 1].kind)) continue;
    bool starred = i == 0 || precedesStarredExpression(leaves[i - 1].kind, depth);
    if (!starred && depth == 0) {
      // A statement that starts with `*` (`*(a), b = c`): a line break, not a continuation,
      // separates it from the previous token.
      std::string_view gap = std::string_view(text).substr(leaves[i - 1].end, leaf.start - leaves[i - 1].end);
      starred = gap.find('\n') != std::string_view::npos && gap.find('\\') == std::string_view::npos;
    }
    bool bracketed = leaves[i + 1].kind == kind::lparen || leaves[i + 1].kind == kind::lbracket;
    if (starred && isListElement(leaves, i, text) && (bracketed || !isInTarget(leaves, i, text)))
      text[leaf.start] = ' ';
  }
}

}  // namespace

bool rewriteGrammarGaps(std::string& text, TSNode root) {
  // Lone '\r' line ends need no rewrite: the parser already reads them as line ends.
  std::string before = text;
  for (TSNode statement : errorStatements(root)) rewriteStatement(statement, text);
  return text != before;
}

}  // namespace ptlint::analysis
