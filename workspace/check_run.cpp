#include "workspace/check_run.h"

#include <algorithm>

#include "analysis/parse.h"
#include "quickfix/edit_guard.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"

namespace ptlint::workspace {

void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const ResolvedConfig& config) {
  dropUnfixable(diagnostics, FixSelection{config.fixable, config.unfixable});
}

void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const FixSelection& selection) {
  if (!selection.fixable && selection.unfixable.empty()) return;
  // The same specificity rules as select/ignore: the longest matching selector wins.
  rules::Settings fixable;
  fixable.select = selection.fixable.value_or(std::vector<std::string>{"ALL"});
  fixable.ignore = selection.unfixable;
  for (auto& d : diagnostics)
    if (d.fix && !fixable.isEnabled(d.code, true)) d.fix.reset();
}

void dropCrossCellFixes(std::vector<rules::Diagnostic>& diagnostics, std::string_view text, const Notebook& notebook,
                        const EditHistory& history) {
  (void)text;
  JoinedTracker tracker(notebook);
  tracker.apply(history);
  for (auto& d : diagnostics)
    if (d.fix && !tracker.allows(*d.fix)) d.fix.reset();
}

namespace {

// The fixes the lexical guard refuses are neither applied nor offered.
void dropUnguardedFixes(std::vector<rules::Diagnostic>& diagnostics, std::string_view text) {
  if (std::none_of(diagnostics.begin(), diagnostics.end(), [](const rules::Diagnostic& d) { return d.fix.has_value(); }))
    return;
  quickfix::LexicalMap lexical(text);
  for (auto& d : diagnostics)
    if (d.fix && !lexical.allows(*d.fix)) d.fix.reset();
}

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
  // A notebook's fixes stay in one cell and off its masked lines, followed through the passes.
  std::optional<JoinedTracker> tracker;
  if (notebook) tracker.emplace(*notebook);
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
        if (d.fix && (!tracker || tracker->allows(*d.fix))) fixes.push_back(std::move(*d.fix));
      return fixes;
    };
    std::string original = text;
    auto on_pass = [&](const std::vector<quickfix::Edit>& edits) {
      if (tracker) tracker->apply(edits);
    };
    auto fixed = quickfix::fixToFixpoint(std::move(text), minimumApplicability(settings), provider, on_pass);
    outcome.history = std::move(fixed.history);
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
  dropUnguardedFixes(outcome.diagnostics, text);
  if (tracker)
    for (auto& d : outcome.diagnostics)
      if (d.fix && !tracker->allows(*d.fix)) d.fix.reset();
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
  dropUnguardedFixes(diagnostics, text);
  if (notebook) dropCrossCellFixes(diagnostics, text, *notebook);
  return diagnostics;
}

}  // namespace ptlint::workspace
