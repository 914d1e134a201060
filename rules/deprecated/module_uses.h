// Reporting imports and uses of third-party APIs that are retired as a whole (PTL104 FairScale's
// sharding, PTL105 torchdata's DataPipes): one report per import statement that names a matching
// qualified name, and one per call whose callee resolves to one.
#pragma once

#include <tree_sitter/api.h>

#include <functional>
#include <string>
#include <string_view>

#include "rules/rule.h"

namespace ptlint::rules::retired {

using Matcher = bool (*)(std::string_view qualified);

// `node` is an import_statement, import_from_statement or call. `describe(name)` makes the message.
void checkNode(TSNode node, Context& ctx, Matcher matches,
               const std::function<std::string(const std::string& name)>& describe);

}  // namespace ptlint::rules::retired
