// Searches over source bytes: substrings, whole identifiers, and the positions of words that let
// a tree walk enter only the subtrees holding one. `std::string_view::find` looks for a word's
// first byte and compares from each hit, which crawls when that byte is common (the `s` of
// `softmax`); glibc's memmem does not.
#pragma once

#include <string.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

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

// A byte that can continue a Python identifier. Bytes >= 0x80 count: outside strings and
// comments they only occur inside identifiers, so `ampé` is not `amp`.
inline bool isIdentifierByte(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || u == '_' || (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'z');
}

// Calls `visit(offset)` for every occurrence of `word` in `text` that is not part of a longer
// identifier; `visit` returns true to stop. True when some call stopped the search.
template <typename Visit>
bool forEachWholeWord(std::string_view text, std::string_view word, Visit&& visit) {
  for (size_t at = findBytes(text, word); at != std::string_view::npos; at = findBytes(text, word, at + 1)) {
    size_t end = at + word.size();
    if ((at > 0 && isIdentifierByte(text[at - 1])) || (end < text.size() && isIdentifierByte(text[end]))) continue;
    if (visit(at)) return true;
  }
  return false;
}

// Where some words occur in a text, for a pre-order tree walk that skips every subtree holding
// none of them: add the words, then ask `anyWithin` of each node in walk order (starts never
// decrease along a pre-order walk, so each question is amortised O(1)).
class WordPositions {
 public:
  void add(std::string_view text, std::string_view word) {
    forEachOccurrence(text, word, [&](size_t at) { offsets_.push_back(static_cast<uint32_t>(at)); });
    sorted_ = false;
  }

  // Does a word start in [start, end)? `start` must not be below the previous call's.
  bool anyWithin(uint32_t start, uint32_t end) {
    if (!sorted_) {
      std::sort(offsets_.begin(), offsets_.end());
      sorted_ = true;
    }
    while (next_ < offsets_.size() && offsets_[next_] < start) ++next_;
    return next_ < offsets_.size() && offsets_[next_] < end;
  }

 private:
  std::vector<uint32_t> offsets_;
  bool sorted_ = true;
  size_t next_ = 0;
};

}  // namespace ptlint::analysis
