#include "analysis/name_shapes.h"

#include "analysis/text_search.h"

namespace ptlint::analysis {

namespace {

bool isSpaceByte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\'; }

}  // namespace

size_t skipSpaceBack(std::string_view code, size_t at) {
  while (at > 0 && isSpaceByte(code[at - 1])) --at;
  return at;
}

size_t skipSpaceForward(std::string_view code, size_t at) {
  while (at < code.size() && isSpaceByte(code[at])) ++at;
  return at;
}

namespace {

// The dotted name starting at `at` (`torch.nn`), or "".
std::string_view dottedAt(std::string_view code, size_t at) {
  size_t end = at;
  while (end < code.size() && (isIdentifierByte(code[end]) || code[end] == '.')) ++end;
  return code.substr(at, end - at);
}

bool namesTorch(std::string_view dotted) {
  return dotted.starts_with("torch") && (dotted.size() == 5 || dotted[5] == '.');
}

// `as name` at `as_at`: can the statement bind `name` to something of torch's? Only an import
// from a module path starting with `torch` can (a relative import's names never resolve to
// torch's); anything else on the line (`with`, `except`, an import list over several lines)
// counts as yes.
bool aliasMayBeTorch(std::string_view code, size_t as_at) {
  size_t line = code.rfind('\n', as_at);
  line = line == std::string_view::npos ? 0 : line + 1;
  std::string_view head = code.substr(line, as_at - line);
  size_t first = head.find_first_not_of(" \t");
  if (first == std::string_view::npos) return true;
  head = head.substr(first);
  if (head.starts_with("from") && head.size() > 4 && (head[4] == ' ' || head[4] == '\t')) {
    size_t module = head.find_first_not_of(" \t", 4);
    return module == std::string_view::npos || namesTorch(dottedAt(head, module)) || head.find(';') != std::string_view::npos;
  }
  if (head.starts_with("import") && head.size() > 6 && (head[6] == ' ' || head[6] == '\t')) {
    // `import a.b as name`: the dotted name right before `as`.
    size_t end = head.find_last_not_of(" \t");
    if (end == std::string_view::npos) return true;
    size_t start = end + 1;
    while (start > 0 && (isIdentifierByte(head[start - 1]) || head[start - 1] == '.')) --start;
    return start == end + 1 || namesTorch(head.substr(start, end + 1 - start));
  }
  return true;
}

// `name = ...` with the value at `value`: can it be an alias (qualifiedName follows a value that
// is a name or an attribute chain, `t = torch.nn`, also in a chain `a = b = torch`)? A call, a
// subscript, a literal or an expression is not one.
bool valueMayBeAlias(std::string_view code, size_t value) {
  auto skipInline = [&](size_t i) {
    while (i < code.size()) {
      if (code[i] == ' ' || code[i] == '\t' || code[i] == '\f') ++i;
      else if (code[i] == '\\' && i + 1 < code.size() && (code[i + 1] == '\n' || code[i + 1] == '\r')) i += 2;
      else break;
    }
    return i;
  };
  size_t i = skipInline(value);
  if (i >= code.size() || code[i] == '(') return true;  // parenthesised: looked through
  std::string_view dotted = dottedAt(code, i);
  if (dotted.empty() || !(isIdentifierByte(dotted[0]) && !(dotted[0] >= '0' && dotted[0] <= '9'))) return false;
  if (dotted == "None" || dotted == "True" || dotted == "False") return false;  // constants, no names
  if (dotted.back() == '.') return true;  // continued on the next line
  i = skipInline(i + dotted.size());
  return i >= code.size() || code[i] == '\n' || code[i] == '\r' || code[i] == ';' ||
         (code[i] == '=' && (i + 1 == code.size() || code[i + 1] != '='));
}

// After `name:` at `colon`: `name := value`, or an annotation `name: T = value` (the first `=` on
// the line); a lambda's parameter, a dict key or a slice has no such `=` (or one a call's keyword
// argument holds, whose value is then looked at the same way: errs towards yes). A line continued
// by `\` counts as yes.
bool colonMayBindAlias(std::string_view code, size_t colon) {
  if (colon + 1 < code.size() && code[colon + 1] == '=') {
    // `(name := value)`: any name or chain may be the value, whatever closes the expression.
    size_t i = skipSpaceForward(code, colon + 2);
    return i < code.size() && (code[i] == '(' || (isIdentifierByte(code[i]) && !(code[i] >= '0' && code[i] <= '9')));
  }
  for (size_t i = colon + 1; i < code.size() && code[i] != '\n' && code[i] != '\r'; ++i) {
    if (code[i] == '\\') return true;
    if (code[i] != '=') continue;
    if (i + 1 < code.size() && code[i + 1] == '=') {
      ++i;
      continue;
    }
    char prev = code[i - 1];
    if (prev == '<' || prev == '>' || prev == '!') continue;
    return valueMayBeAlias(code, i + 1);
  }
  return false;
}

}  // namespace

bool mayBeRebound(std::string_view code, std::string_view name, bool torch_imports_only) {
  return forEachWholeWord(code, name, [&](size_t at) {
    size_t before = skipSpaceBack(code, at);
    if (before > 0 && code[before - 1] == '.') return false;  // an attribute of something else
    if (before >= 2 && code.substr(before - 2, 2) == "as" && (before == 2 || !isIdentifierByte(code[before - 3])))
      return !torch_imports_only || aliasMayBeTorch(code, before - 2);
    size_t after = skipSpaceForward(code, at + name.size());
    if (after < code.size() && code[after] == ':') return colonMayBindAlias(code, after);
    if (after < code.size() && code[after] == '=' && (after + 1 == code.size() || code[after + 1] != '='))
      return valueMayBeAlias(code, after + 1);
    return false;
  });
}

Receiver receiverOf(std::string_view code, size_t at) {
  size_t before = skipSpaceBack(code, at);
  if (before == 0 || code[before - 1] != '.') return {};
  size_t end = skipSpaceBack(code, before - 1), start = end;
  while (start > 0 && isIdentifierByte(code[start - 1])) --start;
  if (start == end) {
    // `x[0].word`, `f(x).word`, `(-x).word`: what qualifiedName follows is an attribute chain
    // from a name, looking through parentheses only, so these resolve to nothing.
    if (end == 0 || (code[end - 1] != ')' && code[end - 1] != ']')) return {Receiver::Kind::Other, {}};
    if (code[end - 1] == ']') return {Receiver::Kind::Unresolved, {}};
    int depth = 0;
    size_t open = end - 1;
    for (;; --open) {
      char c = code[open];
      if (c == ')' || c == ']' || c == '}') ++depth;
      else if ((c == '(' || c == '[' || c == '{') && --depth == 0) break;
      if (open == 0) return {Receiver::Kind::Other, {}};
    }
    if (code[open] != '(') return {Receiver::Kind::Other, {}};
    size_t callee = skipSpaceBack(code, open);
    if (callee > 0 && (isIdentifierByte(code[callee - 1]) || code[callee - 1] == ')' || code[callee - 1] == ']'))
      return {Receiver::Kind::Unresolved, {}};  // a call's result (or `def`/keyword: not valid here)
    // A parenthesised expression: a plain name or chain inside may resolve.
    std::string_view inner = code.substr(open + 1, end - 1 - open - 1);
    for (char c : inner)
      if (!isIdentifierByte(c) && c != '.' && !isSpaceByte(c) && c != '(' && c != ')')
        return {Receiver::Kind::Unresolved, {}};
    return {Receiver::Kind::Other, {}};
  }
  size_t outer = skipSpaceBack(code, start);
  if (outer > 0 && code[outer - 1] == '.') return {Receiver::Kind::Other, {}};  // a longer chain
  return {Receiver::Kind::Name, code.substr(start, end - start)};
}

CallArguments callArguments(std::string_view code, size_t open, std::string_view keyword) {
  CallArguments out;
  int depth = 0;
  bool keywords_started = false, segment_empty = true, segment_keyword = false;
  size_t segment = open + 1;
  auto endSegment = [&] {
    if (!segment_empty && !segment_keyword && !keywords_started) ++out.positional;
    if (segment_keyword) keywords_started = true;
  };
  for (size_t i = open + 1; i < code.size(); ++i) {
    char c = code[i];
    // A string's contents are blanked but an f-string's are not: its brackets and commas could
    // pass for the call's own.
    if (c == '"' || c == '\'') return {};
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        if (c != ')') return {};
        endSegment();
        out.complete = true;
        return out;
      }
      --depth;
    } else if (depth == 0 && c == ',') {
      endSegment();
      segment = i + 1;
      segment_empty = true;
      segment_keyword = false;
      continue;
    } else if (depth == 0 && c == '*' && segment_empty) {
      return {};  // `*args`, `**kwargs`
    } else if (depth == 0 && c == '=' && i + 1 < code.size() && code[i + 1] != '=' && i > 0 &&
               code[i - 1] != '=' && code[i - 1] != '!' && code[i - 1] != '<' && code[i - 1] != '>' &&
               code[i - 1] != ':') {
      // `name=`: a keyword argument (not `==`, `!=`, `<=`, `>=`, `:=`).
      std::string_view head = code.substr(segment, i - segment);
      size_t first = head.find_first_not_of(" \t\r\n\\\f");
      size_t last = head.find_last_not_of(" \t\r\n\\\f");
      if (first != std::string_view::npos) {
        std::string_view name = head.substr(first, last - first + 1);
        segment_keyword = true;
        if (name == keyword) out.has_keyword = true;
      }
    }
    if (!isSpaceByte(c)) segment_empty = false;
  }
  return {};
}

