// isValidUtf8: the gate every file and LSP text passes before parsing. The ASCII fast path
// reads 16 bytes at a time, so each case is tried at every offset around those chunks.
#include <gtest/gtest.h>

#include <string>

#include "analysis/line_index.h"

using ptlint::analysis::isValidUtf8;

namespace {

std::string at(size_t offset, std::string_view bytes, size_t total = 48) {
  std::string text(offset, 'a');
  text += bytes;
  if (text.size() < total) text.append(total - text.size(), 'b');
  return text;
}

TEST(Utf8, AsciiAndEmptyAreValid) {
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_TRUE(isValidUtf8(std::string(1000, 'x')));
  EXPECT_TRUE(isValidUtf8(std::string(1, '\0')));
}

TEST(Utf8, WellFormedSequencesAtEveryOffset) {
  for (std::string_view valid : {"\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBD"})
    for (size_t offset = 0; offset < 40; ++offset) EXPECT_TRUE(isValidUtf8(at(offset, valid))) << offset;
}

TEST(Utf8, MalformedSequencesAtEveryOffset) {
  for (std::string_view bad : {
           "\xFF",              // never valid
           "\x80",              // a continuation byte alone
           "\xC3(",             // a lead byte without its continuation
           "\xC0\x80",          // overlong NUL
           "\xE0\x80\x80",      // overlong
           "\xED\xA0\x80",      // a UTF-16 surrogate
           "\xF4\x90\x80\x80",  // past U+10FFFF
           "\xF8\x88\x80\x80\x80",
       })
    for (size_t offset = 0; offset < 40; ++offset) EXPECT_FALSE(isValidUtf8(at(offset, bad))) << offset;
}

TEST(Utf8, SequenceCutAtTheEnd) {
  for (size_t offset = 0; offset < 40; ++offset) {
    std::string text(offset, 'a');
    EXPECT_FALSE(isValidUtf8(text + "\xE4\xB8")) << offset;
    EXPECT_FALSE(isValidUtf8(text + "\xF0")) << offset;
  }
}

}  // namespace
