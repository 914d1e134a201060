// `ptlint rule CODE` and `ptlint rule --all [--output-format json]`.
#pragma once

#include <iosfwd>
#include <string>

namespace ptlint::cli {

int printRule(const std::string& code, std::ostream& out, std::ostream& err);
int printAllRules(bool json, std::ostream& out);

}  // namespace ptlint::cli
