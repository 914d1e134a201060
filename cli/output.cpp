#include "cli/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include <filesystem>
#include <map>
#include <ostream>
#include <set>

#include "cli/terminal.h"
#include "ptlint/version.h"
#include "rules/registry.h"
#include "workspace/notebook.h"

namespace ptlint::cli {

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

namespace {

using nlohmann::json;

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

// `path:row:col: CODE [*] message`, coloured as Ruff's (bold path, cyan separators, red code).
std::string header(const FileReport& file, Location l, const rules::Diagnostic& d, const OutputOptions& options) {
  Styles st{options.color};
  std::string sep = st.paint(st.separator(), ":");
  std::string at = l.cell ? fmt::format("{}{}cell {}{}{}{}{}", st.paint(st.bold(), file.display_path), sep, l.cell, sep,
                                        l.row, sep, l.column)
                          : fmt::format("{}{}{}{}{}", st.paint(st.bold(), file.display_path), sep, l.row, sep, l.column);
  std::string fixable = isFixable(d, options) ? fmt::format("[{}] ", st.paint(st.separator(), "*")) : "";
  return fmt::format("{}{} {} {}{}", at, sep, st.paint(st.code(), d.code), fixable, d.message);
}

// Context lines shown around a finding, as Ruff's `full` format: two before and after.
constexpr uint32_t kContextLines = 2;

bool blank(std::string_view line) { return line.find_first_not_of(" \t\f\v") == std::string_view::npos; }

void writeFull(std::ostream& out, const FileReport& file, const rules::Diagnostic& d, const OutputOptions& options) {
  Styles st{options.color};
  Location start = locate(file, d.start), end = locate(file, d.end);
  out << header(file, start, d, options) << "\n";
  // The lines of the range with context around it, never past the file or the notebook cell;
  // blank context lines at either edge are left out (as Ruff does).
  uint32_t first_row = file.lines.codePointRowColumn(d.start, file.text).row;
  const uint32_t end_row = file.lines.codePointRowColumn(d.end, file.text).row;
  uint32_t last_row = end_row;
  if (last_row > first_row && end.column == 1) --last_row;  // a range ending at a line start
  uint32_t low = 0, high = file.lines.lineCount() - 1;
  if (!file.cells.empty()) {
    auto it = std::upper_bound(file.cells.begin(), file.cells.end(), std::make_pair(first_row, UINT32_MAX));
    if (it != file.cells.begin()) low = std::prev(it)->first;
    if (it != file.cells.end() && it->first > 0) high = std::min(high, it->first - 1);
  }
  last_row = std::min(last_row, high);
  uint32_t from = first_row >= low + kContextLines ? first_row - kContextLines : low;
  uint32_t to = std::min(high, last_row + kContextLines);
  for (uint32_t row = last_row + 1; row <= to && !file.cells.empty(); ++row)
    if (file.lines.lineText(row, file.text) == workspace::kCellSeparator) to = row - 1;  // the next cell's
  while (from < first_row && blank(file.lines.lineText(from, file.text))) ++from;
  while (to > last_row && blank(file.lines.lineText(to, file.text))) --to;
  uint32_t row_offset = start.row - first_row;  // shown row = index + offset (cell-relative in a notebook)
  std::string widest = std::to_string(to + row_offset);
  std::string pad(widest.size(), ' ');
  std::string bar = st.paint(st.line_number(), "|");
  std::string_view mark = d.severity == rules::Severity::Error ? st.error() : st.warning();
  out << pad << " " << bar << "\n";
  for (uint32_t row = from; row <= to; ++row) {
    std::string_view line = file.lines.lineText(row, file.text);
    std::string number = std::to_string(row + row_offset);
    out << st.paint(st.line_number(), std::string(widest.size() - number.size(), ' ') + number) << " " << bar;
    out << (line.empty() ? "" : " ") << line << "\n";
    if (row < first_row || row > last_row) continue;
    // Carets under the part of this line that the range covers.
    uint32_t width = analysis::countCodePoints(line);
    uint32_t indent = static_cast<uint32_t>(std::min(line.find_first_not_of(" \t"), line.size()));
    uint32_t begin = row == first_row ? start.column - 1 : indent;
    uint32_t stop = row == end_row ? end.column - 1 : width;
    uint32_t carets = stop > begin ? stop - begin : 1;
    std::string underline = std::string(carets, '^');
    if (row == last_row) underline += " " + std::string(d.code);
    out << pad << " " << bar << " " << std::string(begin, ' ') << st.paint(mark, underline) << "\n";
  }
  out << pad << " " << bar << "\n";
  // As rustc orders them: the why (the finding's help) before the edit that resolves it (the fix
  // title, Ruff's `help:` line), then the other locations involved.
  if (!d.help.empty()) out << pad << " = " << st.paint(st.help(), "help") << ": " << d.help << "\n";
  if (d.fix) out << pad << " = " << st.paint(st.help(), "help") << ": " << d.fix->message << "\n";
  for (const auto& rel : d.related) {
    std::string note = st.paint(st.note(), "note");
    if (!rel.path.empty()) {  // in another file
      std::error_code ec;
      std::filesystem::path other = std::filesystem::path(rel.path).lexically_relative(std::filesystem::current_path(ec));
      std::string shown = !ec && !other.empty() && !other.native().starts_with("..") ? other.string() : rel.path;
      out << pad << " = " << note << ": " << shown << ":" << rel.line + 1 << ":" << rel.column << ": " << rel.message << "\n";
      continue;
    }
    Location r = locate(file, rel.start);
    out << pad << " = " << note << ": " << where(file, r) << ": " << rel.message << "\n";
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

// SARIF 2.1.0 §3.11: a message may have `markdown` beside `text`, shown instead of it by viewers
// that render Markdown; the help follows the message there as its own paragraph.
json sarifMessage(const rules::Diagnostic& d) {
  json message = {{"text", d.message}};
  if (!d.help.empty()) message["markdown"] = d.message + "\n\n" + d.help;
  return message;
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
               {"message", sarifMessage(d)},
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
    case OutputFormat::Gitlab:
    case OutputFormat::Junit:
    case OutputFormat::Pylint:
    case OutputFormat::Grouped:
    case OutputFormat::Rdjson:
    case OutputFormat::Azure:
      writeCiFormat(out, files, options);
      return;
    case OutputFormat::Full:
      for (const auto& f : files)
        for (const auto& d : f.diagnostics) writeFull(out, f, d, options);
      return;
    case OutputFormat::Concise:
      for (const auto& f : files)
        for (const auto& d : f.diagnostics) {
          out << header(f, locate(f, d.start), d, options) << "\n";
        }
      return;
  }
}

void writeStatistics(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options) {
  struct Count {
    size_t count = 0, fixable = 0;
  };
  std::map<std::string_view, Count> counts;
  for (const auto& f : files)
    for (const auto& d : f.diagnostics) {
      auto& entry = counts[d.code];
      ++entry.count;
      if (isFixable(d, options)) ++entry.fixable;
    }
  std::vector<std::pair<std::string_view, Count>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  if (options.format == OutputFormat::Json) {
    json rows = json::array();
    for (const auto& [code, entry] : sorted)
      rows.push_back({{"code", code}, {"name", ruleName(code)}, {"count", entry.count}, {"fixable", entry.fixable > 0}});
    out << rows.dump(2) << "\n";
    return;
  }
  // As Ruff's (Flake8's) `--statistics`: counts right-aligned to the widest, codes padded, and a
  // fix column only when something is fixable: `[*]` all, `[-]` some, `[ ]` none.
  Styles st{options.color};
  size_t count_width = 0, code_width = 0;
  bool any_fixable = false;
  for (const auto& [code, entry] : sorted) {
    count_width = std::max(count_width, std::to_string(entry.count).size());
    code_width = std::max(code_width, code.size());
    any_fixable = any_fixable || entry.fixable > 0;
  }
  for (const auto& [code, entry] : sorted) {
    std::string count = std::to_string(entry.count);
    std::string mark = !any_fixable                   ? ""
                       : entry.fixable == entry.count ? fmt::format("[{}] ", st.paint(st.separator(), "*"))
                       : entry.fixable > 0            ? fmt::format("[{}] ", st.paint(st.separator(), "-"))
                                                      : "[ ] ";
    out << std::string(count_width - count.size(), ' ') << st.paint(st.bold(), count) << "\t"
        << st.paint(st.code(), code) << std::string(code_width - code.size(), ' ') << "\t" << mark << ruleName(code)
        << "\n";
  }
}

}  // namespace ptlint::cli
