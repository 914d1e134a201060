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

bool mayBeRebound(std::string_view code, std::string_view name) {
  return forEachWholeWord(code, name, [&](size_t at) {
    size_t before = skipSpaceBack(code, at);
    if (before > 0 && code[before - 1] == '.') return false;  // an attribute of something else
    if (before >= 2 && code.substr(before - 2, 2) == "as" && (before == 2 || !isIdentifierByte(code[before - 3])))
      return true;
    size_t after = skipSpaceForward(code, at + name.size());
    if (after < code.size() && code[after] == ':') return true;
    return after < code.size() && code[after] == '=' && (after + 1 == code.size() || code[after + 1] != '=');
  });
}

Receiver receiverOf(std::string_view code, size_t at) {
  size_t before = skipSpaceBack(code, at);
  if (before == 0 || code[before - 1] != '.') return {};
  size_t end = skipSpaceBack(code, before - 1), start = end;
  while (start > 0 && isIdentifierByte(code[start - 1])) --start;
  if (start == end) return {Receiver::Kind::Other, {}};  // `f().word`, `x[0].word`
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

}  // namespace ptlint::analysis
