// Resolved settings for linting one file: what the CLI flags, config files and LSP settings
// boil down to. Plain data; workspace/ builds it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptlint::analysis {
struct ProjectFacts;
}

namespace ptlint::rules {

struct RuntimeFindings;

struct TorchVersion {
  int major = 2;
  int minor = 6;
  bool atLeast(int maj, int min) const { return major != maj ? major > maj : minor >= min; }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
  // "2.6" or "2.6.1" -> {2, 6}; nullopt on anything else.
  static std::optional<TorchVersion> parse(std::string_view text);
};

struct Settings {
  std::vector<std::string> select;         // codes or prefixes; empty means the default set
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  TorchVersion torch_version;
  bool unsafe_fixes = false;
  std::vector<std::string> compile_decorators;  // extra qualified names marking compiled code
  // What other files of the project say about this one (functions compiled from elsewhere);
  // null when nobody asked the project index.
  std::shared_ptr<const analysis::ProjectFacts> project;
  // What a torch.compile log (`--compile-log`, the server's `compileLog`) says about this file;
  // null when no log was given. While a log is given, the runtime rules (PTL9xx) are on by
  // default.
  std::shared_ptr<const RuntimeFindings> runtime;
  bool compile_log_given = false;

  // Is `code` enabled under these settings? (select/extend-select/ignore; the longest
  // matching prefix wins, as in Ruff.)
  bool isEnabled(std::string_view code, bool enabled_by_default) const;
  // Whether a rule is on unless selected otherwise: its own default, and the runtime rules
  // whenever a compile log is given.
  bool onByDefault(std::string_view code, bool enabled_by_default) const {
    return enabled_by_default || (compile_log_given && code.starts_with("PTL9"));
  }
};

}  // namespace ptlint::rules
