#include "rules/compile/runtime_report.h"

#include <algorithm>
#include <map>

#include "analysis/syntax.h"

namespace ptlint::rules {
namespace {

// The line's code: from its first non-blank byte to its last one.
std::pair<uint32_t, uint32_t> lineCode(const analysis::ParsedFile& file, uint32_t row) {
  std::string_view text = file.text();
  uint32_t start = file.lines().lineStart(row), end = file.lines().lineContentEnd(row, text);
  while (start < end && (text[start] == ' ' || text[start] == '\t')) ++start;
  while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  return {start, end};
}

// The name of the function whose first line (its first decorator, or its `def`) is `row`.
std::optional<std::pair<uint32_t, uint32_t>> defNameOn(const analysis::ParsedFile& file, uint32_t row) {
  std::optional<std::pair<uint32_t, uint32_t>> found;
  analysis::walkTree(
      file.root(),
      [&](TSNode node) {
        if (found) return false;
        TSPoint start = ts_node_start_point(node), end = ts_node_end_point(node);
        if (start.row > row || end.row < row) return false;
        TSNode def = node;
        if (analysis::isKind(node, kind::decorated_definition)) def = analysis::fieldOf(node, "definition");
        if (start.row == row && analysis::isKind(def, kind::function_definition)) {
          TSNode name = analysis::fieldOf(def, "name");
          if (!ts_node_is_null(name)) found.emplace(ts_node_start_byte(name), ts_node_end_byte(name));
          return false;
        }
        return true;
      },
      [](TSNode) {});
  return found;
}

bool isStaticCompileCode(std::string_view code) { return code == "PTL501" || code == "PTL502" || code == "PTL504"; }

}  // namespace

void reportRuntimeFindings(Context& ctx, RuntimeFinding::Kind kind) {
  const RuntimeFindings* runtime = ctx.settings().runtime.get();
  if (runtime == nullptr) return;
  const analysis::ParsedFile& file = ctx.file();
  uint32_t rows = file.lines().lineCount();
  for (const RuntimeFinding& finding : runtime->findings) {
    if (finding.kind != kind || finding.line == 0 || finding.line > rows) continue;
    uint32_t row = finding.line - 1;
    std::pair<uint32_t, uint32_t> range = lineCode(file, row);
    if (finding.at_def)
      if (auto name = defNameOn(file, row)) range = *name;
    Diagnostic& d = ctx.report(range.first, range.second, finding.message);
    for (const auto& [line, note] : finding.related) {
      if (line == 0 || line > rows) continue;
      auto [start, end] = lineCode(file, line - 1);
      d.related.push_back(RelatedInfo{.start = start, .end = end, .message = note});
    }
  }
}

void crossReferenceRuntime(std::vector<Diagnostic>& diagnostics, const analysis::ParsedFile& file,
                           const Settings& settings) {
  if (settings.runtime == nullptr) return;
  const analysis::LineIndex& lines = file.lines();
  std::map<uint32_t, std::vector<std::string_view>> static_on;  // row -> static codes there
  std::map<uint32_t, bool> runtime_on;                          // rows with a PTL901
  for (const Diagnostic& d : diagnostics) {
    if (isStaticCompileCode(d.code)) static_on[lines.lineOf(d.start)].push_back(d.code);
    else if (d.code == "PTL901") runtime_on[lines.lineOf(d.start)] = true;
  }
  if (runtime_on.empty()) return;
  static constexpr std::string_view kStatic[] = {"PTL501", "PTL502", "PTL504"};
  bool static_ran = std::any_of(std::begin(kStatic), std::end(kStatic),
                                [&](std::string_view code) { return settings.isEnabled(code, true); });
  for (Diagnostic& d : diagnostics) {
    uint32_t row = lines.lineOf(d.start);
    if (isStaticCompileCode(d.code) && runtime_on.count(row)) {
      d.message += " (confirmed by the run: the compile log has a graph break on this line, PTL901)";
    } else if (d.code == "PTL901") {
      auto it = static_on.find(row);
      if (it != static_on.end()) {
        std::string codes;
        for (std::string_view code : it->second) {
          if (codes.find(code) != std::string::npos) continue;
          codes += codes.empty() ? "" : ", ";
          codes += code;
        }
        d.message += "; the static analysis found it too (" + codes + ")";
      } else if (static_ran) {
        d.message += "; the static analysis did not find it";
      }
    }
  }
}

}  // namespace ptlint::rules
