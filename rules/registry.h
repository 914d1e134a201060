// The one table of rule codes.
#pragma once

#include <span>
#include <string_view>

#include "rules/rule.h"

namespace ptlint::rules {

// Every rule, sorted by code.
std::span<const Rule* const> allRules();
const Rule* findRule(std::string_view code);

// Metadata of PTL000 (syntax errors), which is produced by the linter, not by a matcher.
const RuleMeta& syntaxErrorMeta();

}  // namespace ptlint::rules
