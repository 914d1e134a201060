#include "analysis/environment_writes.h"

#include <array>

#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {
namespace {

enum class Use { Ignored, Read, Set };

// The last segment of a callee (`os.environ.setdefault` -> `setdefault`).
std::string_view calleeMember(TSNode call, std::string_view source) {
  TSNode callee = unparenthesize(fieldOf(call, "function"));
  if (isKind(callee, kind::attribute)) return textOf(fieldOf(callee, "attribute"), source);
  if (isKind(callee, kind::identifier)) return textOf(callee, source);
  return {};
}

bool oneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

// Does a block always leave the code after it (its last statement raises, returns or exits)?
bool leaves(TSNode block, std::string_view source) {
  for (uint32_t i = ts_node_named_child_count(block); i-- > 0;) {
    TSNode last = ts_node_named_child(block, i);
    if (isKind(last, kind::comment)) continue;
    if (isKind(last, kind::raise_statement) || isKind(last, kind::return_statement)) return true;
    if (isKind(last, kind::expression_statement)) {
      TSNode call = unparenthesize(ts_node_named_child(last, 0));
      if (isKind(call, kind::call) && oneOf(calleeMember(call, source), {"exit", "_exit", "abort"})) return true;
    }
    return false;
  }
  return false;
}

// A read inside the condition of an `if` whose body leaves: `if "X" not in os.environ: raise`.
bool guardsByLeaving(TSNode node, std::string_view source) {
  for (TSNode cur = node, parent = ts_node_parent(node); !ts_node_is_null(parent);
       cur = parent, parent = ts_node_parent(parent)) {
    analysis::NodeKind kind = kindOf(parent);
    if (kind == kind::if_statement || kind == kind::elif_clause) {
      if (!sameNode(fieldOf(parent, "condition"), cur)) return false;
      return leaves(fieldOf(parent, "consequence"), source);
    }
    if (kind == kind::block || kind == kind::module || kind == kind::function_definition || kind == kind::lambda) return false;
  }
  return false;
}

// What the string literal `str` (exactly the variable's name) does where it stands.
Use stringUse(TSNode str, std::string_view source) {
  TSNode expr = str;
  TSNode parent = ts_node_parent(expr);
  while (isKind(parent, kind::parenthesized_expression)) {
    expr = parent;
    parent = ts_node_parent(parent);
  }
  analysis::NodeKind kind = kindOf(parent);
  if (kind == kind::expression_statement) return Use::Ignored;  // a bare string statement
  if (kind == kind::subscript && sameNode(fieldOf(parent, "subscript"), expr)) {
    TSNode holder = ts_node_parent(parent);
    if ((isKind(holder, kind::assignment) || isKind(holder, kind::augmented_assignment)) &&
        sameNode(fieldOf(holder, "left"), parent))
      return Use::Set;
    if (isKind(holder, kind::delete_statement) || isKind(holder, kind::expression_list)) return Use::Ignored;
    return guardsByLeaving(parent, source) ? Use::Set : Use::Read;
  }
  if (kind == kind::pair) return sameNode(fieldOf(parent, "key"), expr) ? Use::Set : Use::Read;
  if (kind == kind::comparison_operator) return guardsByLeaving(parent, source) ? Use::Set : Use::Read;
  if (kind == kind::argument_list) {
    TSNode call = ts_node_parent(parent);
    if (!isKind(call, kind::call)) return Use::Set;
    std::string_view member = calleeMember(call, source);
    bool first = sameNode(ts_node_named_child(parent, 0), expr);
    if (oneOf(member, {"setdefault", "putenv", "setenv", "__setitem__"})) return first ? Use::Set : Use::Read;
    if (oneOf(member, {"get", "getenv", "pop", "unsetenv", "__getitem__", "__contains__", "print", "debug", "info",
                       "warning", "warn", "error", "exception", "critical", "log", "format", "echo", "write"}))
      return guardsByLeaving(call, source) ? Use::Set : Use::Read;
    return Use::Set;  // handed to code the tree does not show
  }
  return Use::Set;  // bound to a name, listed, ...: may be set through it
}

}  // namespace

bool setsEnvironmentVariable(const ParsedFile& file, std::string_view variable) {
  std::string_view source = file.text();
  bool set = false;
  forEachWholeWord(source, variable, [&](size_t at) {
    TSNode node = ts_node_descendant_for_byte_range(file.root(), static_cast<uint32_t>(at),
                                                    static_cast<uint32_t>(at + variable.size()));
    analysis::NodeKind kind = kindOf(node);
    Use use = Use::Set;
    if (kind == kind::comment) {
      use = Use::Ignored;
    } else if (kind == kind::string_content) {
      TSNode str = ts_node_parent(node);
      std::string_view literal = textOf(str, source);  // `"X"` or `'X'`: no prefix, nothing else
      bool exact = isKind(str, kind::string) && literal.size() == variable.size() + 2 &&
                   (literal.front() == '"' || literal.front() == '\'') && literal.substr(1, variable.size()) == variable;
      use = exact ? stringUse(str, source) : Use::Ignored;
    } else if (kind == kind::identifier) {
      // `os.environ.update(X=v)`, `dict(X=v)`, a Python name spelled so: may set it.
      use = Use::Set;
    }
    set = use == Use::Set;
    return set;
  });
  return set;
}

}  // namespace ptlint::analysis
