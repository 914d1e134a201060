// What the terminal sees: whether to colour (`--color`, `NO_COLOR`, `FORCE_COLOR`, a TTY), the
// ANSI styles Ruff uses, and "did you mean" suggestions for a mistyped flag or subcommand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptlint::cli {

enum class ColorChoice { Auto, Always, Never };

// `--color`: `always`/`never` win; `auto` colours a terminal unless `NO_COLOR` is set and not
// empty (no-color.org); `FORCE_COLOR` or `CLICOLOR_FORCE` (set, not "0") colour a pipe too.
// `TERM=dumb` is never coloured under `auto`.
bool useColor(ColorChoice choice, int fd);

// ANSI SGR styles, as Ruff's stylesheet (anstyle): empty strings when colour is off.
struct Styles {
  bool on = false;
  std::string_view bold() const { return on ? "\x1b[1m" : ""; }
  std::string_view separator() const { return on ? "\x1b[36m" : ""; }         // `:` and `[*]`
  std::string_view code() const { return on ? "\x1b[1;31m" : ""; }            // the rule code
  std::string_view error() const { return on ? "\x1b[1;91m" : ""; }           // carets of an error
  std::string_view warning() const { return on ? "\x1b[1;33m" : ""; }         // carets of a warning
  std::string_view line_number() const { return on ? "\x1b[1;94m" : ""; }     // gutter and `|`
  std::string_view help() const { return on ? "\x1b[1;96m" : ""; }
  std::string_view note() const { return on ? "\x1b[1;92m" : ""; }
  std::string_view success() const { return on ? "\x1b[1;32m" : ""; }         // All checks passed!
  std::string_view reset() const { return on ? "\x1b[0m" : ""; }
  // `text` wrapped in `style` and a reset (nothing added when colour is off).
  std::string paint(std::string_view style, std::string_view text) const;
};

// The candidate most similar to `word` when it is likely a typo of it (clap's "a similar
// argument exists": Jaro similarity above 0.7, leading dashes ignored); empty otherwise.
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ptlint::cli
