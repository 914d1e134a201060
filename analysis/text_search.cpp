#include "analysis/text_search.h"

#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define PTLINT_FIND_X86 1
#endif

namespace ptlint::analysis {
namespace {

// Does the candidate at `at` hold the word? Its first and last bytes already matched.
inline bool middleMatches(const char* at, const char* word, size_t word_size) {
  return word_size <= 2 || memcmp(at + 1, word + 1, word_size - 2) == 0;
}

// The positions from `from` on, one at a time (what the vector loop leaves at the end).
size_t scalarFrom(const char* text, size_t size, const char* word, size_t word_size, size_t from) {
  for (size_t at = from; at + word_size <= size; ++at)
    if (text[at] == word[0] && text[at + word_size - 1] == word[word_size - 1] && middleMatches(text + at, word, word_size))
      return at;
  return size;
}

#ifdef PTLINT_FIND_X86
// 16 positions at a time: where the first byte and, `word_size - 1` further on, the last byte
// both match (a pair of bytes that is rare in code even when each byte alone is common).
size_t firstOccurrenceSse2(const char* text, size_t size, const char* word, size_t word_size) {
  const __m128i first = _mm_set1_epi8(word[0]), last = _mm_set1_epi8(word[word_size - 1]);
  size_t at = 0;
  for (; at + word_size - 1 + 16 <= size; at += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + at));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + at + word_size - 1));
    auto mask = static_cast<uint32_t>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
    for (; mask != 0; mask &= mask - 1) {
      size_t hit = at + static_cast<size_t>(__builtin_ctz(mask));
      if (middleMatches(text + hit, word, word_size)) return hit;
    }
  }
  return scalarFrom(text, size, word, word_size, at);
}

// The same, 32 positions at a time.
__attribute__((target("avx2"))) size_t firstOccurrenceAvx2(const char* text, size_t size, const char* word,
                                                           size_t word_size) {
  const __m256i first = _mm256_set1_epi8(word[0]), last = _mm256_set1_epi8(word[word_size - 1]);
  size_t at = 0;
  for (; at + word_size - 1 + 32 <= size; at += 32) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + at));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + at + word_size - 1));
    auto mask = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last))));
    for (; mask != 0; mask &= mask - 1) {
      size_t hit = at + static_cast<size_t>(__builtin_ctz(mask));
      if (middleMatches(text + hit, word, word_size)) return hit;
    }
  }
  return scalarFrom(text, size, word, word_size, at);
}

// offsetsOfBytes, 32 bytes at a time.
__attribute__((target("avx2"))) size_t offsetsOfBytesAvx2(std::string_view text, std::string_view bytes,
                                                          std::vector<uint32_t>& out) {
  __m256i wanted[8];
  for (size_t k = 0; k < bytes.size(); ++k) wanted[k] = _mm256_set1_epi8(bytes[k]);
  size_t at = 0;
  for (; at + 32 <= text.size(); at += 32) {
    __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + at));
    __m256i any = _mm256_cmpeq_epi8(block, wanted[0]);
    for (size_t k = 1; k < bytes.size(); ++k) any = _mm256_or_si256(any, _mm256_cmpeq_epi8(block, wanted[k]));
    for (auto mask = static_cast<uint32_t>(_mm256_movemask_epi8(any)); mask != 0; mask &= mask - 1)
      out.push_back(static_cast<uint32_t>(at + static_cast<size_t>(__builtin_ctz(mask))));
  }
  return at;
}

const bool kHasAvx2 = [] {
  __builtin_cpu_init();  // may run before libgcc's own initialisation
  return __builtin_cpu_supports("avx2") != 0;
}();
#endif

}  // namespace

size_t firstOccurrence(const char* text, size_t size, const char* word, size_t word_size) {
  if (word_size > size) return size;
  if (word_size == 1) {
    const void* hit = memchr(text, word[0], size);
    return hit == nullptr ? size : static_cast<size_t>(static_cast<const char*>(hit) - text);
  }
#ifdef PTLINT_FIND_X86
  return kHasAvx2 ? firstOccurrenceAvx2(text, size, word, word_size) : firstOccurrenceSse2(text, size, word, word_size);
#else
  const void* hit = memmem(text, size, word, word_size);
  return hit == nullptr ? size : static_cast<size_t>(static_cast<const char*>(hit) - text);
#endif
}

void offsetsOfBytes(std::string_view text, std::string_view bytes, std::vector<uint32_t>& out) {
  if (bytes.empty()) return;
  size_t at = 0;
#ifdef PTLINT_FIND_X86
  if (kHasAvx2 && bytes.size() <= 8) at = offsetsOfBytesAvx2(text, bytes, out);
#endif
  for (; at < text.size(); ++at)
    if (bytes.find(text[at]) != std::string_view::npos) out.push_back(static_cast<uint32_t>(at));
}

size_t firstOccurrenceNarrow(const char* text, size_t size, const char* word, size_t word_size) {
  if (word_size > size) return size;
  if (word_size == 1) return firstOccurrence(text, size, word, word_size);
#ifdef PTLINT_FIND_X86
  return firstOccurrenceSse2(text, size, word, word_size);
#else
  return firstOccurrence(text, size, word, word_size);
#endif
}

}  // namespace ptlint::analysis
