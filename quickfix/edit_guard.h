// The lexical guard every edit passes before it is applied or offered (--fix, --add-noqa, quick
// fixes, fix-all, "Disable for this line"): an edit may change the tokens it means to change and
// no others. A comment must land where Python reads a comment (not inside a string, not after a
// `\` continuation); any other edit must begin and end outside string literals or within one.
//
// The scan is Python's tokenizer reduced to what decides this: string literals (every prefix,
// triple quotes, f-string replacement fields with nested strings), comments and backslash
// continuations. It reads left to right from the first byte, so the error recovery of a parser
// never mistakes string text for code (a file with an unterminated string stays inside it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "quickfix/fix.h"

namespace ptlint::quickfix {

class LexicalMap {
 public:
  explicit LexicalMap(std::string_view text);

  // The string literal (prefix to closing quote, or to the end of an unterminated one) holding
  // `offset` strictly inside; nullopt when none does.
  std::optional<std::pair<uint32_t, uint32_t>> stringAround(uint32_t offset) const;
  bool insideString(uint32_t offset) const { return stringAround(offset).has_value(); }
  bool insideComment(uint32_t offset) const;
  // Where a trailing comment may go on the line holding `offset`: after its last code character,
  // when the line neither ends inside a string nor continues with `\`. nullopt otherwise.
  std::optional<uint32_t> commentPointOfLine(uint32_t offset) const;

  // True when `edit` keeps the tokens outside it: a comment insertion lands at a point that can
  // take one; any other edit starts and ends outside strings and comments, or within one string.
  bool allows(const Edit& edit) const;
  bool allows(const Fix& fix) const;

  // True when the text ends inside a string, inside brackets or after a `\` continuation: code
  // placed after it would be read as part of its last statement (a half-typed notebook cell).
  bool endsOpen() const { return ends_open_; }

 private:
  std::string_view text_;
  std::vector<std::pair<uint32_t, uint32_t>> strings_;   // sorted, disjoint [begin, end)
  std::vector<std::pair<uint32_t, uint32_t>> comments_;  // sorted, disjoint [begin, end)
  std::vector<bool> terminated_;                         // per string: a closing quote ends it
  bool ends_open_ = false;
};

// The insertion that puts `# noqa: CODE` on the line holding `offset` (or adds CODE to the noqa
// comment already there, whose codes end at `codes_end`). nullopt when the line cannot take a
// comment: ptlint then leaves it alone (the comment would be string text or break a `\`).
std::optional<Edit> noqaInsertion(std::string_view text, const LexicalMap& map, uint32_t offset,
                                  std::string_view codes, std::optional<uint32_t> codes_end);

}  // namespace ptlint::quickfix
