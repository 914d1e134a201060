#include "quickfix/edit_guard.h"

#include <algorithm>
#include <string>

namespace ptlint::quickfix {
namespace {

bool identChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || c == '_';
}

bool prefixChar(char c) { return std::string_view("rRbBuUfFtT").find(c) != std::string_view::npos; }

struct Scanner {
  std::string_view t;
  size_t n;
  std::vector<std::pair<uint32_t, uint32_t>>& strings;
  std::vector<std::pair<uint32_t, uint32_t>>& comments;
  std::vector<bool>& terminated;
  int depth = 0;             // brackets open outside strings
  bool continued = false;    // the last line ends with a `\` continuation

  size_t lineEnd(size_t i) const {
    while (i < n && t[i] != '\n' && t[i] != '\r') ++i;
    return i;
  }

  // The first byte of the literal whose quote is at `q` (its prefix letters), and whether it is
  // an f-string (or a t-string: the same replacement fields).
  std::pair<size_t, bool> prefix(size_t q) const {
    size_t p = q;
    while (p > 0 && q - p < 2 && prefixChar(t[p - 1])) --p;
    if (p > 0 && identChar(t[p - 1])) return {q, false};  // letters of a name, not a prefix
    bool f = false;
    for (size_t k = p; k < q; ++k) f = f || t[k] == 'f' || t[k] == 'F' || t[k] == 't' || t[k] == 'T';
    return {p, f};
  }

  // `i` at the opening quote: one past the literal's end, and whether a closing quote ended it.
  std::pair<size_t, bool> literal(size_t i, bool f, int nesting) {
    char q = t[i];
    bool triple = i + 2 < n && t[i + 1] == q && t[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < n) {
      char c = t[i];
      if (c == '\\') {
        i += (i + 2 < n && t[i + 1] == '\r' && t[i + 2] == '\n') ? 3 : 2;
        continue;
      }
      if (!triple && (c == '\n' || c == '\r')) return {i, false};  // unterminated: ends with its line
      if (c == q) {
        if (!triple) return {i + 1, true};
        if (i + 2 < n && t[i + 1] == q && t[i + 2] == q) return {i + 3, true};
        ++i;
        continue;
      }
      if (f && c == '{') {
        if (i + 1 < n && t[i + 1] == '{') {
          i += 2;
          continue;
        }
        i = field(i + 1, q, triple, nesting + 1);
        continue;
      }
      ++i;
    }
    return {std::min(i, n), false};
  }

  // A replacement field from just after its `{`: one past its `}`. Quotes inside open nested
  // literals (PEP 701; before it, a valid field held no quote of its enclosing literal).
  size_t field(size_t i, char q, bool triple, int nesting) {
    if (nesting > 200) return n;  // absurd nesting: treat the rest as the literal
    int depth = 0;
    bool spec = false;
    while (i < n) {
      char c = t[i];
      if (spec) {
        if (c == '{') {
          i = field(i + 1, q, triple, nesting + 1);
          continue;
        }
        if (c == '}') return i + 1;
        if (c == q || (!triple && (c == '\n' || c == '\r'))) return i;  // the literal ends here
        ++i;
        continue;
      }
      if (c == '\'' || c == '"') {
        auto [p, f] = prefix(i);
        (void)p;
        i = literal(i, f, nesting).first;
        continue;
      }
      if (c == '#') {
        i = lineEnd(i);
        continue;
      }
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']') {
        if (depth > 0) --depth;
      } else if (c == '}') {
        if (depth == 0) return i + 1;
        --depth;
      } else if (c == ':' && depth == 0) {
        spec = true;
      }
      ++i;
    }
    return n;
  }

  void run() {
    size_t i = 0;
    while (i < n) {
      char c = t[i];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') continued = false;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      if (c == '#') {
        size_t e = lineEnd(i);
        comments.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(e));
        i = e;
      } else if (c == '\'' || c == '"') {
        auto [p, f] = prefix(i);
        auto [e, closed] = literal(i, f, 0);
        strings.emplace_back(static_cast<uint32_t>(p), static_cast<uint32_t>(e));
        terminated.push_back(closed);
        i = e;
      } else if (c == '\\') {
        continued = i + 1 >= n || t[i + 1] == '\n' || t[i + 1] == '\r';
        i += 2;  // a continuation (or a stray backslash): the next byte is not a token start
        if (continued && i < n && t[i - 1] == '\r' && t[i] == '\n') ++i;
        continue;
      } else {
        ++i;
      }
    }
  }
};

// The region of `regions` (sorted, disjoint) that holds `offset` strictly inside; -1 if none.
long regionAt(const std::vector<std::pair<uint32_t, uint32_t>>& regions, uint32_t offset) {
  auto it = std::upper_bound(regions.begin(), regions.end(), offset,
                             [](uint32_t o, const std::pair<uint32_t, uint32_t>& r) { return o < r.first; });
  if (it == regions.begin()) return -1;
  --it;
  return it->first < offset && offset < it->second ? static_cast<long>(it - regions.begin()) : -1;
}

}  // namespace

