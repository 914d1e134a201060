// What the compiled-code rules (PTL501, PTL502, PTL504) say about where a function is compiled.
#pragma once

#include <string>

#include "analysis/compiled_regions.h"
#include "rules/rule.h"

namespace ptlint::rules {

// "compiled `f`", or "`g`, which compiled `f` calls,": the function a finding is in, for a message.
std::string compiledFunctionPhrase(const analysis::CompiledRegions::Function& fn);

// Adds to `d` the path from the compile site to `fn`, innermost call first (at most 8 hops), and,
// for a function compiled from another file, the calls and the compile site there.
void addCompilePath(Diagnostic& d, const analysis::CompiledRegions::Function& fn);

}  // namespace ptlint::rules
