// The stateless engine shared by `ptlint check` and `ptlint --lsp`: one parsed file plus
// settings in, diagnostics (byte offsets, with fixes) out.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/parse.h"
#include "rules/rule.h"
#include "rules/settings.h"

namespace ptlint::rules {

struct LintResult {
  std::vector<Diagnostic> diagnostics;  // sorted by start, noqa already applied
  bool has_syntax_errors = false;
};

// Lints one parsed file. Never throws on any input.
LintResult lintFile(const analysis::ParsedFile& file, const Settings& settings);

// The same result as lintFile(file, settings), on two threads: the semantic model is built
// while the byte-level tests run, the rules' check ranges are computed side by side and the noqa
// index meanwhile. For one file whose answer someone waits on (an editor's keystroke); a batch
// of files is faster linted one file per thread.
LintResult lintFileConcurrently(const analysis::ParsedFile& file, const Settings& settings);

// The selected rules whose byte-level tests (the words and code-view conditions of
// `Rule::prefilter()`, then `Rule::mayReport`) pass on `text`: the only ones that can report there.
std::vector<const Rule*> rulesThatMayMatch(std::string_view text, const Settings& settings);
// The same on `source`'s text, keeping what the tests computed in `source` (its code view, which
// adoptCode can hand to the file parsed from that text).
std::vector<const Rule*> rulesThatMayMatch(const analysis::PrefilterText& source, const Settings& settings);
// The same on a parsed file's text; the code view is kept with the file (analysis::codeOf).
std::vector<const Rule*> rulesThatMayMatch(const analysis::ParsedFile& file, const Settings& settings);

// The same as lintFile(file, settings) when `candidates` is rulesThatMayMatch(file.text(),
// settings): the byte-level tests are not run a second time.
LintResult lintFile(const analysis::ParsedFile& file, const Settings& settings, std::vector<const Rule*> candidates);

// True when no selected rule could possibly report on `text` (none of their trigger words
// occurs), so the file need not be parsed. Conservative: false whenever unsure.
bool cannotMatch(std::string_view text, const Settings& settings);
// The same, given `candidates` = rulesThatMayMatch(text, settings).
bool cannotMatch(std::string_view text, const Settings& settings, const std::vector<const Rule*>& candidates);

// True when an enabled rule would use the project index's facts about `text`
// (`Settings::project`): only then is the index consulted.
bool asksProject(std::string_view text, const Settings& settings);

}  // namespace ptlint::rules
