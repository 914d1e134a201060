#include "workspace/pipeline.h"

#include <algorithm>

#include "analysis/parse.h"
#include "quickfix/edit_guard.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"

namespace ptlint::workspace {

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

FixedText fixText(std::string text, const LintRequest& request, JoinedTracker* tracker) {
  FixedText out;
  bool first_pass = true;
  auto provider = [&](const analysis::ParsedFile& file) {
    if (request.check_cancelled) request.check_cancelled();
    std::vector<quickfix::Fix> fixes;
    auto lint = rules::lintFile(file, request.settings);
    dropUnfixable(lint.diagnostics, request.fixes);
    if (first_pass) out.initial_findings = lint.diagnostics.size();
    first_pass = false;
    for (auto& d : lint.diagnostics)
      if (d.fix && (!tracker || tracker->allows(*d.fix))) fixes.push_back(std::move(*d.fix));
    return fixes;
  };
  std::string original = text;
  auto on_pass = [&](const std::vector<quickfix::Edit>& edits) {
    if (tracker) tracker->apply(edits);
  };
  auto fixed = quickfix::fixToFixpoint(std::move(text), minimumApplicability(request.settings), provider, on_pass);
  out.history = std::move(fixed.history);
  if (fixed.reverted) out.notice = "a fix would have introduced a syntax error; it was not applied";
  if (fixed.hit_pass_cap)
    out.notice = "fixes did not converge after " + std::to_string(quickfix::kMaxFixPasses) + " passes";
  out.text = std::move(fixed.text);
  out.changed = out.text != original;
  return out;
}

namespace {

// The final lint's findings, offered as every front end offers them.
void selectFixes(std::vector<rules::Diagnostic>& diagnostics, std::string_view text, const LintRequest& request,
                 const JoinedTracker* tracker) {
  dropUnfixable(diagnostics, request.fixes);
  dropUnguardedFixes(diagnostics, text);
  if (tracker)
    for (auto& d : diagnostics)
      if (d.fix && !tracker->allows(*d.fix)) d.fix.reset();
}

}  // namespace

LintOutcome lintSource(std::string text, const LintRequest& request, LoneCr endings, const Notebook* notebook) {
  LintOutcome outcome;
  if (text.size() > kMaxFileBytes) {
    // The reader refuses such a file before reading it; an editor's buffer is refused here.
    outcome.too_large = true;
    outcome.notice = tooLargeMessage(text.size());
    outcome.text = std::move(text);
    return outcome;
  }
  if (endings == LoneCr::Mixed && request.fix) {
    LintRequest plain = request;
    plain.fix = false;
    outcome = lintSource(std::move(text), plain, LoneCr::None, notebook);
    // A fixed text could not be given back the file's own mix of line endings.
    outcome.notice = "not fixed: the file ends some lines with a lone \\r and others with \\n; "
                     "give it one kind of line ending to let --fix change it";
    return outcome;
  }
  const rules::Settings& settings = request.settings;
  std::optional<JoinedTracker> tracker;
  if (notebook) tracker.emplace(*notebook);
  if (request.parsed && !request.fix) {
    // The server's tree of this text: the linter runs its byte-level tests on it.
    auto result = request.concurrent ? rules::lintFileConcurrently(*request.parsed, settings)
                                     : rules::lintFile(*request.parsed, settings);
    outcome.diagnostics = std::move(result.diagnostics);
    selectFixes(outcome.diagnostics, text, request, tracker ? &*tracker : nullptr);
    outcome.text = std::move(text);
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
  size_t initial_findings = 0;
  if (request.fix) {
    FixedText fixed = fixText(std::move(text), request, tracker ? &*tracker : nullptr);
    initial_findings = fixed.initial_findings;
    outcome.history = std::move(fixed.history);
    outcome.notice = std::move(fixed.notice);
    outcome.changed = fixed.changed;
    text = std::move(fixed.text);
  }
  // The byte-level tests already ran on this text unless fixes changed it (then their code view
  // goes with the parsed file too).
  std::optional<std::optional<std::string>> code = outcome.changed ? std::nullopt : screened.takeCode();
  std::optional<analysis::ParsedFile> own;
  const analysis::ParsedFile* file = request.parsed_before.get();
  if (file == nullptr || outcome.changed || file->text() != text) file = &own.emplace(analysis::ParsedFile::parse(text));
  const analysis::ParsedFile& parsed = *file;
  if (code) analysis::adoptCode(parsed, std::move(*code));
  rules::LintResult result = outcome.changed ? rules::lintFile(parsed, settings)
                                             : rules::lintFile(parsed, settings, std::move(candidates));
  outcome.diagnostics = std::move(result.diagnostics);
  selectFixes(outcome.diagnostics, text, request, tracker ? &*tracker : nullptr);
  if (outcome.changed)
    outcome.findings_fixed = static_cast<int>(
        initial_findings > outcome.diagnostics.size() ? initial_findings - outcome.diagnostics.size() : 0);
  outcome.text = std::move(text);
  return outcome;
}

std::vector<rules::Diagnostic> lintAsIs(const std::string& text, const LintRequest& request, const Notebook* notebook) {
  auto parsed = analysis::ParsedFile::parse(text);
  auto diagnostics = rules::lintFile(parsed, request.settings).diagnostics;
  std::optional<JoinedTracker> tracker;
  if (notebook) tracker.emplace(*notebook);
  selectFixes(diagnostics, text, request, tracker ? &*tracker : nullptr);
  return diagnostics;
}

std::optional<std::string> renderText(const SourceForm& form, std::string_view text, const EditHistory& history,
                                      std::string& error) {
  std::string bom = form.had_bom ? "\xEF\xBB\xBF" : "";
  if (form.notebook) {
    auto rendered = renderNotebook(form.notebook_bytes, *form.notebook, text, history, error);
    if (!rendered) return std::nullopt;
    return bom + *rendered;
  }
  if (form.endings == LoneCr::Mixed) {
    error = "the file ends some lines with a lone \\r and others with \\n; it cannot be written back with its own "
            "line endings";
    return std::nullopt;
  }
  std::string out = bom + std::string(text);
  if (form.endings == LoneCr::Only) restoreLoneCr(out);
  return out;
}

std::string renderOriginal(const SourceForm& form, std::string_view original) {
  std::string bom = form.had_bom ? "\xEF\xBB\xBF" : "";
  if (form.notebook) return bom + form.notebook_bytes;
  std::string out = bom + std::string(original);
  if (form.endings == LoneCr::Only) restoreLoneCr(out);
  return out;
}

}  // namespace ptlint::workspace
