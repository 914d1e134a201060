#include "cli/rule_docs.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <ostream>
#include <system_error>

#include "cli/output.h"

#include "rules/registry.h"
#include "rules/selectors.h"

namespace ptlint::cli {
namespace {

std::vector<const rules::RuleMeta*> everyRule() { return rules::allMetas(); }

std::string_view fixName(const rules::RuleMeta& meta) {
  switch (meta.fix) {
    case rules::FixAvailability::None: return "none";
    case rules::FixAvailability::Sometimes: return "sometimes";
    case rules::FixAvailability::Always: return "always";
  }
  return "none";
}

std::string markdown(const rules::RuleMeta& meta) {
  std::string_view docs = meta.docs;
  while (!docs.empty() && docs.front() == '\n') docs.remove_prefix(1);
  std::string fix = meta.fix == rules::FixAvailability::None
                        ? "Fix is not available."
                        : fmt::format("Fix is {} available ({}).", fixName(meta),
                                      quickfix::applicabilityName(meta.fix_applicability));
  return fmt::format("# {} ({})\n\n{}\n\n{} {}\n\n{}", meta.name, meta.code, meta.summary, fix,
                     meta.enabled_by_default       ? "On by default."
                     : meta.code.starts_with("PTL9") ? "On whenever a torch.compile log is given (`--compile-log`, the editor's `compileLog`)."
                                                     : "Off by default; select it to enable.",
                     docs);
}

}  // namespace

int printRule(const std::string& code, std::ostream& out, std::ostream& err) {
  for (const auto* meta : everyRule()) {
    if (meta->code == code || meta->name == code) {
      out << markdown(*meta);
      return 0;
    }
  }
  err << fmt::format("error: unknown rule `{}` (did you mean `{}`? `ptlint rule --all` lists every rule)\n", code,
                     rules::nearestCode(code));
  return 2;
}

int printAllRules(bool json, std::ostream& out) {
  if (!json) {
    bool first = true;
    for (const auto* meta : everyRule()) {
      if (!first) out << "\n---\n\n";
      first = false;
      out << markdown(*meta);
    }
    return 0;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto* meta : everyRule()) {
    std::string url = rules::ruleDocsUrl(meta->code);
    rows.push_back({{"code", meta->code},
                    {"name", meta->name},
                    {"summary", meta->summary},
                    {"linter", "ptlint"},
                    {"fix", fixName(*meta)},
                    {"fix_applicability", meta->fix == rules::FixAvailability::None
                                              ? nlohmann::json(nullptr)
                                              : nlohmann::json(quickfix::applicabilityName(meta->fix_applicability))},
                    {"severity", rules::severityName(meta->severity)},
                    {"enabled_by_default", meta->enabled_by_default},
                    {"since_torch", meta->since_torch},
                    {"url", url.empty() ? nlohmann::json(nullptr) : nlohmann::json(url)},
                    {"explanation", meta->docs}});
  }
  out << rows.dump(2) << "\n";
  return 0;
}

void locateRuleDocs() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) {
    fs::path dir = exe.parent_path();
    candidates.push_back(dir.parent_path() / "share" / "doc" / "ptlint" / "rules");
    candidates.push_back(dir / "rule-docs");
  }
#ifdef PTLINT_SOURCE_RULE_DOCS
  candidates.push_back(PTLINT_SOURCE_RULE_DOCS);
#endif
  for (const auto& folder : candidates) {
    // The index and one page: a folder left half-installed is not linked to.
    if (fs::is_regular_file(folder / "README.md", ec) && fs::is_regular_file(folder / "PTL101.md", ec)) {
      rules::setLocalRuleDocs(fileUri(folder.lexically_normal()));
      return;
    }
  }
}

}  // namespace ptlint::cli
