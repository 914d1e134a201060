#include "cli/terminal.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ptlint::cli {
namespace {

bool envSet(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// Jaro similarity (0 to 1), as clap's suggestions compute it (strsim::jaro).
double jaro(std::string_view a, std::string_view b) {
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  size_t window = std::max(a.size(), b.size()) / 2;
  window = window > 0 ? window - 1 : 0;
  std::vector<bool> a_match(a.size()), b_match(b.size());
  size_t matches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    size_t lo = i > window ? i - window : 0, hi = std::min(b.size(), i + window + 1);
    for (size_t j = lo; j < hi; ++j)
      if (!b_match[j] && a[i] == b[j]) {
        a_match[i] = b_match[j] = true;
        ++matches;
        break;
      }
  }
  if (matches == 0) return 0.0;
  size_t transpositions = 0;
  for (size_t i = 0, j = 0; i < a.size(); ++i) {
    if (!a_match[i]) continue;
    while (!b_match[j]) ++j;
    if (a[i] != b[j]) ++transpositions;
    ++j;
  }
  double m = static_cast<double>(matches);
  return (m / a.size() + m / b.size() + (m - transpositions / 2.0) / m) / 3.0;
}

std::string_view bare(std::string_view flag) {
  while (flag.starts_with('-')) flag.remove_prefix(1);
  return flag;
}

}  // namespace

bool useColor(ColorChoice choice, int fd) {
  if (choice == ColorChoice::Always) return true;
  if (choice == ColorChoice::Never) return false;
  if (envSet("NO_COLOR")) return false;
  for (const char* force : {"FORCE_COLOR", "CLICOLOR_FORCE"}) {
    const char* v = std::getenv(force);
    if (v && *v && std::string_view(v) != "0") return true;
  }
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return ::isatty(fd) == 1;
}

std::string Styles::paint(std::string_view style, std::string_view text) const {
  if (!on || style.empty()) return std::string(text);
  std::string out;
  out.reserve(style.size() + text.size() + 4);
  out += style;
  out += text;
  out += reset();
  return out;
}

std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  // As clap: the most similar candidate whose Jaro similarity exceeds 0.7 (dashes ignored).
  std::string best;
  double best_score = 0.7;
  for (const auto& candidate : candidates) {
    double score = jaro(bare(word), bare(candidate));
    if (score > best_score) {
      best_score = score;
      best = candidate;
    }
  }
  return best;
}

}  // namespace ptlint::cli
