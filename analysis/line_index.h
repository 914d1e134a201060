// Byte offset <-> (row, column) conversion. Analysis speaks bytes; output formats and the LSP
// server convert at the edge with this index. Lines end at '\n' (a preceding '\r' belongs to the
// line ending), as in tree-sitter.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ptlint::analysis {

struct RowColumn {
  uint32_t row = 0;     // 0-based
  uint32_t column = 0;  // 0-based, unit depends on the call
};

class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);

  uint32_t lineCount() const { return static_cast<uint32_t>(line_starts_.size()); }
  uint32_t lineOf(uint32_t offset) const;
  uint32_t lineStart(uint32_t row) const;
  // End of the line's content, before its '\r\n' or '\n'.
  uint32_t lineContentEnd(uint32_t row, std::string_view text) const;
  std::string_view lineText(uint32_t row, std::string_view text) const;

  RowColumn byteRowColumn(uint32_t offset) const;
  // Column counted in Unicode code points (what the CLI prints, 0-based here).
  RowColumn codePointRowColumn(uint32_t offset, std::string_view text) const;

 private:
  std::vector<uint32_t> line_starts_{0};
  // Lines holding a byte >= 0x80: only there do code points differ from bytes. Keeps column
  // conversion O(1) on ASCII lines (a 10 MB single-line file with many findings stays linear).
  std::vector<bool> line_has_multibyte_{false};
};

// Counts the code points of a UTF-8 byte range (continuation bytes are not counted).
uint32_t countCodePoints(std::string_view utf8);

// True when the bytes are valid UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
bool isValidUtf8(std::string_view bytes);

// The lines of `text`, each with its '\n' (the last one may lack it).
inline std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

}  // namespace ptlint::analysis
