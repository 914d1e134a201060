// Searches over source bytes: substrings, whole identifiers, and the positions of words that let
// a tree walk enter only the subtrees holding one. `std::string_view::find` looks for a word's
// first byte and compares from each hit, which crawls when that byte is common (the `s` of
// `softmax`); `findBytes` compares a word's first and last bytes at many positions at once.
#pragma once

#include <string.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptlint::analysis {

// The offset of the first occurrence of `word` (size >= 1) in `text`, or `size` (text_search.cpp:
// a vector compare of the word's first and last bytes, several times glibc's memmem on code).
size_t firstOccurrence(const char* text, size_t size, const char* word, size_t word_size);
// The same without AVX2 (the path of CPUs that lack it; for tests).
size_t firstOccurrenceNarrow(const char* text, size_t size, const char* word, size_t word_size);

// The first occurrence of `word` in `text` at or after `from`, or npos.
inline size_t findBytes(std::string_view text, std::string_view word, size_t from = 0) {
  if (from > text.size() || word.empty()) return std::string_view::npos;
  size_t rest = text.size() - from;
  size_t at = firstOccurrence(text.data() + from, rest, word.data(), word.size());
  return at == rest ? std::string_view::npos : from + at;
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

// Is the `size` bytes at `at` of `text` a whole word: no identifier byte right before or after?
inline bool isWholeWordAt(std::string_view text, size_t at, size_t size) {
  size_t end = at + size;
  return !(at > 0 && isIdentifierByte(text[at - 1])) && !(end < text.size() && isIdentifierByte(text[end]));
}

// Calls `visit(offset)` for every occurrence of `word` in `text` that is not part of a longer
// identifier; `visit` returns true to stop. True when some call stopped the search.
template <typename Visit>
bool forEachWholeWord(std::string_view text, std::string_view word, Visit&& visit) {
  for (size_t at = findBytes(text, word); at != std::string_view::npos; at = findBytes(text, word, at + 1)) {
    if (!isWholeWordAt(text, at, word.size())) continue;
    if (visit(at)) return true;
  }
  return false;
}

// Appends to `out` the offsets of the bytes of `text` that are one of `bytes` (at most 8), in
// ascending order (text_search.cpp: 32 bytes of the text at a time).
void offsetsOfBytes(std::string_view text, std::string_view bytes, std::vector<uint32_t>& out);

// The unclosed brackets before each of `positions` (ascending offsets) in `code`, a text whose
// strings and comments are blanked: `visit(index, open)` with the offsets of the unclosed `(`,
// `[` and `{` before positions[index], outermost first. False (after any visits) when the
// brackets of the whole text do not balance: what was visited then tells nothing.
template <typename Visit>
bool withEnclosingBrackets(std::string_view code, const std::vector<size_t>& positions, Visit&& visit) {
  std::vector<uint32_t> brackets;
  offsetsOfBytes(code, "()[]{}", brackets);
  std::vector<size_t> open;
  size_t next = 0;
  for (uint32_t i : brackets) {
    while (next < positions.size() && positions[next] <= i) visit(next++, static_cast<const std::vector<size_t>&>(open));
    char c = code[i];
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(i);
    } else {
      if (open.empty()) return false;
      char o = code[open.back()];
      if ((c == ')') != (o == '(') || (c == ']') != (o == '[')) return false;
      open.pop_back();
    }
  }
  while (next < positions.size()) visit(next++, static_cast<const std::vector<size_t>&>(open));
  return open.empty();
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

  // Every occurrence of each word of `words` (one pass over the text for all of them).
  template <typename Words>
  void addAll(std::string_view text, const Words& words) {
    words.forEachMatchUnordered(text, [&](size_t, size_t at) { offsets_.push_back(static_cast<uint32_t>(at)); });
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

// Many words looked up in one pass over a text (Aho-Corasick over the bytes the words use):
// the cost of one scan, whatever the number of words, instead of one `memmem` per word.
// Immutable once built, so one instance may be shared by threads.
class WordSet {
 public:
  // What a scan found, per word (in the order given to the constructor).
  struct Found {
    std::vector<uint8_t> flags;  // kSubstring | kWholeWord
    bool substring(size_t word) const { return (flags[word] & kSubstring) != 0; }
    bool wholeWord(size_t word) const { return (flags[word] & kWholeWord) != 0; }
  };
  static constexpr uint8_t kSubstring = 1;  // occurs somewhere
  static constexpr uint8_t kWholeWord = 2;  // occurs not inside a longer identifier (`forEachWholeWord`)

  explicit WordSet(std::span<const std::string_view> words) {
    words_.reserve(words.size());
    for (std::string_view w : words) {
      words_.emplace_back(w);
      longest_ = std::max(longest_, w.size());
    }
    // Byte classes: each byte some word uses gets its own; every other byte is class 0, which
    // leads back to the root from any state.
    classes_.fill(0);
    for (const std::string& w : words_)
      for (char c : w) {
        auto& cls = classes_[static_cast<unsigned char>(c)];
        if (cls == 0) cls = static_cast<uint16_t>(++class_count_);
      }
    width_ = class_count_ + 1;
    // The trie.
    std::vector<int32_t> fail(1, 0);
    next_.assign(width_, -1);
    std::vector<std::vector<uint32_t>> out(1);
    for (uint32_t id = 0; id < words_.size(); ++id) {
      if (words_[id].empty()) continue;
      int32_t state = 0;
      for (char c : words_[id]) {
        size_t slot = static_cast<size_t>(state) * width_ + classes_[static_cast<unsigned char>(c)];
        if (next_[slot] < 0) {
          next_[slot] = static_cast<int32_t>(out.size());
          out.emplace_back();
          fail.push_back(0);
          next_.resize(next_.size() + width_, -1);
        }
        state = next_[slot];
      }
      out[state].push_back(id);
    }
    // Failure links, breadth first; missing transitions become the failure's (a full DFA).
    std::deque<int32_t> queue;
    for (size_t k = 0; k < width_; ++k) {
      int32_t& t = next_[k];
      if (t < 0) {
        t = 0;
      } else {
        fail[t] = 0;
        queue.push_back(t);
      }
    }
    while (!queue.empty()) {
      int32_t state = queue.front();
      queue.pop_front();
      const auto& inherited = out[fail[state]];
      out[state].insert(out[state].end(), inherited.begin(), inherited.end());
      for (size_t k = 0; k < width_; ++k) {
        size_t slot = static_cast<size_t>(state) * width_ + k;
        int32_t fallback = next_[static_cast<size_t>(fail[state]) * width_ + k];
        if (next_[slot] < 0) {
          next_[slot] = fallback;
        } else {
          fail[next_[slot]] = fallback;
          queue.push_back(next_[slot]);
        }
      }
    }
    out_begin_.resize(out.size() + 1);
    for (size_t state = 0; state < out.size(); ++state) {
      out_begin_[state] = static_cast<uint32_t>(out_ids_.size());
      out_ids_.insert(out_ids_.end(), out[state].begin(), out[state].end());
    }
    out_begin_[out.size()] = static_cast<uint32_t>(out_ids_.size());
    // The scan's table: each transition holds its target's row offset, shifted left once, with
    // the low bit set when words end there (one load and one test per byte).
    steps_.resize(next_.size());
    for (size_t slot = 0; slot < next_.size(); ++slot) {
      auto target = static_cast<uint32_t>(next_[slot]);
      steps_[slot] = (target * static_cast<uint32_t>(width_)) << 1 | (out[target].empty() ? 0u : 1u);
    }
    next_.clear();
    next_.shrink_to_fit();
  }

  size_t size() const { return words_.size(); }
  std::string_view word(size_t id) const { return words_[id]; }

  // Calls `visit(word, offset)` for every occurrence of every word (overlapping ones included),
  // in order of their end; `visit` returns true to stop. True when some call stopped the scan.
  template <typename Visit>
  bool forEachMatch(std::string_view text, Visit&& visit) const {
    uint32_t step = 0;
    const uint32_t* steps = steps_.data();
    const uint16_t* classes = classes_.data();
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t i = 0, n = text.size(); i < n; ++i) {
      step = steps[(step >> 1) + classes[bytes[i]]];
      if ((step & 1) == 0) continue;
      size_t state = (step >> 1) / width_;
      for (uint32_t k = out_begin_[state], to = out_begin_[state + 1]; k < to; ++k) {
        uint32_t id = out_ids_[k];
        if (visit(static_cast<size_t>(id), i + 1 - words_[id].size())) return true;
      }
    }
    return false;
  }

  // Calls `visit(word, offset)` for every occurrence of every word, as forEachMatch does but in
  // no particular order and without stopping. A large text is scanned as four parts at once:
  // each step of the automaton waits on the load of the previous one, and four independent
  // chains keep the core busy meanwhile (the server scans a large file on each edit).
  template <typename Visit>
  void forEachMatchUnordered(std::string_view text, Visit&& visit) const {
    constexpr size_t kParts = 4;
    if (text.size() < 64 * 1024 || longest_ == 0) {
      forEachMatch(text, [&](size_t id, size_t at) {
        visit(id, at);
        return false;
      });
      return;
    }
    const uint32_t* steps = steps_.data();
    const uint16_t* classes = classes_.data();
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    auto matchesAt = [&](uint32_t step, size_t i) {  // the words that end at byte i
      size_t state = (step >> 1) / width_;
      for (uint32_t k = out_begin_[state], to = out_begin_[state + 1]; k < to; ++k)
        visit(static_cast<size_t>(out_ids_[k]), i + 1 - words_[out_ids_[k]].size());
    };
    // Part k reports the words that end in [begin[k], begin[k] + length). Its automaton starts
    // longest_ - 1 bytes earlier, from the root: no state is deeper than the longest word, so by
    // begin[k] it is in the state a scan from the start of the text would be in.
    const size_t length = text.size() / kParts;
    const size_t begin[kParts] = {0, length, 2 * length, 3 * length};
    auto stateAt = [&](size_t at) {  // the automaton's state before byte `at`
      uint32_t step = 0;
      for (size_t i = at >= longest_ - 1 ? at - (longest_ - 1) : 0; i < at; ++i) step = steps[(step >> 1) + classes[bytes[i]]];
      return step;
    };
    // Four scalars and four pointers, not arrays: the states stay in registers.
    static_assert(kParts == 4);
    uint32_t s0 = 0, s1 = stateAt(begin[1]), s2 = stateAt(begin[2]), s3 = stateAt(begin[3]);
    const unsigned char *b0 = bytes + begin[0], *b1 = bytes + begin[1], *b2 = bytes + begin[2], *b3 = bytes + begin[3];
    for (size_t j = 0; j < length; ++j) {
      s0 = steps[(s0 >> 1) + classes[b0[j]]];
      s1 = steps[(s1 >> 1) + classes[b1[j]]];
      s2 = steps[(s2 >> 1) + classes[b2[j]]];
      s3 = steps[(s3 >> 1) + classes[b3[j]]];
      if (((s0 | s1 | s2 | s3) & 1) == 0) [[likely]]
        continue;
      if (s0 & 1) matchesAt(s0, begin[0] + j);
      if (s1 & 1) matchesAt(s1, begin[1] + j);
      if (s2 & 1) matchesAt(s2, begin[2] + j);
      if (s3 & 1) matchesAt(s3, begin[3] + j);
    }
    uint32_t last = s3;  // the last part also takes the bytes the division left over
    for (size_t i = kParts * length; i < text.size(); ++i) {
      last = steps[(last >> 1) + classes[bytes[i]]];
      if (last & 1) matchesAt(last, i);
    }
  }

  // Which words occur in `text`, and which as whole identifiers.
  Found scan(std::string_view text) const {
    Found found;
    found.flags.assign(words_.size(), 0);
    forEachMatchUnordered(text, [&](size_t id, size_t at) {
      uint8_t& f = found.flags[id];
      f |= kSubstring;
      if ((f & kWholeWord) == 0 && isWholeWordAt(text, at, words_[id].size())) f |= kWholeWord;
    });
    return found;
  }

 private:
  std::vector<std::string> words_;
  std::array<uint16_t, 256> classes_{};
  size_t class_count_ = 0;
  size_t width_ = 1;
  size_t longest_ = 0;  // the longest word's length
  std::vector<int32_t> next_;        // while building: state * width_ + class -> state
  std::vector<uint32_t> steps_;      // the same, as (target * width_) << 1 | "words end there"
  std::vector<uint32_t> out_begin_;  // state -> its words in out_ids_
  std::vector<uint32_t> out_ids_;
};

}  // namespace ptlint::analysis
