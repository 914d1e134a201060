// The names of the `ptlint` settings the server reads, and the warning for one it does not know
// ("unknown setting `unsafeFix` (did you mean `unsafeFixes`?); it was ignored").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ptlint::server {

// Every key of the `ptlint` settings section (docs/lsp.md).
std::span<const std::string_view> settingNames();

// The known setting closest to `key` (a typo, another casing, snake_case, a Ruff-style `lint.`
// prefix); nullopt when none is close.
std::optional<std::string_view> closestSettingName(std::string_view key);

// The problem line for an unknown key, with a suggestion when one is close.
std::string unknownSettingProblem(std::string_view key);

}  // namespace ptlint::server
