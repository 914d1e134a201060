#include "server/json_text.h"

#include <algorithm>

namespace ptlint::server {
namespace {

// The code unit of the `\uXXXX` escape whose backslash is at `at`, or -1.
int escapeUnit(std::string_view text, size_t at) {
  if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return -1;
  int unit = 0;
  for (size_t i = at + 2; i < at + 6; ++i) {
    char c = text[i];
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return -1;
    unit = unit * 16 + digit;
  }
  return unit;
}

bool isHigh(int unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool isLow(int unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

}  // namespace

size_t jsonNestingDepth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

size_t replaceLoneSurrogateEscapes(std::string& text) {
  // Cheap exit for the common case: no escape of the D800-DFFF range at all.
  bool any = false;
  for (size_t at = text.find("\\u"); at != std::string::npos; at = text.find("\\u", at + 2)) {
    if (at + 2 < text.size() && (text[at + 2] == 'd' || text[at + 2] == 'D')) {
      any = true;
      break;
    }
  }
  if (!any) return 0;
  size_t replaced = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!in_string) {
      if (c == '"') in_string = true;
      continue;
    }
    if (c == '"') {
      in_string = false;
      continue;
    }
    if (c != '\\') continue;
    int unit = escapeUnit(text, i);
    if (unit < 0) {
      ++i;  // any other escape: skip the escaped character (`\\`, `\"`, ...)
      continue;
    }
    if (isHigh(unit) && isLow(escapeUnit(text, i + 6))) {
      i += 11;  // a well-formed pair
      continue;
    }
    if (isHigh(unit) || isLow(unit)) {
      text.replace(i + 2, 4, "fffd");
      ++replaced;
    }
    i += 5;
  }
  return replaced;
}

std::optional<std::string> findStringMember(std::string_view text, std::string_view key) {
  std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = text.find(quoted); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
    size_t i = at + quoted.size();
    auto skipSpace = [&] {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
    };
    skipSpace();
    if (i >= text.size() || text[i] != ':') continue;
    ++i;
    skipSpace();
    if (i >= text.size() || text[i] != '"') continue;
    size_t end = text.find_first_of("\"\\", i + 1);
    if (end == std::string_view::npos || text[end] != '"') return std::nullopt;
    return std::string(text.substr(i + 1, end - i - 1));
  }
  return std::nullopt;
}

}  // namespace ptlint::server
