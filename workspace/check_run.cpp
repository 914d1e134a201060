#include "workspace/check_run.h"

#include "analysis/parse.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"

namespace ptlint::workspace {

void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const ResolvedConfig& config) {
  if (!config.fixable && config.unfixable.empty()) return;
  // The same specificity rules as select/ignore: the longest matching selector wins.
  rules::Settings fixable;
  fixable.select = config.fixable.value_or(std::vector<std::string>{"ALL"});
  fixable.ignore = config.unfixable;
  for (auto& d : diagnostics)
    if (d.fix && !fixable.isEnabled(d.code, true)) d.fix.reset();
}

FixFilter notebookFixFilter(const Notebook& notebook) {
  return [&notebook](std::string_view text, const quickfix::Fix& fix) {
    auto spans = splitJoined(notebook, text);
    if (!spans) return false;
    auto cellOf = [&](uint32_t offset) -> long {
      for (size_t k = 0; k < spans->size(); ++k)
        if (offset >= (*spans)[k].begin && offset <= (*spans)[k].end) return static_cast<long>(k);
      return -1;
    };
    long cell = -1;
    for (const auto& edit : fix.edits) {
      if (edit.content.find(kCellSeparator) != std::string::npos) return false;
      long a = cellOf(edit.start), b = cellOf(edit.end);
      if (a < 0 || a != b || (cell >= 0 && a != cell)) return false;
      cell = a;
    }
    return true;
  };
}

void dropCrossCellFixes(std::vector<rules::Diagnostic>& diagnostics, std::string_view text, const Notebook& notebook) {
  FixFilter keep = notebookFixFilter(notebook);
  for (auto& d : diagnostics)
    if (d.fix && !keep(text, *d.fix)) d.fix.reset();
}

namespace {

quickfix::Applicability minimumApplicability(const rules::Settings& settings) {
  return settings.unsafe_fixes ? quickfix::Applicability::Unsafe : quickfix::Applicability::Safe;
}

}  // namespace

LintOutcome lintText(std::string text, const rules::Settings& settings, const ResolvedConfig& config, bool fix,
                     LoneCr endings, const Notebook* notebook) {
  LintOutcome outcome;
  if (endings == LoneCr::Mixed && fix) {
    outcome = lintText(std::move(text), settings, config, false, LoneCr::None, notebook);
    // A fixed text could not be given back the file's own mix of line endings.
    outcome.notice = "not fixed: the file ends some lines with a lone \\r and others with \\n; "
                     "give it one kind of line ending to let --fix change it";
    return outcome;
  }
  // A file in which no enabled rule could match is neither parsed nor fixed.
  analysis::PrefilterText screened(text);
  std::vector<const rules::Rule*> candidates = rules::rulesThatMayMatch(screened, settings);
  if (rules::cannotMatch(text, settings, candidates)) {
    outcome.text = std::move(text);
    return outcome;
  }
  FixFilter keep_fix = notebook ? notebookFixFilter(*notebook) : FixFilter{};
  size_t initial_findings = 0;
  if (fix) {
    bool first_pass = true;
    auto provider = [&](const analysis::ParsedFile& file) {
      std::vector<quickfix::Fix> fixes;
      auto lint = rules::lintFile(file, settings);
      dropUnfixable(lint.diagnostics, config);
      if (first_pass) initial_findings = lint.diagnostics.size();
      first_pass = false;
      for (auto& d : lint.diagnostics)
        if (d.fix && (!keep_fix || keep_fix(file.text(), *d.fix))) fixes.push_back(std::move(*d.fix));
      return fixes;
    };
    std::string original = text;
    auto fixed = quickfix::fixToFixpoint(std::move(text), minimumApplicability(settings), provider);
    if (fixed.reverted) outcome.notice = "a fix would have introduced a syntax error; it was not applied";
    if (fixed.hit_pass_cap)
      outcome.notice = "fixes did not converge after " + std::to_string(quickfix::kMaxFixPasses) + " passes";
    text = std::move(fixed.text);
    outcome.changed = text != original;
  }
  // The byte-level tests already ran on this text unless fixes changed it (then their code view
  // goes with the parsed file too).
  std::optional<std::optional<std::string>> code = outcome.changed ? std::nullopt : screened.takeCode();
  auto parsed = analysis::ParsedFile::parse(text);
  if (code) analysis::adoptCode(parsed, std::move(*code));
  auto result = outcome.changed ? rules::lintFile(parsed, settings)
                                : rules::lintFile(parsed, settings, std::move(candidates));
  outcome.diagnostics = std::move(result.diagnostics);
  dropUnfixable(outcome.diagnostics, config);
  if (notebook) dropCrossCellFixes(outcome.diagnostics, text, *notebook);
  if (outcome.changed)
    outcome.findings_fixed = static_cast<int>(
        initial_findings > outcome.diagnostics.size() ? initial_findings - outcome.diagnostics.size() : 0);
  outcome.text = std::move(text);
  return outcome;
}

std::vector<rules::Diagnostic> lintAsIs(const std::string& text, const rules::Settings& settings,
                                        const ResolvedConfig& config, const Notebook* notebook) {
  auto parsed = analysis::ParsedFile::parse(text);
  auto diagnostics = rules::lintFile(parsed, settings).diagnostics;
  dropUnfixable(diagnostics, config);
  if (notebook) dropCrossCellFixes(diagnostics, text, *notebook);
  return diagnostics;
}

}  // namespace ptlint::workspace
