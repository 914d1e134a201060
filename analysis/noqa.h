// `# noqa` suppression comments. Only real comments count (never text inside strings).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/parse.h"

namespace ptlint::analysis {

struct NoqaDirective {
  uint32_t comment_start = 0;       // byte offset of the comment
  uint32_t comment_end = 0;
  bool all = false;                 // bare `# noqa`
  std::vector<std::string> codes;   // `# noqa: PTL101, PTL2`
  uint32_t codes_end = 0;           // byte offset just after the last listed code
  uint32_t section_start = 0;       // byte offset of the `#` that starts this `noqa` section
  uint32_t section_end = 0;         // just after its last code (or after `noqa` when bare)
  std::vector<std::pair<uint32_t, uint32_t>> code_ranges;  // [start, end) of each listed code
};

class NoqaIndex {
 public:
  static NoqaIndex build(const ParsedFile& file);

  // Is a diagnostic with `code`, whose construct starts on `row` (0-based), suppressed?
  bool suppresses(std::string_view code, uint32_t row) const;
  const NoqaDirective* directiveOnRow(uint32_t row) const;
  // Every line directive, keyed by its 0-based row (not file-level `# ptlint: noqa`).
  const std::unordered_map<uint32_t, NoqaDirective>& directives() const { return by_row_; }

 private:
  std::unordered_map<uint32_t, NoqaDirective> by_row_;
  bool file_all_ = false;
  std::vector<std::string> file_codes_;
};

// True when `code` is selected by `pattern`: equal, or `pattern` is a prefix of it.
bool codeMatches(std::string_view pattern, std::string_view code);

}  // namespace ptlint::analysis
