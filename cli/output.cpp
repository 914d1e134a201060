#include "cli/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include <filesystem>
#include <map>
#include <ostream>
#include <set>

#include "ptlint/version.h"
#include "rules/registry.h"

namespace ptlint::cli {
namespace {

using nlohmann::json;

struct Location {
  uint32_t row;     // 1-based (within the cell in a notebook)
  uint32_t column;  // 1-based, code points
  uint32_t cell = 0;  // 1-based cell of a notebook; 0 for other files
};

Location locate(const FileReport& file, uint32_t offset) {
  auto rc = file.lines.codePointRowColumn(offset, file.text);
  Location at{rc.row + 1, rc.column + 1};
  if (!file.cells.empty()) {
    auto it = std::upper_bound(file.cells.begin(), file.cells.end(), std::make_pair(rc.row, UINT32_MAX));
    if (it != file.cells.begin()) {
      --it;
      at.row = rc.row - it->first + 1;
      at.cell = it->second;
    }
  }
  return at;
}

// `path:row:col`, or `path:cell N:row:col` in a notebook.
std::string where(const FileReport& file, Location l) {
  if (l.cell) return fmt::format("{}:cell {}:{}:{}", file.display_path, l.cell, l.row, l.column);
  return fmt::format("{}:{}:{}", file.display_path, l.row, l.column);
}

json locationJson(Location l) { return {{"row", l.row}, {"column", l.column}}; }

bool isFixable(const rules::Diagnostic& d, const OutputOptions& options) {
  if (!d.fix) return false;
  return d.fix->applicability == quickfix::Applicability::Safe ||
         (options.unsafe_fixes && d.fix->applicability == quickfix::Applicability::Unsafe);
}

std::string_view ruleName(std::string_view code) {
  const rules::RuleMeta* meta = rules::findMeta(code);
  return meta ? meta->name : std::string_view{};
}

void writeFull(std::ostream& out, const FileReport& file, const rules::Diagnostic& d, const OutputOptions& options) {
  Location start = locate(file, d.start), end = locate(file, d.end);
  out << fmt::format("{}: {} {}{}\n", where(file, start), d.code, isFixable(d, options) ? "[*] " : "", d.message);
  // The source line with a caret under the reported range (its first line only).
  std::string_view line = file.lines.lineText(file.lines.codePointRowColumn(d.start, file.text).row, file.text);
  std::string gutter = std::to_string(start.row);
  std::string pad(gutter.size(), ' ');
  uint32_t width = analysis::countCodePoints(line);
  uint32_t caret_end = end.row == start.row ? end.column : width + 1;
  uint32_t carets = caret_end > start.column ? caret_end - start.column : 1;
  out << pad << " |\n";
  out << gutter << " | " << line << "\n";
  out << pad << " | " << std::string(start.column - 1, ' ') << std::string(carets, '^') << " " << d.code << "\n";
  out << pad << " |\n";
  if (d.fix) out << pad << " = help: " << d.fix->message << "\n";
  for (const auto& rel : d.related) {
    if (!rel.path.empty()) {  // in another file
      std::error_code ec;
      std::filesystem::path other = std::filesystem::path(rel.path).lexically_relative(std::filesystem::current_path(ec));
      std::string shown = !ec && !other.empty() && !other.native().starts_with("..") ? other.string() : rel.path;
      out << pad << " = note: " << shown << ":" << rel.line + 1 << ":" << rel.column << ": " << rel.message << "\n";
      continue;
    }
    Location r = locate(file, rel.start);
    out << pad << " = note: " << where(file, r) << ": " << rel.message << "\n";
  }
  out << "\n";
}

// GitHub workflow commands (`::error file=…::message`): the runner reads `%`, CR and LF in the
// message as escapes, and `:` and `,` in a property as the end of it. Escaped as
// actions/toolkit's `escapeData` / `escapeProperty` do.
std::string githubData(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string githubProperty(std::string_view text) {
  std::string out;
  for (char c : githubData(text)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

}  // namespace

std::string fileUri(const std::filesystem::path& absolute) {
  // RFC 3986 / RFC 8089: every byte outside the unreserved set and '/' is percent-encoded
  // (spaces, '%', '#', '?', control characters, bytes of non-ASCII names).
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : absolute.generic_string()) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

json jsonUrl(const std::string& url) { return url.empty() ? json(nullptr) : json(url); }

json sarifRules() {
  json rules = json::array();
  auto add = [&](const rules::RuleMeta& meta) {
    std::string url = rules::ruleDocsUrl(meta.code);
    json rule = {{"id", meta.code},
                 {"name", meta.name},
                 {"shortDescription", {{"text", meta.summary}}},
                 {"fullDescription", {{"text", meta.docs}}},
                 {"help", {{"text", url.empty() ? meta.summary : fmt::format("{} (see {})", meta.summary, url)},
                           {"markdown", meta.docs}}},
                 {"defaultConfiguration", {{"level", meta.severity == rules::Severity::Error ? "error" : "warning"}}}};
    if (!url.empty()) rule["helpUri"] = url;  // never a link that does not resolve
    rules.push_back(std::move(rule));
  };
  for (const rules::RuleMeta* meta : rules::allMetas()) add(*meta);
  return rules;
}

}  // namespace

json diagnosticToJson(const FileReport& file, size_t index) {
  const rules::Diagnostic& d = file.diagnostics[index];
  Location start = locate(file, d.start), end = locate(file, d.end);
  json fix = nullptr;
  if (d.fix) {
    json edits = json::array();
    for (const auto& e : d.fix->edits)
      edits.push_back({{"content", e.content},
                       {"location", locationJson(locate(file, e.start))},
                       {"end_location", locationJson(locate(file, e.end))}});
    fix = {{"applicability", quickfix::applicabilityName(d.fix->applicability)},
           {"message", d.fix->message},
           {"edits", edits}};
  }
  json row = {{"code", d.code},
              {"message", d.message},
              {"filename", file.path},
              {"location", locationJson(start)},
              {"end_location", locationJson(end)},
              {"fix", fix},
              {"noqa_row", start.row},
              {"url", jsonUrl(rules::ruleDocsUrl(d.code))},
              {"severity", rules::severityName(d.severity)},
              {"cell", start.cell ? json(start.cell) : json(nullptr)}};
  auto v = file.validation.find(index);
  if (v != file.validation.end()) row["validation"] = v->second;
  return row;
}

void writeDiagnostics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options) {
  switch (options.format) {
    case OutputFormat::Json: {
      json all = json::array();
      for (const auto& f : files)
        for (size_t i = 0; i < f.diagnostics.size(); ++i) all.push_back(diagnosticToJson(f, i));
      out << all.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return;
    }
    case OutputFormat::JsonLines:
      for (const auto& f : files)
        for (size_t i = 0; i < f.diagnostics.size(); ++i)
          out << diagnosticToJson(f, i).dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
      return;
    case OutputFormat::Sarif: {
      json results = json::array();
      for (const auto& f : files) {
        for (const auto& d : f.diagnostics) {
          Location s = locate(f, d.start), e = locate(f, d.end);
          results.push_back(
              {{"ruleId", d.code},
               {"level", d.severity == rules::Severity::Error ? "error" : "warning"},
               {"message", {{"text", d.message}}},
               {"locations",
                {{{"physicalLocation",
                   {{"artifactLocation", {{"uri", fileUri(f.path)}}},
                    {"region",
                     {{"startLine", s.row}, {"startColumn", s.column}, {"endLine", e.row}, {"endColumn", e.column}}}}}}}}});
        }
      }
      json sarif = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                    {"version", "2.1.0"},
                    {"runs",
                     {{{"tool",
                        {{"driver",
                          {{"name", "ptlint"},
                           {"version", kVersion},
                           {"informationUri", rules::projectUrl()},
                           {"rules", sarifRules()}}}}},
                       {"results", results}}}}};
      out << sarif.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return;
    }
    case OutputFormat::Github:
      for (const auto& f : files)
        for (const auto& d : f.diagnostics) {
          Location s = locate(f, d.start), e = locate(f, d.end);
          out << fmt::format("::{} title={},file={},line={},col={},endLine={},endColumn={}::{}\n",
                             d.severity == rules::Severity::Error ? "error" : "warning",
                             githubProperty(fmt::format("ptlint ({})", d.code)), githubProperty(f.path), s.row,
                             s.column, e.row, e.column,
                             githubData(fmt::format("{}: {} {}", where(f, s), d.code, d.message)));
        }
      return;
    case OutputFormat::Full:
      for (const auto& f : files)
        for (const auto& d : f.diagnostics) writeFull(out, f, d, options);
      return;
    case OutputFormat::Concise:
      for (const auto& f : files)
        for (const auto& d : f.diagnostics) {
          Location s = locate(f, d.start);
          out << fmt::format("{}: {} {}{}\n", where(f, s), d.code, isFixable(d, options) ? "[*] " : "", d.message);
        }
      return;
  }
}

void writeStatistics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options) {
  std::map<std::string_view, std::pair<size_t, bool>> counts;
  for (const auto& f : files)
    for (const auto& d : f.diagnostics) {
      auto& entry = counts[d.code];
      ++entry.first;
      entry.second = entry.second || isFixable(d, options);
    }
  std::vector<std::pair<std::string_view, std::pair<size_t, bool>>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  if (options.format == OutputFormat::Json) {
    json rows = json::array();
    for (const auto& [code, entry] : sorted)
      rows.push_back({{"code", code}, {"name", ruleName(code)}, {"count", entry.first}, {"fixable", entry.second}});
    out << rows.dump(2) << "\n";
    return;
  }
  for (const auto& [code, entry] : sorted)
    out << fmt::format("{:>5}\t{}\t{}{}\n", entry.first, code, entry.second ? "[*] " : "[ ] ", ruleName(code));
}

}  // namespace ptlint::cli
