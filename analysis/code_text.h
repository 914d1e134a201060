// The code of a Python file with the bytes of its comments and of its plain string literals
// blanked, for byte-level prefilters that must not be fooled by docstrings (`torch.log(1 + x)`
// in a docstring is no call).
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/text_search.h"

namespace ptlint::analysis {

class ParsedFile;

// `text` with every comment and the contents of every string literal that is not an f-string
// (or t-string) replaced by spaces; line breaks and all other bytes are kept, so offsets match.
// f-strings are kept whole: their `{...}` parts are code. std::nullopt when the lexing is not
// certain (an unterminated string, an unknown prefix, a quote inside an f-string's `{...}`), so
// that a caller falls back to the whole text. `formatted`, when given, receives the byte ranges
// [prefix, closing quote] of the f-strings and t-strings kept whole.
std::optional<std::string> blankStringsAndComments(std::string_view text,
                                                   std::vector<std::pair<size_t, size_t>>* formatted = nullptr);

// blankStringsAndComments of a parsed file's text, made once and kept with the file (the
// prefilters, then the rules that look for words only where code can hold them, share it).
// Thread-safe.
const std::optional<std::string>& codeOf(const ParsedFile& file);

// Gives `file` the code view of its text already made (by a PrefilterText of the same text,
// before the parse): codeOf then returns it instead of making it again. No effect once made.
void adoptCode(const ParsedFile& file, std::optional<std::string> code);

// codeOf's view when there is one, else the file's text: where words that only code can spell
// are looked for.
std::string_view codeOrText(const ParsedFile& file);

// One file's text as the byte-level prefilters see it, with what several of them need computed
// once: its code (blankStringsAndComments) on first use. One file, one thread: not for sharing.
class PrefilterText {
 public:
  explicit PrefilterText(std::string_view text) : text_(text) {}
  // A parsed file's text, whose code is codeOf(file) (made at most once per file).
  explicit PrefilterText(const ParsedFile& file);
  PrefilterText(const PrefilterText&) = delete;
  PrefilterText& operator=(const PrefilterText&) = delete;

  std::string_view text() const { return text_; }
  // The code view made so far (moved out), for adoptCode; nothing when none was made.
  std::optional<std::optional<std::string>> takeCode() {
    if (view_ == nullptr || file_ != nullptr) return std::nullopt;
    view_ = nullptr;
    return std::move(own_code_);
  }
  // Has code() been computed already (so that asking it costs nothing)?
  bool codeComputed() const { return view_ != nullptr; }
  // blankStringsAndComments(text()); null when the lexing is unclear (then use text()).
  const std::string* code() const {
    if (view_ == nullptr) {
      if (file_ == nullptr) own_code_ = blankStringsAndComments(text_);
      view_ = file_ != nullptr ? &codeOf(*file_) : &own_code_;
    }
    return *view_ ? &**view_ : nullptr;
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
  const ParsedFile* file_ = nullptr;
  mutable std::optional<std::string> own_code_;              // the view, without a file
  mutable const std::optional<std::string>* view_ = nullptr;  // own_code_ or codeOf(*file_), once made
};

}  // namespace ptlint::analysis