LexicalMap::LexicalMap(std::string_view text) : text_(text) {
  Scanner scanner{text, text.size(), strings_, comments_, terminated_};
  scanner.run();
  ends_open_ = scanner.depth > 0 || scanner.continued ||
               std::find(terminated_.begin(), terminated_.end(), false) != terminated_.end();
}

std::optional<std::pair<uint32_t, uint32_t>> LexicalMap::stringAround(uint32_t offset) const {
  long k = regionAt(strings_, offset);
  if (k < 0) {
    // The end of an unterminated literal is still inside it (text added there joins it).
    auto it = std::lower_bound(strings_.begin(), strings_.end(), offset,
                               [](const std::pair<uint32_t, uint32_t>& r, uint32_t o) { return r.second < o; });
    if (it != strings_.end() && it->second == offset && it->first < offset &&
        !terminated_[static_cast<size_t>(it - strings_.begin())])
      return *it;
    return std::nullopt;
  }
  return strings_[static_cast<size_t>(k)];
}

bool LexicalMap::insideComment(uint32_t offset) const {
  if (regionAt(comments_, offset) >= 0) return true;
  // The comment's `#` itself counts (an edit starting there rewrites the comment).
  auto it = std::lower_bound(comments_.begin(), comments_.end(), offset,
                             [](const std::pair<uint32_t, uint32_t>& r, uint32_t o) { return r.first < o; });
  return it != comments_.end() && it->first == offset && it->second > offset;
}

std::optional<uint32_t> LexicalMap::commentPointOfLine(uint32_t offset) const {
  uint32_t size = static_cast<uint32_t>(text_.size());
  offset = std::min(offset, size);
  uint32_t start = offset;
  while (start > 0 && text_[start - 1] != '\n' && text_[start - 1] != '\r') --start;
  uint32_t end = offset;
  while (end < size && text_[end] != '\n' && text_[end] != '\r') ++end;
  uint32_t last = end;
  while (last > start && (text_[last - 1] == ' ' || text_[last - 1] == '\t' || text_[last - 1] == '\f')) --last;
  if (stringAround(last) || stringAround(end)) return std::nullopt;  // the line ends inside a literal
  bool in_comment = last > start && (insideComment(last - 1));
  if (!in_comment && last > start && text_[last - 1] == '\\') return std::nullopt;  // continued
  return last;
}

bool LexicalMap::allows(const Edit& edit) const {
  std::string_view content = edit.content;
  size_t lead = content.find_first_not_of(" \t");
  bool comment = edit.start == edit.end && lead != std::string_view::npos && content[lead] == '#';
  if (comment) {
    // Whole comment lines inserted at the start of a line outside strings.
    bool at_line_start = edit.start == 0 || text_[edit.start - 1] == '\n' || text_[edit.start - 1] == '\r';
    if (at_line_start && content.back() == '\n' && !stringAround(edit.start) && regionAt(comments_, edit.start) < 0)
      return true;
    if (content.find_first_of("\r\n") != std::string_view::npos) return false;
    if (insideComment(edit.start)) return true;  // text added to a comment stays in it
    auto point = commentPointOfLine(edit.start);
    return point && *point == edit.start;
  }
  auto s1 = stringAround(edit.start), s2 = stringAround(edit.end);
  if (s1 || s2) return s1 && s2 && *s1 == *s2;  // within one literal
  // Within a comment: the edit stays in it (whole comments, with the code's trailing blanks
  // before them, may go), and what remains of it still starts with `#`.
  long c1 = regionAt(comments_, edit.start), c2 = regionAt(comments_, edit.end);
  if (c1 >= 0 || c2 >= 0) {
    if (content.find_first_of("\r\n") != std::string_view::npos) return false;
    if (c1 >= 0) return c2 == c1 || comments_[static_cast<size_t>(c1)].second == edit.end;
    auto [begin, end] = comments_[static_cast<size_t>(c2)];
    (void)end;
    if (edit.start == begin) return lead != std::string_view::npos && content[lead] == '#';
    if (edit.start > begin) return false;
    return lead != std::string_view::npos && content[lead] == '#';
  }
  // Text right after a `\` continuation, before its line break, would break it.
  if (edit.start > 0 && text_[edit.start - 1] == '\\' && !content.empty() && content[0] != '\n' &&
      content[0] != '\r' && edit.start < text_.size() && (text_[edit.start] == '\n' || text_[edit.start] == '\r'))
    return regionAt(comments_, edit.start - 1) >= 0;
  return true;
}

bool LexicalMap::allows(const Fix& fix) const {
  return std::all_of(fix.edits.begin(), fix.edits.end(), [this](const Edit& e) { return allows(e); });
}

std::optional<Edit> noqaInsertion(std::string_view text, const LexicalMap& map, uint32_t offset,
                                  std::string_view codes, std::optional<uint32_t> codes_end) {
  (void)text;
  if (codes_end) {
    // An existing `# noqa: ...` the parser saw: only when it really is a comment.
    if (!map.insideComment(*codes_end - 1) && !map.insideComment(*codes_end)) return std::nullopt;
    return Edit{*codes_end, *codes_end, ", " + std::string(codes)};
  }
  auto point = map.commentPointOfLine(offset);
  if (!point) return std::nullopt;
  return Edit{*point, *point, "  # noqa: " + std::string(codes)};
}

}  // namespace ptlint::quickfix
