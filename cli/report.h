// What `ptlint check` found, per file, ready for the output formats.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/line_index.h"
#include "rules/rule.h"

namespace ptlint::cli {

struct FileReport {
  std::string path;                // absolute (a string: a path object holds one object per level)
  std::string display_path;        // relative to the working folder when inside it
  std::string text;                // final text (after fixes), without BOM; kept only when needed
  analysis::LineIndex lines;       // of `text`
  std::vector<rules::Diagnostic> diagnostics;
  std::map<size_t, nlohmann::json> validation;  // diagnostic index -> the "validation" object (docs/gpu_check.md)
  bool unsafe_fixes = false;        // the file's settings allow unsafe fixes
  int findings_fixed = 0;           // findings the fixes resolved (one fix may resolve several)
  std::string diff;                        // --diff output
  std::optional<std::string> error;        // I/O or encoding problem: exit 2
  std::optional<std::string> config_error;  // its configuration is invalid: not checked, exit 2
  std::optional<std::string> notice;       // e.g. "fix reverted: it would add a syntax error"
  // A notebook: where each code cell starts in `text` (0-based row, 1-based cell number among
  // all cells), ascending. Rows shown are then counted within the cell.
  std::vector<std::pair<uint32_t, uint32_t>> cells;
};

}  // namespace ptlint::cli
