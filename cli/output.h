// Output formats of `ptlint check`: full, concise, json, json-lines, sarif, github, and Ruff's
// CI formats (gitlab, junit, pylint, grouped, rdjson, azure: cli/output_ci.cpp).
#pragma once

#include <filesystem>
#include <optional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "cli/report.h"

namespace ptlint::cli {

enum class OutputFormat { Full, Concise, Json, JsonLines, Sarif, Github, Gitlab, Junit, Pylint, Grouped, Rdjson, Azure };

// `--output-format` names, as Ruff spells them; nullopt for an unknown one.
std::optional<OutputFormat> parseOutputFormat(std::string_view name);
// Every name parseOutputFormat accepts, in the order the help lists them.
const std::vector<std::string>& outputFormatNames();
// Whether the format is read by a program: no summary lines ("Found 3 errors.") around it.
bool isMachineFormat(OutputFormat format);

struct OutputOptions {
  OutputFormat format = OutputFormat::Concise;
  bool unsafe_fixes = false;  // whether unsafe fixes count as fixable in `[*]` marks
  bool color = false;
};

struct Location {
  uint32_t row;       // 1-based (within the cell in a notebook)
  uint32_t column;    // 1-based, code points
  uint32_t cell = 0;  // 1-based cell of a notebook; 0 for other files
};

// Where a byte offset of the report's text is shown.
Location locate(const FileReport& file, uint32_t offset);

// Ruff's CI formats (cli/output_ci.cpp).
void writeCiFormat(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options);

// One JSON object per diagnostic, with Ruff's field names (README, JSON output).
nlohmann::json diagnosticToJson(const FileReport& file, size_t index);

// `file://` URI of an absolute path, percent-encoded as RFC 3986 requires (SARIF's artifact URIs).
std::string fileUri(const std::filesystem::path& absolute);

void writeDiagnostics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options);
void writeStatistics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options);

}  // namespace ptlint::cli
