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

// A PyTorch release, by its minor version: behaviour changes between minor releases only.
struct TorchVersion {
  int major = 2;
  int minor = 6;
  bool atLeast(int maj, int min) const { return major != maj ? major > maj : minor >= min; }
  bool atLeast(TorchVersion v) const { return atLeast(v.major, v.minor); }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
  // "2.6" or "2.6.1" -> {2, 6}; nullopt on anything else.
  static std::optional<TorchVersion> parse(std::string_view text);
  friend bool operator==(TorchVersion a, TorchVersion b) { return a.major == b.major && a.minor == b.minor; }
  friend bool operator<(TorchVersion a, TorchVersion b) { return !a.atLeast(b); }
  friend bool operator<=(TorchVersion a, TorchVersion b) { return b.atLeast(a); }
};

// The newest PyTorch release ptlint knows: it bounds an open range (">=2.1" means 2.1 to 2.14).
inline constexpr TorchVersion kNewestKnownTorch{2, 14};
// The range assumed when neither the configuration nor the project says.
inline constexpr TorchVersion kDefaultTorchFloor{2, 6};

// The PyTorch releases a project runs on, from a PEP 440 specifier (">=2.1", ">=2.4,<2.9",
// "==2.4.*", "~=2.4", "!=2.5.*"; a bare "2.1" means ">=2.1"), kept at the granularity of minor
// releases: ">=2.4.1" runs on 2.4 (its later patches), "<2.9" stops at 2.8, "<2.9.1" includes 2.9.
struct TorchRange {
  TorchVersion lo = kDefaultTorchFloor;   // the oldest release in the range
  std::optional<TorchVersion> hi;         // the newest, inclusive; none: up to newestKnown()
  std::vector<TorchVersion> excluded;     // whole minor releases excluded ("!=2.5.*")
  std::string spec = ">=2.6";             // the specifier as written (normalised spacing)
  std::string source;                     // where it came from: "" (default), a file, "--torch-version", ...

  TorchVersion floor() const { return lo; }
  // The newest release the range can mean: its ceiling, else the newest release ptlint knows
  // (never below the floor).
  TorchVersion newestKnown() const;
  // Optional inclusive ceiling as written (none for an open range).
  std::optional<TorchVersion> ceiling() const { return hi; }
  bool includes(TorchVersion v) const;
  // Does the range hold a release r with from <= r, and r < to when `to` is given? (A change
  // made in `from` and undone in `to`; a removal in `from`: includesAny(from).)
  bool includesAny(TorchVersion from, std::optional<TorchVersion> to = std::nullopt) const;
  // Every release of the range is at least `v` (the floor is): a replacement exists throughout.
  bool allAtLeast(TorchVersion v) const { return lo.atLeast(v); }
  // Every release of the range is below `v`.
  bool allBelow(TorchVersion v) const { return newestKnown() < v; }
  // "2.6" when the range holds one release, else ">=2.1,<2.9"-like text for messages.
  std::string str() const { return spec; }
  // A short description for messages: "PyTorch 2.1 (the oldest release of >=2.1)".
  std::string describeFloor() const;
  // A PEP 440 specifier (clauses joined by commas; local versions "+cu121" and pre-releases
  // ignored); a bare version "2.1" means ">=2.1". nullopt when it does not parse or holds no
  // release.
  static std::optional<TorchRange> parse(std::string_view text);
  static TorchRange atLeast(TorchVersion floor);
};

struct Settings {
  std::vector<std::string> select;         // codes or prefixes; empty means the default set
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  // The oldest release of torch_range (kept equal to torch_range.floor() by setTorchRange; code
  // that asks only "does the floor have X" reads this).
  TorchVersion torch_version;
  // The releases the project runs on (ceiling, exclusions, and where the range came from).
  TorchRange torch_range;
  void setTorchRange(TorchRange range) {
    torch_version = range.floor();
    torch_range = std::move(range);
  }
  // torch_range with its floor taken from torch_version (a caller that set only the floor gets
  // an open range from it).
  TorchRange torchRange() const;
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
