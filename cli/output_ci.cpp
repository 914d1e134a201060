// Ruff's formats for CI systems and review tools: gitlab (Code Climate JSON), junit (XML),
// pylint, grouped, rdjson (reviewdog) and azure (Azure Pipelines logging commands). Shapes as
// Ruff's renderers write them; a notebook finding has no position in the machine formats but
// 1:1, as Ruff's (a cell-relative row would point at the wrong line of the .ipynb file).
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <unordered_set>

#include "cli/output.h"
#include "cli/terminal.h"
#include "rules/registry.h"

namespace ptlint::cli {
namespace {

using nlohmann::json;

struct Flat {
  const FileReport* file;
  const rules::Diagnostic* d;
};

std::vector<Flat> flatten(const std::vector<FileReport>& files) {
  std::vector<Flat> out;
  for (const auto& f : files)
    for (const auto& d : f.diagnostics) out.push_back({&f, &d});
  return out;
}

// Start and end for a machine format: 1:1 in a notebook (see above).
std::pair<Location, Location> machineRange(const FileReport& f, const rules::Diagnostic& d) {
  if (!f.cells.empty()) return {Location{1, 1}, Location{1, 1}};
  return {locate(f, d.start), locate(f, d.end)};
}

bool fixable(const rules::Diagnostic& d, const OutputOptions& options) {
  return d.fix && (d.fix->applicability == quickfix::Applicability::Safe ||
                   (options.unsafe_fixes && d.fix->applicability == quickfix::Applicability::Unsafe));
}

// 64-bit FNV-1a: a fingerprint that stays the same from run to run and release to release.
uint64_t fnv1a(std::string_view text, uint64_t hash) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

void writeGitlab(std::ostream& out, const std::vector<FileReport>& files) {
  // Paths relative to the project (GitLab's CI_PROJECT_DIR), else as shown on the terminal.
  const char* project = std::getenv("CI_PROJECT_DIR");
  json all = json::array();
  std::unordered_set<uint64_t> used;
  for (const auto& [f, d] : flatten(files)) {
    std::string path = f->display_path;
    if (project && *project) {
      std::filesystem::path rel = std::filesystem::path(f->path).lexically_relative(project);
      if (!rel.empty()) path = rel.string();
    }
    // As Ruff's: the rule and the path, salted with the previous value until unique.
    uint64_t salt = 0, print = 0;
    do {
      print = fnv1a(path, fnv1a(d->code, fnv1a(std::to_string(salt), 14695981039346656037ull)));
      salt = print;
    } while (!used.insert(print).second);
    auto [s, e] = machineRange(*f, *d);
    all.push_back({{"check_name", d->code},
                   {"description", fmt::format("{}: {}", d->code, d->message)},
                   {"severity", d->severity == rules::Severity::Error ? "major" : "minor"},
                   {"fingerprint", fmt::format("{:x}", print)},
                   {"location",
                    {{"path", path},
                     {"positions",
                      {{"begin", {{"line", s.row}, {"column", s.column}}},
                       {"end", {{"line", e.row}, {"column", e.column}}}}}}}});
  }
  out << all.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

std::string xmlEscape(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control character but tab, LF and CR.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += fmt::format("\\x{:02x}", c);
        else out += static_cast<char>(c);
    }
  }
  return out;
}

void writeJunit(std::ostream& out, const std::vector<FileReport>& files) {
  size_t total = 0;
  for (const auto& f : files) total += f.diagnostics.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  if (total == 0) {
    out << "<testsuites name=\"ptlint\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
           "    <testsuite name=\"ptlint\" tests=\"1\" disabled=\"0\" errors=\"0\" failures=\"0\" package=\"org.ptlint\">\n"
           "        <testcase name=\"No errors found\" classname=\"ptlint\">\n"
           "        </testcase>\n"
           "    </testsuite>\n"
           "</testsuites>\n";
    return;
  }
  out << fmt::format("<testsuites name=\"ptlint\" tests=\"{0}\" failures=\"{0}\" errors=\"0\">\n", total);
  // One suite per file, by path (as Ruff's BTreeMap orders them).
  std::map<std::string_view, const FileReport*> by_path;
  for (const auto& f : files)
    if (!f.diagnostics.empty()) by_path.emplace(f.path, &f);
  for (const auto& [path, f] : by_path) {
    std::string name = xmlEscape(path);
    std::string classname = xmlEscape(std::filesystem::path(f->path).replace_extension().string());
    out << fmt::format(
        "    <testsuite name=\"{0}\" tests=\"{1}\" disabled=\"0\" errors=\"0\" failures=\"{1}\" package=\"org.ptlint\">\n",
        name, f->diagnostics.size());
    for (const auto& d : f->diagnostics) {
      std::string message = xmlEscape(d.message);
      bool placed = f->cells.empty();
      Location s = placed ? locate(*f, d.start) : Location{1, 1};
      out << fmt::format("        <testcase name=\"org.ptlint.{}\" classname=\"{}\"", d.code, classname);
      if (placed) out << fmt::format(" line=\"{}\" column=\"{}\"", s.row, s.column);
      out << ">\n";
      out << fmt::format(
          "            <properties>\n                <property name=\"severity\" value=\"{}\"/>\n            </properties>\n",
          rules::severityName(d.severity));
      std::string description = placed ? fmt::format("line {}, col {}, {}", s.row, s.column, message) : message;
      out << fmt::format("            <failure message=\"{}\">{}</failure>\n", message, description);
      out << "        </testcase>\n";
    }
    out << "    </testsuite>\n";
  }
  out << "</testsuites>\n";
}

void writePylint(std::ostream& out, const std::vector<FileReport>& files) {
  for (const auto& [f, d] : flatten(files))
    out << fmt::format("{}:{}: [{}] {}\n", f->display_path, machineRange(*f, *d).first.row, d->code, d->message);
}

void writeGrouped(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options) {
  Styles st{options.color};
  std::string sep = st.paint(st.separator(), ":");
  for (const auto& f : files) {
    if (f.diagnostics.empty()) continue;
    out << st.paint(st.bold(), f.display_path) << sep << "\n";
    // Rows right-aligned and columns left-aligned in the widest of the file, as Ruff's.
    std::vector<Location> at;
    size_t row_width = 0, col_width = 0;
    for (const auto& d : f.diagnostics) {
      at.push_back(locate(f, d.start));
      std::string row = at.back().cell ? fmt::format("cell {}:{}", at.back().cell, at.back().row)
                                       : std::to_string(at.back().row);
      row_width = std::max(row_width, row.size());
      col_width = std::max(col_width, std::to_string(at.back().column).size());
    }
    for (size_t i = 0; i < f.diagnostics.size(); ++i) {
      const auto& d = f.diagnostics[i];
      Location l = at[i];
      std::string row = l.cell ? fmt::format("cell {}{}{}", l.cell, sep, l.row) : std::to_string(l.row);
      size_t row_shown = l.cell ? fmt::format("cell {}:{}", l.cell, l.row).size() : row.size();
      std::string col = std::to_string(l.column);
      out << "  " << std::string(row_width - row_shown, ' ') << row << sep << col
          << std::string(col_width - col.size(), ' ') << " " << st.paint(st.code(), d.code) << " "
          << (fixable(d, options) ? fmt::format("[{}] ", st.paint(st.separator(), "*")) : "") << d.message << "\n";
    }
    out << "\n";
  }
}

json rdjsonRange(Location s, Location e) {
  return {{"start", {{"line", s.row}, {"column", s.column}}}, {"end", {{"line", e.row}, {"column", e.column}}}};
}

void writeRdjson(std::ostream& out, const std::vector<FileReport>& files) {
  json diagnostics = json::array();
  for (const auto& [f, d] : flatten(files)) {
    auto [s, e] = machineRange(*f, *d);
    json item = {{"code", {{"value", d->code}, {"url", rules::ruleDocsUrl(d->code)}}},
                 {"location", {{"path", f->path}, {"range", rdjsonRange(s, e)}}},
                 {"message", d->message}};
    if (d->fix && !d->fix->edits.empty() && f->cells.empty()) {
      json suggestions = json::array();
      for (const auto& edit : d->fix->edits)
        suggestions.push_back({{"range", rdjsonRange(locate(*f, edit.start), locate(*f, edit.end))}, {"text", edit.content}});
      item["suggestions"] = suggestions;
    }
    diagnostics.push_back(std::move(item));
  }
  json doc = {{"diagnostics", diagnostics},
              {"severity", "WARNING"},
              {"source", {{"name", "ptlint"}, {"url", rules::projectUrl()}}}};
  out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

// Azure Pipelines logging commands read `;` and `]` in a property, and CR, LF and `%` anywhere,
// as syntax: escaped as azure-pipelines-task-lib's `escape` / `escapedata` do.
std::string azureData(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '%') out += "%AZP25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string azureProperty(std::string_view text) {
  std::string out;
  for (char c : azureData(text)) {
    if (c == ';') out += "%3B";
    else if (c == ']') out += "%5D";
    else out += c;
  }
  return out;
}

void writeAzure(std::ostream& out, const std::vector<FileReport>& files) {
  for (const auto& [f, d] : flatten(files)) {
    Location s = machineRange(*f, *d).first;
    out << fmt::format("##vso[task.logissue type={};sourcepath={};linenumber={};columnnumber={};code={};]{}\n",
                       d->severity == rules::Severity::Error ? "error" : "warning", azureProperty(f->path), s.row,
                       s.column, d->code, azureData(d->message));
  }
}

const std::map<std::string, OutputFormat, std::less<>>& formats() {
  static const std::map<std::string, OutputFormat, std::less<>> kFormats{
      {"full", OutputFormat::Full},       {"concise", OutputFormat::Concise}, {"json", OutputFormat::Json},
      {"json-lines", OutputFormat::JsonLines}, {"sarif", OutputFormat::Sarif}, {"github", OutputFormat::Github},
      {"gitlab", OutputFormat::Gitlab},   {"junit", OutputFormat::Junit},     {"pylint", OutputFormat::Pylint},
      {"grouped", OutputFormat::Grouped}, {"rdjson", OutputFormat::Rdjson},   {"azure", OutputFormat::Azure}};
  return kFormats;
}

}  // namespace

std::optional<OutputFormat> parseOutputFormat(std::string_view name) {
  auto it = formats().find(name);
  if (it == formats().end()) return std::nullopt;
  return it->second;
}

const std::vector<std::string>& outputFormatNames() {
  static const std::vector<std::string> kNames{"concise", "full",  "json",   "json-lines", "junit",  "grouped",
                                               "github",  "gitlab", "pylint", "rdjson",     "azure", "sarif"};
  return kNames;
}

bool isMachineFormat(OutputFormat format) {
  // Ruff prints its summary after full, concise and grouped output only.
  return format != OutputFormat::Full && format != OutputFormat::Concise && format != OutputFormat::Grouped;
}

void writeCiFormat(std::ostream& out, const std::vector<FileReport>& files, const OutputOptions& options) {
  switch (options.format) {
    case OutputFormat::Gitlab: return writeGitlab(out, files);
    case OutputFormat::Junit: return writeJunit(out, files);
    case OutputFormat::Pylint: return writePylint(out, files);
    case OutputFormat::Grouped: return writeGrouped(out, files, options);
    case OutputFormat::Rdjson: return writeRdjson(out, files);
    case OutputFormat::Azure: return writeAzure(out, files);
    default: return;
  }
}

}  // namespace ptlint::cli
