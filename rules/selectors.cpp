#include "rules/selectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>

#include "rules/registry.h"

namespace ptlint::rules {
namespace {

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearestCode(std::string_view selector) {
  std::string upper(selector);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const RuleMeta* meta : allMetas()) {
    // A short selector is compared with the prefix of the same length (`PTL9` -> `PTL1`).
    std::string_view candidate = meta->code;
    if (upper.size() >= 3 && upper.size() < candidate.size()) candidate = candidate.substr(0, upper.size());
    size_t distance = editDistance(upper, candidate);
    if (distance < best_distance || (distance == best_distance && candidate < best)) {
      best_distance = distance;
      best = std::string(candidate);
    }
  }
  return best;
}

std::optional<std::string> selectorError(std::string_view selector) {
  if (selector == "ALL" || selector == "PTL") return std::nullopt;
  if (selector.starts_with("PTL"))
    for (const RuleMeta* meta : allMetas())
      if (meta->code.starts_with(selector)) return std::nullopt;
  std::string nearest = nearestCode(selector);
  return fmt::format("unknown rule selector `{}` (did you mean `{}`? `ptlint rule --all` lists every rule)", selector,
                     nearest);
}

std::optional<std::string> firstSelectorError(const std::vector<std::string>& selectors) {
  for (const auto& s : selectors)
    if (auto error = selectorError(s)) return error;
  return std::nullopt;
}

}  // namespace ptlint::rules
