// The code of a Python file with the bytes of its comments and of its plain string literals
// blanked, for byte-level prefilters that must not be fooled by docstrings (`torch.log(1 + x)`
// in a docstring is no call).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptlint::analysis {

// `text` with every comment and the contents of every string literal that is not an f-string
// (or t-string) replaced by spaces; line breaks and all other bytes are kept, so offsets match.
// f-strings are kept whole: their `{...}` parts are code. std::nullopt when the lexing is not
// certain (an unterminated string, an unknown prefix, a quote inside an f-string's `{...}`), so
// that a caller falls back to the whole text.
std::optional<std::string> blankStringsAndComments(std::string_view text);

}  // namespace ptlint::analysis