bool mayCallWithPositional(std::string_view code, std::string_view word, size_t count) {
  return forEachWholeWord(code, word, [&](size_t at) {
    size_t before = skipSpaceBack(code, at);
    size_t start = before;
    while (start > 0 && isIdentifierByte(code[start - 1])) --start;
    std::string_view previous = code.substr(start, before - start);
    if (previous == "def") return false;  // a function of the file's own
    size_t i = skipSpaceForward(code, at + word.size());
    if (i >= code.size() || code[i] != '(') {
      // Not called here: an import or an alias (`L = torch.load`) binds it to a name whose
      // calls do not spell it.
      char c = before > 0 ? code[before - 1] : '\0';
      return c == '.' || c == '=' || c == ',' || c == '(' || previous == "import";
    }
    // Segments at the call's own depth other than keywords (`name=`; `*args` may follow them).
    // A prefixed string passes (an f-string keeps its text in the code view, brackets included;
    // other strings are blanks between quotes), and so does a `lambda` at the call's depth (its
    // parameters' commas and defaults) and a call left open.
    size_t positional = 0;
    int depth = 0;
    bool keyword = false, empty = true;
    for (++i; i < code.size(); ++i) {
      char c = code[i];
      if ((c == '"' || c == '\'') && isIdentifierByte(code[i - 1])) return true;
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth-- == 0) return !keyword && !empty && positional + 1 >= count;
      } else if (depth == 0 && c == ',') {
        if (!keyword && !empty && ++positional >= count) return true;
        empty = true;
        keyword = false;
        continue;
      } else if (depth == 0 && c == '=' && (i + 1 == code.size() || code[i + 1] != '=') &&
                 std::string_view("=<>!:").find(code[i - 1]) == std::string_view::npos) {
        keyword = true;
      } else if (depth == 0 && c == 'l' && code.substr(i).starts_with("lambda") && !isIdentifierByte(code[i - 1])) {
        return true;
      }
      if (!isSpaceByte(c)) empty = false;
    }
    return true;
  });
}

}  // namespace ptlint::analysis
