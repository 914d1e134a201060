// The code of a Python file with the bytes of its comments and of its plain string literals
// blanked, for byte-level prefilters that must not be fooled by docstrings (`torch.log(1 + x)`
// in a docstring is no call).
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "analysis/text_search.h"

namespace ptlint::analysis {

// `text` with every comment and the contents of every string literal that is not an f-string
// (or t-string) replaced by spaces; line breaks and all other bytes are kept, so offsets match.
// f-strings are kept whole: their `{...}` parts are code. std::nullopt when the lexing is not
// certain (an unterminated string, an unknown prefix, a quote inside an f-string's `{...}`), so
// that a caller falls back to the whole text.
std::optional<std::string> blankStringsAndComments(std::string_view text);

// One file's text as the byte-level prefilters see it, with what several of them need computed
// once: its code (blankStringsAndComments) on first use. One file, one thread: not for sharing.
class PrefilterText {
 public:
  explicit PrefilterText(std::string_view text) : text_(text) {}
  PrefilterText(const PrefilterText&) = delete;
  PrefilterText& operator=(const PrefilterText&) = delete;

  std::string_view text() const { return text_; }
  // Has code() been computed already (so that asking it costs nothing)?
  bool codeComputed() const { return code_done_; }
  // blankStringsAndComments(text()); null when the lexing is unclear (then use text()).
  const std::string* code() const {
    if (!code_done_) {
      code_ = blankStringsAndComments(text_);
      code_done_ = true;
    }
    return code_ ? &*code_ : nullptr;
  }
  // Does one of `words` occur in the code as a whole identifier? True when there is no code view
  // (unclear lexing): a prefilter built on this errs towards running the rule. The pre-parse
  // form of "the tree has an identifier spelled so", for rules whose every finding needs one.
  bool codeNamesAny(std::initializer_list<std::string_view> words) const {
    return codeNamesAny(std::span<const std::string_view>(words.begin(), words.size()));
  }
  bool codeNamesAny(std::span<const std::string_view> words) const {
    const std::string* view = code();
    if (view == nullptr) return true;
    for (std::string_view word : words)
      if (!word.empty() && forEachWholeWord(*view, word, [](size_t) { return true; })) return true;
    return false;
  }

 private:
  std::string_view text_;
  mutable bool code_done_ = false;
  mutable std::optional<std::string> code_;
};

}  // namespace ptlint::analysis
