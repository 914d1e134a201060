// PTL001 unused-noqa: `# noqa: PTL...` codes that suppress nothing on their line, or that name no
// rule at all. Like PTL000 it is produced by the linter (it needs every other rule's findings),
// not by a matcher; off by default, as Ruff's RUF100.
#pragma once

#include <vector>

#include "analysis/noqa.h"
#include "analysis/parse.h"
#include "rules/rule.h"
#include "rules/settings.h"

namespace ptlint::rules {

const RuleMeta& unusedNoqaMeta();

// Appends a PTL001 finding for each line directive of `noqa` that lists a `PTL` code which
// suppressed none of `findings` (the findings before suppression), with a safe fix removing
// those codes (or the whole directive when none is left). Codes of other tools (`F401`, `E501`)
// and bare `# noqa` are left alone: they may serve another linter.
void reportUnusedNoqa(const analysis::ParsedFile& file, const Settings& settings, const analysis::NoqaIndex& noqa,
                      const std::vector<Diagnostic>& findings, std::vector<Diagnostic>& out);

}  // namespace ptlint::rules
