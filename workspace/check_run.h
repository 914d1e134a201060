// Linting (and fixing) one prepared source: the byte-level prefilter, the fix loop to a fixpoint,
// the final lint, the `fixable` / `unfixable` selection and a notebook's cell boundaries. Pure:
// no file system, no shared state; the engine (workspace/engine.h) calls it on its workers.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"
#include "rules/rule.h"
#include "rules/settings.h"
#include "workspace/config.h"
#include "workspace/notebook.h"
#include "workspace/notebook_edits.h"
#include "workspace/source_reader.h"

namespace ptlint::workspace {

// Drops the fixes of codes that `fixable` / `unfixable` exclude (the CLI's --fixable /
// --unfixable replace the configuration's, as in Ruff).
void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const ResolvedConfig& config);
// The same from the two settings alone (what the server keeps of a file's configuration).
struct FixSelection {
  std::optional<std::vector<std::string>> fixable;
  std::vector<std::string> unfixable;
};
void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const FixSelection& selection);

// Removes the fixes of `diagnostics` (on the joined `text`, reached from the notebook's own joined
// text through `history`) that would edit more than one cell or a masked IPython line.
void dropCrossCellFixes(std::vector<rules::Diagnostic>& diagnostics, std::string_view text, const Notebook& notebook,
                        const EditHistory& history = {});

struct LintOutcome {
  std::vector<rules::Diagnostic> diagnostics;  // on `text`
  std::string text;                            // the final text (fixed when fixes applied)
  bool changed = false;                        // fixes changed the text
  int findings_fixed = 0;                      // findings the fixes resolved (as Ruff counts them)
  std::optional<std::string> notice;           // "a fix would have introduced a syntax error", ...
  EditHistory history;                         // the passes of edits from the input to `text`
};

// Lints `text` under `settings`; with `fix`, applies the fixes at or above the settings'
// applicability to a fixpoint first (never for `LoneCr::Mixed`: the text could not be given back
// with its own line endings — a notice says so). Notebooks keep fixes within a cell.
LintOutcome lintText(std::string text, const rules::Settings& settings, const ResolvedConfig& config, bool fix,
                     LoneCr endings, const Notebook* notebook);

// The findings on `text` as it is (no fixing): what a file --fix could not write reports.
std::vector<rules::Diagnostic> lintAsIs(const std::string& text, const rules::Settings& settings,
                                        const ResolvedConfig& config, const Notebook* notebook);

}  // namespace ptlint::workspace
