#include "analysis/line_index.h"

#include <algorithm>
#include <cstring>

namespace ptlint::analysis {

namespace {

// Does the range hold a byte >= 0x80? Eight bytes at a time: source is mostly ASCII.
bool hasNonAscii(const char* begin, const char* end) {
  for (uint64_t word; end - begin >= 8; begin += 8) {
    std::memcpy(&word, begin, 8);
    if (word & 0x8080808080808080ull) return true;
  }
  for (; begin < end; ++begin)
    if (static_cast<unsigned char>(*begin) >= 0x80) return true;
  return false;
}

}  // namespace

LineIndex::LineIndex(std::string_view text) {
  if (text.empty()) return;
  line_starts_.reserve(text.size() / 32 + 1);
  const char* data = text.data();
  const char* end = data + text.size();
  const char* line = data;
  while (true) {
    const auto* newline = static_cast<const char*>(std::memchr(line, '\n', static_cast<size_t>(end - line)));
    const char* line_end = newline != nullptr ? newline : end;
    if (hasNonAscii(line, line_end)) line_has_multibyte_.back() = true;
    if (newline == nullptr) break;
    line = newline + 1;
    line_starts_.push_back(static_cast<uint32_t>(line - data));
    line_has_multibyte_.push_back(false);
  }
}

uint32_t LineIndex::lineOf(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<uint32_t>(it - line_starts_.begin()) - 1;
}

uint32_t LineIndex::lineStart(uint32_t row) const {
  return row < line_starts_.size() ? line_starts_[row] : line_starts_.back();
}

uint32_t LineIndex::lineContentEnd(uint32_t row, std::string_view text) const {
  uint32_t end = row + 1 < line_starts_.size() ? line_starts_[row + 1] : static_cast<uint32_t>(text.size());
  if (end > text.size()) end = static_cast<uint32_t>(text.size());
  uint32_t start = lineStart(row);
  if (end > start && text[end - 1] == '\n') --end;
  if (end > start && text[end - 1] == '\r') --end;
  return end;
}

std::string_view LineIndex::lineText(uint32_t row, std::string_view text) const {
  uint32_t start = std::min<uint32_t>(lineStart(row), static_cast<uint32_t>(text.size()));
  return text.substr(start, lineContentEnd(row, text) - start);
}

RowColumn LineIndex::byteRowColumn(uint32_t offset) const {
  uint32_t row = lineOf(offset);
  return {row, offset - line_starts_[row]};
}

RowColumn LineIndex::codePointRowColumn(uint32_t offset, std::string_view text) const {
  if (offset > text.size()) offset = static_cast<uint32_t>(text.size());
  uint32_t row = lineOf(offset);
  uint32_t start = line_starts_[row];
  if (!line_has_multibyte_[row]) return {row, offset - start};
  return {row, countCodePoints(text.substr(start, offset - start))};
}

uint32_t countCodePoints(std::string_view utf8) {
  uint32_t count = 0;
  for (unsigned char c : utf8)
    if ((c & 0xC0) != 0x80) ++count;
  return count;
}

bool isValidUtf8(std::string_view bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size(), i = 0;
  while (i < n) {
    // Source is mostly ASCII: skip it 16 bytes at a time.
    for (uint64_t a, b; i + 16 <= n; i += 16) {
      std::memcpy(&a, s + i, 8);
      std::memcpy(&b, s + i + 8, 8);
      if ((a | b) & 0x8080808080808080ull) break;
    }
    if (i >= n) break;
    unsigned char c = s[i];
    if (c < 0x80) { ++i; continue; }
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return false;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

}  // namespace ptlint::analysis
