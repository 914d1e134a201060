#include "server/setting_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace ptlint::server {
namespace {

constexpr std::array<std::string_view, 8> kNames{"select",        "extendSelect", "ignore",   "configuration",
                                                 "unsafeFixes",   "torchVersion", "gpuCheck", "compileLog"};

// Lower case without `_`, `-` and `.`: `unsafe_fixes`, `UnsafeFixes` and `unsafe-fixes` are one name.
std::string folded(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-' && c != '.') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::span<const std::string_view> settingNames() { return kNames; }

std::optional<std::string_view> closestSettingName(std::string_view key) {
  if (key.size() > 64) return std::nullopt;
  std::string k = folded(key);
  if (k.starts_with("ptlint")) k = k.substr(6);  // `ptlint.select` pasted from VS Code's settings
  if (k.starts_with("lint")) k = k.substr(4);    // Ruff's `lint.select`
  std::optional<std::string_view> best;
  size_t best_distance = 0;
  for (std::string_view name : kNames) {
    size_t d = editDistance(k, folded(name));
    if (d <= std::max<size_t>(1, name.size() / 4) && (!best || d < best_distance)) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string unknownSettingProblem(std::string_view key) {
  std::string shown(key.substr(0, 80));
  std::string out = "unknown setting `" + shown + "`";
  if (auto close = closestSettingName(key)) out += " (did you mean `" + std::string(*close) + "`?)";
  return out + "; it was ignored";
}

}  // namespace ptlint::server
