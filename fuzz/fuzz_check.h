// Invariant checks shared by the fuzz targets. A broken invariant prints what broke and aborts,
// so libFuzzer records the input as a crash and the replay driver fails the test.
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace ptlint::fuzz {

[[noreturn]] inline void fail(const char* what, long a = -1, long b = -1) {
  std::fprintf(stderr, "invariant broken: %s (%ld, %ld)\n", what, a, b);
  std::abort();
}

inline void require(bool ok, const char* what, long a = -1, long b = -1) {
  if (!ok) fail(what, a, b);
}

// True when `offset` does not split a UTF-8 sequence of `text` (the end counts as a boundary).
inline bool onUtf8Boundary(std::string_view text, size_t offset) {
  if (offset >= text.size()) return offset == text.size();
  return (static_cast<unsigned char>(text[offset]) & 0xC0) != 0x80;
}

// A byte range [start, end) lies inside `text`; with `utf8`, both ends are on boundaries.
inline void requireRange(std::string_view text, size_t start, size_t end, bool utf8, const char* what) {
  require(start <= end, what, static_cast<long>(start), static_cast<long>(end));
  require(end <= text.size(), what, static_cast<long>(end), static_cast<long>(text.size()));
  if (utf8) {
    require(onUtf8Boundary(text, start), what, static_cast<long>(start), -2);
    require(onUtf8Boundary(text, end), what, static_cast<long>(end), -3);
  }
}

// A fresh folder under the temporary directory, named `<prefix>-XXXXXX`.
inline std::filesystem::path makeScratchDir(std::string_view prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) fail("mkdtemp");
  return tmpl;
}

}  // namespace ptlint::fuzz
