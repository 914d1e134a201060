// The small subcommands Ruff users expect: `version`, `config [KEY]` and
// `generate-shell-completion SHELL` (completions generated from the parser's own options).
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace ptlint::cli {

// `ptlint version [--output-format json]`: `ptlint X.Y.Z`, or `{"version": "X.Y.Z"}`.
int runVersion(bool json, std::ostream& out);

// `ptlint config`: every configuration key, one a line; `ptlint config KEY`: its documentation,
// type, default and an example. An unknown key is a usage error (exit 2) suggesting the closest.
int runConfig(const std::string& key, std::ostream& out, std::ostream& err);

// `ptlint generate-shell-completion SHELL` (bash, zsh, fish): a completion script for `app`.
int runShellCompletion(const CLI::App& app, const std::string& shell, std::ostream& out, std::ostream& err);

}  // namespace ptlint::cli
