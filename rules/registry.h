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

// The rule's documentation page: the public documentation URL configured at build time
// (-DPTLINT_DOCS_URL=...), else the page of the rule pages the executable found installed beside
// it (`setLocalRuleDocs`, a `file://` URI of their folder), else empty (no link at all: never a
// link that does not resolve). The one place that says where the documentation lives.
std::string ruleDocsUrl(std::string_view code);
void setLocalRuleDocs(std::string folder_uri);
std::string projectUrl();

}  // namespace ptlint::rules
