// Substring search over source text. `std::string_view::find` looks for the word's first byte
// and compares from each hit, which crawls when that byte is common (the `s` of `softmax`);
// glibc's memmem does not.
#pragma once

#include <string.h>

#include <cstddef>
#include <string_view>

namespace ptlint::analysis {

// The first occurrence of `word` in `text` at or after `from`, or npos.
inline size_t findBytes(std::string_view text, std::string_view word, size_t from = 0) {
  if (from > text.size() || word.empty()) return std::string_view::npos;
  const void* hit = memmem(text.data() + from, text.size() - from, word.data(), word.size());
  return hit == nullptr ? std::string_view::npos : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
}

// Calls `visit(offset)` for every occurrence of `word` in `text`, overlapping ones included.
template <typename Visit>
void forEachOccurrence(std::string_view text, std::string_view word, Visit&& visit) {
  for (size_t at = findBytes(text, word); at != std::string_view::npos; at = findBytes(text, word, at + 1)) visit(at);
}

}  // namespace ptlint::analysis
