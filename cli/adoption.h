// The `ptlint check` modes and filters a Ruff user reaches for when adopting ptlint:
// --add-noqa, --show-settings, --show-files, --fixable/--unfixable, and `ptlint clean`.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse.h"
#include "cli/check.h"
#include "quickfix/fix.h"
#include "rules/rule.h"
#include "workspace/pipeline.h"

namespace ptlint::cli {

// Drops the fixes of codes that --fixable / --unfixable exclude (workspace/pipeline.h).
using workspace::dropUnfixable;

// `text` with a `# noqa: CODE` for every diagnostic on the line where it starts (merged into an
// existing `# noqa: ...` there), placed by quickfix::noqaInsertion (as the editor's "Disable for
// this line"). Lines whose end lies inside a string, or that continue with a backslash, cannot
// carry a comment, nor may one `allow` refuses: their diagnostics are counted in `skipped`.
// `edits` receives the insertions, in text order.
std::string addNoqaDirectives(const analysis::ParsedFile& file, const std::vector<rules::Diagnostic>& diagnostics,
                              int& added, int& skipped, std::vector<quickfix::Edit>* edits = nullptr,
                              const std::function<bool(const quickfix::Edit&)>& allow = {});

int runAddNoqa(const CheckOptions& options, std::ostream& out, std::ostream& err);
int runShowFiles(const CheckOptions& options, std::ostream& out, std::ostream& err);
int runShowSettings(const CheckOptions& options, std::ostream& out, std::ostream& err);
// `ptlint clean`: removes the cache folder (.ptlint_cache) of the working folder.
int runClean(std::ostream& out, std::ostream& err);

}  // namespace ptlint::cli
