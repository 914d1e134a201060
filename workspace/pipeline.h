// The one per-file pipeline every front end calls (Ruff's `lint_fix`): a prepared source plus its
// settings → findings with their fixes (the byte-level prefilter, the fix loop to a fixpoint, the
// final lint, the `fixable` / `unfixable` selection, the lexical guard, a notebook's cell
// boundaries), and the fixed text given back in the file's own form (BOM, lone '\r' line endings,
// notebook JSON). Pure: no file system, no shared state.
//
//   `ptlint check`, `--fix`, `--diff`, `--stdin-filename`, `--watch`, workspace diagnostics
//       → workspace::Engine (settings, reader, project facts, cache) → lintSource
//   `--add-noqa` → workspace::Engine → lintSource, then the comments, rendered with renderText
//   the server's open documents and pull diagnostics → lintSource on the document's own tree
//   fix-all → fixText (the loop `--fix` runs, with the same selection and applicability)
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse.h"
#include "quickfix/fix.h"
#include "rules/rule.h"
#include "rules/settings.h"
#include "workspace/config.h"
#include "workspace/notebook.h"
#include "workspace/notebook_edits.h"
#include "workspace/source_reader.h"

namespace ptlint::workspace {

// `fixable` / `unfixable`: the codes whose fixes are offered and applied (the CLI's --fixable /
// --unfixable replace the configuration's, as in Ruff).
struct FixSelection {
  std::optional<std::vector<std::string>> fixable;
  std::vector<std::string> unfixable;
};
inline FixSelection fixSelectionOf(const ResolvedConfig& config) { return {config.fixable, config.unfixable}; }

// Drops the fixes of codes the selection excludes.
void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const FixSelection& selection);
inline void dropUnfixable(std::vector<rules::Diagnostic>& diagnostics, const ResolvedConfig& config) {
  dropUnfixable(diagnostics, fixSelectionOf(config));
}

// Removes the fixes of `diagnostics` (on the joined `text`, reached from the notebook's own joined
// text through `history`) that would edit more than one cell or a masked IPython line.
void dropCrossCellFixes(std::vector<rules::Diagnostic>& diagnostics, std::string_view text, const Notebook& notebook,
                        const EditHistory& history = {});

// What a file is linted under, for every front end alike.
struct LintRequest {
  rules::Settings settings;  // the file's, with project facts and runtime findings when asked
  FixSelection fixes;
  // Applies the fixes at or above the settings' applicability (unsafe ones with `unsafe-fixes`)
  // to a fixpoint before the final lint.
  bool fix = false;
  // The text already parsed (the server's incrementally maintained tree); used when no fix
  // changed the text. Must be the tree of exactly the text given.
  std::shared_ptr<const analysis::ParsedFile> parsed;
  bool concurrent = false;  // one file someone waits on: the final lint on two threads
  // Asked before each lint pass of the fix loop; may throw to abandon the request.
  std::function<void()> check_cancelled;
  // A parse of the text made earlier (the project index's), used in place of parsing it again
  // after the byte-level tests when no fix changed the text; ignored unless its text is the text.
  std::shared_ptr<const analysis::ParsedFile> parsed_before;
};

struct LintOutcome {
  std::vector<rules::Diagnostic> diagnostics;  // on `text`
  std::string text;                            // the final text (fixed when fixes applied)
  bool changed = false;                        // fixes changed the text
  int findings_fixed = 0;                      // findings the fixes resolved (as Ruff counts them)
  std::optional<std::string> notice;           // "a fix would have introduced a syntax error", ...
  EditHistory history;                         // the passes of edits from the input to `text`
  bool too_large = false;                      // over kMaxFileBytes: not linted (`notice` says so)
};

// Lints `text`; with `request.fix`, fixes it to a fixpoint first (never for `LoneCr::Mixed`: the
// text could not be given back with its own line endings — a notice says so). Notebooks keep
// fixes within a cell. A text over kMaxFileBytes is not linted (too_large, with the notice).
LintOutcome lintSource(std::string text, const LintRequest& request, LoneCr endings, const Notebook* notebook);

// The fix loop alone (`--fix`'s, fix-all's): `text` fixed to a fixpoint under `request` (fix is
// implied). `tracker` (a notebook's joined text) keeps fixes in one cell and follows the passes.
struct FixedText {
  std::string text;
  bool changed = false;
  size_t initial_findings = 0;  // findings of the first pass
  EditHistory history;
  std::optional<std::string> notice;
};
FixedText fixText(std::string text, const LintRequest& request, JoinedTracker* tracker = nullptr);

// The findings on `text` as it is (no fixing): what a file --fix could not write reports.
std::vector<rules::Diagnostic> lintAsIs(const std::string& text, const LintRequest& request, const Notebook* notebook);

// How a file's bytes were turned into the linter's text, to give a text back as the file holds it.
struct SourceForm {
  bool had_bom = false;
  LoneCr endings = LoneCr::None;
  std::shared_ptr<const Notebook> notebook;  // set for notebooks
  std::string notebook_bytes;                // a notebook's JSON as read (without BOM)
};

// The file's bytes for `text` (the linter's text: a notebook's joined cells, lone '\r' made '\n'),
// reached from the text as read through `history` (the passes of edits; a notebook needs them to
// put its magics back). nullopt with `error` when it cannot be given back in the file's form
// (mixed lone '\r' line endings, a notebook edit that cannot be mapped to its cells).
std::optional<std::string> renderText(const SourceForm& form, std::string_view text, const EditHistory& history,
                                      std::string& error);
// The file's bytes as read, from the linter's text as read.
std::string renderOriginal(const SourceForm& form, std::string_view original);

}  // namespace ptlint::workspace
