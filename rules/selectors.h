// Rule selectors (`PTL101`, `PTL1`, `PTL`, `ALL`) as flags, config files and editor settings give
// them: each must name at least one registered code, checked against the registry at run time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptlint::rules {

// nullopt when `selector` is `ALL`, `PTL` or a prefix of a registered code; otherwise the
// message: "unknown rule selector `PTL403` (did you mean `PTL401`?)".
std::optional<std::string> selectorError(std::string_view selector);

// The first error among `selectors`, prefixed by where they came from ("--select: ...").
std::optional<std::string> firstSelectorError(const std::vector<std::string>& selectors);

// The registered code (or code prefix of the same length) nearest to `selector` by edit distance.
std::string nearestCode(std::string_view selector);

}  // namespace ptlint::rules
