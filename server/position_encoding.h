// LSP positions <-> byte offsets. The only code in ptlint that knows UTF-16: analysis speaks
// bytes, and every position crosses this boundary exactly once on its way in or out.
//
// Lines follow the LSP definition ('\n', "\r\n" and a lone '\r' all end a line), so that the
// server splits text exactly as the client does. Out-of-range positions are clamped (a
// character past the end of its line means the end of the line; a line past the end of the
// text means the end of the text), never an error: clients do send them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ptlint::server {

enum class PositionEncoding { Utf16, Utf8 };

struct LspPosition {
  uint32_t line = 0;
  uint32_t character = 0;  // code units of the negotiated encoding
  friend bool operator==(const LspPosition&, const LspPosition&) = default;
};

// Line starts of a text under the LSP line definition. Cheap to build (one pass).
class LineTable {
 public:
  LineTable() = default;
  explicit LineTable(std::string_view text);

  uint32_t lineCount() const { return static_cast<uint32_t>(starts_.size()); }
  uint32_t lineStart(uint32_t line) const { return starts_[line]; }
  // The line's content end: before its line break.
  uint32_t lineContentEnd(uint32_t line, std::string_view text) const;
  uint32_t lineOf(uint32_t offset) const;

 private:
  std::vector<uint32_t> starts_{0};
};

// Byte offset of `position` in `text`, clamped to the text (and to the line's content). A
// position inside a UTF-8 sequence (or between a surrogate pair) moves to the sequence start.
uint32_t toOffset(std::string_view text, const LineTable& lines, LspPosition position, PositionEncoding encoding);

// Position of byte `offset` (clamped to the text; an offset inside a UTF-8 sequence counts
// from the sequence start).
LspPosition toPosition(std::string_view text, const LineTable& lines, uint32_t offset, PositionEncoding encoding);

// Code units of `utf8` in `encoding` (a 4-byte sequence is 2 UTF-16 units; invalid bytes 1).
uint32_t measure(std::string_view utf8, PositionEncoding encoding);

}  // namespace ptlint::server
