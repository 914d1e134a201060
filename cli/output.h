// Output formats of `ptlint check`: full, concise, json, json-lines, sarif, github.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "cli/report.h"

namespace ptlint::cli {

enum class OutputFormat { Full, Concise, Json, JsonLines, Sarif, Github };

struct OutputOptions {
  OutputFormat format = OutputFormat::Concise;
  bool unsafe_fixes = false;  // whether unsafe fixes count as fixable in `[*]` marks
  bool color = false;
};

// One JSON object per diagnostic, with Ruff's field names (README, JSON output).
nlohmann::json diagnosticToJson(const FileReport& file, size_t index);

// `file://` URI of an absolute path, percent-encoded as RFC 3986 requires (SARIF's artifact URIs).
std::string fileUri(const std::filesystem::path& absolute);

void writeDiagnostics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options);
void writeStatistics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options);

}  // namespace ptlint::cli
