// `ptlint rule CODE` and `ptlint rule --all [--output-format json]`.
#pragma once

#include <iosfwd>
#include <string>

namespace ptlint::cli {

int printRule(const std::string& code, std::ostream& out, std::ostream& err);
int printAllRules(bool json, std::ostream& out);

// Finds the rule pages installed with this executable and makes findings link to them (unless
// a public documentation URL was configured at build time): <prefix>/share/doc/ptlint/rules/
// beside <prefix>/bin/ptlint (cmake --install, the .deb, the wheel), rule-docs/ beside it (the
// build folder, the VS Code bundle), else the source tree's docs/rules/ it was built from.
// Called once, before any thread starts.
void locateRuleDocs();

}  // namespace ptlint::cli
