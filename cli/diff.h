// A unified diff of two texts, as `--diff` prints it (3 lines of context, git-style headers).
#pragma once

#include <string>
#include <string_view>

namespace ptlint::cli {

std::string unifiedDiff(std::string_view before, std::string_view after, std::string_view path);

}  // namespace ptlint::cli
