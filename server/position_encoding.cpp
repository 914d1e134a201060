#include "server/position_encoding.h"

#include <algorithm>
#include <cstring>

namespace ptlint::server {
namespace {

// Length of the UTF-8 sequence led by `lead` (1 for ASCII and for invalid bytes, which then
// count as one unit each: the client cannot have sent them as text anyway).
uint32_t sequenceLength(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF8) return 4;
  return 1;
}

uint32_t unitsOf(uint32_t sequence_length, PositionEncoding encoding) {
  if (encoding == PositionEncoding::Utf8) return sequence_length;
  return sequence_length == 4 ? 2 : 1;
}

}  // namespace

LineTable::LineTable(std::string_view text) {
  starts_.reserve(text.size() / 32 + 1);
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* p = begin;
  while (p < end) {
    // memchr twice is far faster than a byte loop on long files; '\r' is rare.
    const char* lf = static_cast<const char*>(std::memchr(p, '\n', end - p));
    const char* cr = static_cast<const char*>(std::memchr(p, '\r', (lf ? lf : end) - p));
    if (cr) {
      p = cr + 1;
      if (p < end && *p == '\n') ++p;  // "\r\n" is one break
    } else if (lf) {
      p = lf + 1;
    } else {
      break;
    }
    starts_.push_back(static_cast<uint32_t>(p - begin));
  }
}

uint32_t LineTable::lineContentEnd(uint32_t line, std::string_view text) const {
  uint32_t end = line + 1 < starts_.size() ? starts_[line + 1] : static_cast<uint32_t>(text.size());
  uint32_t start = starts_[line];
  if (end > start && text[end - 1] == '\n') --end;
  if (end > start && text[end - 1] == '\r') --end;
  return end;
}

uint32_t LineTable::lineOf(uint32_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<uint32_t>(it - starts_.begin()) - 1;
}

uint32_t measure(std::string_view utf8, PositionEncoding encoding) {
  if (encoding == PositionEncoding::Utf8) return static_cast<uint32_t>(utf8.size());
  uint32_t units = 0;
  for (size_t i = 0; i < utf8.size();) {
    uint32_t n = sequenceLength(static_cast<unsigned char>(utf8[i]));
    if (i + n > utf8.size()) n = 1;
    units += unitsOf(n, encoding);
    i += n;
  }
  return units;
}

uint32_t toOffset(std::string_view text, const LineTable& lines, LspPosition position, PositionEncoding encoding) {
  if (position.line >= lines.lineCount()) return static_cast<uint32_t>(text.size());
  uint32_t start = lines.lineStart(position.line);
  uint32_t end = lines.lineContentEnd(position.line, text);
  uint32_t offset = start;
  uint32_t units = 0;
  while (offset < end && units < position.character) {
    uint32_t n = sequenceLength(static_cast<unsigned char>(text[offset]));
    if (offset + n > end) n = 1;
    uint32_t u = unitsOf(n, encoding);
    if (units + u > position.character) break;  // inside a sequence: stay at its start
    units += u;
    offset += n;
  }
  return offset;
}

LspPosition toPosition(std::string_view text, const LineTable& lines, uint32_t offset, PositionEncoding encoding) {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  uint32_t line = lines.lineOf(offset);
  uint32_t start = lines.lineStart(line);
  // An offset inside a "\r\n" pair, or in a line break, maps to the end of the line's content.
  offset = std::min(offset, lines.lineContentEnd(line, text));
  while (offset > start && offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) --offset;
  return {line, measure(text.substr(start, offset - start), encoding)};
}

}  // namespace ptlint::server
