#include "rules/settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "analysis/noqa.h"

namespace ptlint::rules {

std::optional<TorchVersion> TorchVersion::parse(std::string_view text) {
  TorchVersion v;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  auto r1 = std::from_chars(p, end, v.major);
  if (r1.ec != std::errc() || r1.ptr == end || *r1.ptr != '.') return std::nullopt;
  auto r2 = std::from_chars(r1.ptr + 1, end, v.minor);
  if (r2.ec != std::errc()) return std::nullopt;
  if (r2.ptr != end) {
    // Allow a patch component: "2.6.1".
    if (*r2.ptr != '.') return std::nullopt;
    int patch = 0;
    auto r3 = std::from_chars(r2.ptr + 1, end, patch);
    if (r3.ec != std::errc() || r3.ptr != end) return std::nullopt;
  }
  if (v.major < 1 || v.major > 9 || v.minor < 0 || v.minor > 99) return std::nullopt;
  return v;
}

namespace {

// The last minor release of a major one (a "<3" ceiling means 2.<last>); unknown majors are
// open-ended and newestKnown() clamps them.
int lastMinorOf(int major) {
  if (major == 0) return 4;
  if (major == 1) return 13;
  return 99;
}

// Every release ptlint can reason about, oldest first: 0.1-0.4, 1.0-1.13, 2.0-newest.
std::vector<TorchVersion> knownReleases() {
  std::vector<TorchVersion> out;
  for (int m = 1; m <= 4; ++m) out.push_back({0, m});
  for (int m = 0; m <= 13; ++m) out.push_back({1, m});
  for (int m = 0; m <= kNewestKnownTorch.minor; ++m) out.push_back({2, m});
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

struct ParsedVersion {
  std::vector<int> release;  // "2.4.1" -> {2, 4, 1}
  bool wildcard = false;     // "2.4.*"
  bool suffixed = false;     // a pre-, post- or dev-release or a local version follows
};

// A PEP 440 version: [N!]N(.N)*[.*][{a|b|rc}N][.postN][.devN][+local]. Only the release
// numbers matter at minor granularity; the rest is checked loosely (letters, digits, dots).
std::optional<ParsedVersion> parseVersion(std::string_view text) {
  ParsedVersion v;
  text = trim(text);
  if (!text.empty() && (text[0] == 'v' || text[0] == 'V')) text.remove_prefix(1);
  if (auto bang = text.find('!'); bang != std::string_view::npos) {
    if (text.substr(0, bang) != "0") return std::nullopt;  // an epoch changes every comparison
    text.remove_prefix(bang + 1);
  }
  size_t i = 0;
  while (true) {
    int n = 0;
    auto r = std::from_chars(text.data() + i, text.data() + text.size(), n);
    if (r.ec != std::errc()) {
      if (!v.release.empty() && i < text.size() && text[i] == '*' && i + 1 == text.size()) {
        v.wildcard = true;
        return v.release.size() >= 1 ? std::optional(v) : std::nullopt;
      }
      if (v.release.empty()) return std::nullopt;
      break;
    }
    if (v.release.size() < 8) v.release.push_back(n);
    i = static_cast<size_t>(r.ptr - text.data());
    if (i < text.size() && text[i] == '.' && i + 1 < text.size() &&
        (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '*')) {
      ++i;
      continue;
    }
    break;
  }
  std::string_view rest = text.substr(i);
  if (!rest.empty()) {
    v.suffixed = true;
    for (char c : rest)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '-' && c != '_') return std::nullopt;
  }
  if (v.release.empty() || v.release[0] > 99) return std::nullopt;
  for (int& n : v.release) n = std::min(n, 999);
  return v;
}

TorchVersion minorOf(const ParsedVersion& v) { return {v.release[0], v.release.size() > 1 ? v.release[1] : 0}; }

// Nothing after the minor number but zeros: "2.4", "2.4.0".
bool endsAtMinor(const ParsedVersion& v) {
  for (size_t k = 2; k < v.release.size(); ++k)
    if (v.release[k] != 0) return false;
  return true;
}

TorchVersion previousRelease(TorchVersion v) {
  if (v.minor > 0) return {v.major, v.minor - 1};
  if (v.major == 0) return {0, 0};
  return {v.major - 1, lastMinorOf(v.major - 1)};
}

}  // namespace

std::optional<TorchRange> TorchRange::parse(std::string_view text) {
  text = trim(text);
  if (text.empty() || text.size() > 400) return std::nullopt;
  TorchRange range;
  range.lo = {0, 0};
  range.spec.clear();
  std::optional<TorchVersion> hi;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view clause = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (clause.empty()) return std::nullopt;
    std::string_view op;
    for (std::string_view candidate : {"===", "==", "!=", "<=", ">=", "~=", "<", ">"}) {
      if (clause.starts_with(candidate)) {
        op = candidate;
        break;
      }
    }
    auto version = parseVersion(clause.substr(op.size()));
    if (!version) return std::nullopt;
    if (version->wildcard && op != "==" && op != "!=") return std::nullopt;
    TorchVersion v = minorOf(*version);
    auto raise = [&](TorchVersion floor) { range.lo = std::max(range.lo, floor, [](auto a, auto b) { return a < b; }); };
    auto lower = [&](TorchVersion ceil) { hi = hi ? std::min(*hi, ceil, [](auto a, auto b) { return a < b; }) : ceil; };
    if (op.empty() || op == ">=" || op == ">") {
      raise(v);
    } else if (op == "<=") {
      lower(v);
    } else if (op == "<") {
      // "<2.9" stops at 2.8; "<2.9.1" and "<2.9rc1"... hold 2.9.0 only when a non-zero patch follows.
      lower(endsAtMinor(*version) ? previousRelease(v) : v);
    } else if (op == "==" || op == "===") {
      if (version->release.size() == 1 && version->wildcard) {
        raise({v.major, 0});
        lower({v.major, lastMinorOf(v.major)});
      } else {
        raise(v);
        lower(v);
      }
    } else if (op == "~=") {
      if (version->release.size() < 2) return std::nullopt;
      raise(v);
      lower(version->release.size() == 2 ? TorchVersion{v.major, lastMinorOf(v.major)} : v);
    } else if (op == "!=") {
      // Only "!=2.5.*" excludes a whole minor release; "!=2.5.0" leaves its later patches.
      if (version->wildcard && version->release.size() == 2) range.excluded.push_back(v);
    }
    if (!range.spec.empty()) range.spec += ",";
    range.spec += op.empty() ? ">=" : std::string(op);
    range.spec += trim(clause.substr(op.size()));
  }
  range.hi = hi;
  if (hi && *hi < range.lo) return std::nullopt;
  // A range whose every release is excluded holds nothing.
  bool any = false;
  for (auto r : knownReleases()) any = any || range.includes(r);
  if (!any && !range.includes(range.lo)) return std::nullopt;
  while (range.lo.major < 99 && std::find(range.excluded.begin(), range.excluded.end(), range.lo) != range.excluded.end() &&
         (!range.hi || range.lo < *range.hi)) {
    auto next = range.lo.minor < lastMinorOf(range.lo.major) ? TorchVersion{range.lo.major, range.lo.minor + 1} : TorchVersion{range.lo.major + 1, 0};
    range.lo = next;
  }
  return range;
}

