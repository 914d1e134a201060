#include "rules/settings.h"

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
