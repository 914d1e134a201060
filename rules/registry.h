// The one table of rule codes.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.h"

namespace ptlint::rules {

// Every rule, sorted by code.
std::span<const Rule* const> allRules();
const Rule* findRule(std::string_view code);

// Metadata of PTL000 (syntax errors), which is produced by the linter, not by a matcher.
const RuleMeta& syntaxErrorMeta();

// Every code there is, sorted: PTL000, PTL001 (produced by the linter) and every rule's.
std::vector<const RuleMeta*> allMetas();
const RuleMeta* findMeta(std::string_view code);

// The rule's documentation page (docs/rules/<CODE>.md of the project). The one place that
// says where the documentation lives.
std::string ruleDocsUrl(std::string_view code);
std::string projectUrl();

}  // namespace ptlint::rules