TorchRange TorchRange::atLeast(TorchVersion floor) {
  TorchRange r;
  r.lo = floor;
  r.spec = ">=" + floor.str();
  return r;
}

TorchVersion TorchRange::newestKnown() const {
  TorchVersion v = hi && *hi < kNewestKnownTorch ? *hi : kNewestKnownTorch;
  if (v < lo) return lo;
  while (lo < v && std::find(excluded.begin(), excluded.end(), v) != excluded.end()) v = previousRelease(v);
  return v;
}

bool TorchRange::includes(TorchVersion v) const {
  if (v < lo) return false;
  if (hi && *hi < v) return false;
  return std::find(excluded.begin(), excluded.end(), v) == excluded.end();
}

bool TorchRange::includesAny(TorchVersion from, std::optional<TorchVersion> to) const {
  TorchVersion newest = newestKnown();
  auto in = [&](TorchVersion r) { return includes(r) && from <= r && (!to || r < *to) && r <= newest; };
  for (auto r : knownReleases())
    if (in(r)) return true;
  return in(lo);  // a floor newer than every known release
}

std::string TorchRange::describeFloor() const { return "PyTorch " + lo.str(); }

TorchRange Settings::torchRange() const {
  if (torch_range.lo == torch_version) return torch_range;
  TorchRange r = torch_range;
  r.lo = torch_version;
  if (r.hi && *r.hi < r.lo) r.hi.reset();
  r.spec = ">=" + torch_version.str();
  if (r.hi) r.spec += ",<=" + r.hi->str();
  return r;
}

bool Settings::isEnabled(std::string_view code, bool enabled_by_default) const {
  // Specificity: a longer matching prefix beats a shorter one; ignore beats select on a tie.
  int best_select = -1, best_ignore = -1;
  auto score = [&](const std::vector<std::string>& patterns, int& best) {
    for (const auto& p : patterns) {
      if (!analysis::codeMatches(p, code)) continue;
      int s = p == "ALL" ? 0 : static_cast<int>(p.size());
      if (s > best) best = s;
    }
  };
  if (select.empty()) {
    if (enabled_by_default) best_select = 0;
  } else {
    score(select, best_select);
  }
  score(extend_select, best_select);
  score(ignore, best_ignore);
  if (best_select < 0) return false;
  return best_ignore < best_select;
}

}  // namespace ptlint::rules
