#include "cli/diff.h"

#include <fmt/format.h>

#include "analysis/line_index.h"

#include <algorithm>
#include <vector>

namespace ptlint::cli {
namespace {

using analysis::splitLines;

enum class Op { Keep, Remove, Add };
struct Line {
  Op op;
  std::string_view text;
};

// Line diff: common prefix and suffix trimmed, LCS on the (usually small) middle; a middle
// too large for the table is shown as one replacement.
std::vector<Line> diffLines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<Line> out;
  for (size_t i = 0; i < prefix; ++i) out.push_back({Op::Keep, a[i]});
  size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  if (n * m <= 4'000'000) {
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = a[prefix + i] == b[prefix + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
        out.push_back({Op::Keep, a[prefix + i]});
        ++i, ++j;
      } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
        out.push_back({Op::Add, b[prefix + j++]});
      } else {
        out.push_back({Op::Remove, a[prefix + i++]});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) out.push_back({Op::Remove, a[prefix + i]});
    for (size_t j = 0; j < m; ++j) out.push_back({Op::Add, b[prefix + j]});
  }
  for (size_t i = a.size() - suffix; i < a.size(); ++i) out.push_back({Op::Keep, a[i]});
  // Within a change block, show removals before additions.
  for (size_t i = 0; i < out.size();) {
    if (out[i].op == Op::Keep) { ++i; continue; }
    size_t j = i;
    while (j < out.size() && out[j].op != Op::Keep) ++j;
    std::stable_partition(out.begin() + i, out.begin() + j, [](const Line& l) { return l.op == Op::Remove; });
    i = j;
  }
  return out;
}

void appendLine(std::string& out, char mark, std::string_view text) {
  out += mark;
  out.append(text);
  if (text.empty() || text.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string unifiedDiff(std::string_view before, std::string_view after, std::string_view path) {
  if (before == after) return {};
  auto a = splitLines(before), b = splitLines(after);
  auto lines = diffLines(a, b);
  constexpr size_t kContext = 3;
  std::string out = fmt::format("--- {}\n+++ {}\n", path, path);
  size_t i = 0;
  while (i < lines.size()) {
    // Find the next change.
    size_t change = i;
    while (change < lines.size() && lines[change].op == Op::Keep) ++change;
    if (change == lines.size()) break;
    size_t start = change >= kContext ? change - kContext : 0;
    start = std::max(start, i);
    // Extend the hunk while changes are within 2*context of each other.
    size_t end = change;
    for (;;) {
      while (end < lines.size() && lines[end].op != Op::Keep) ++end;
      size_t next = end;
      while (next < lines.size() && lines[next].op == Op::Keep) ++next;
      if (next < lines.size() && next - end <= 2 * kContext) {
        end = next;
        continue;
      }
      end = std::min(lines.size(), end + kContext);
      break;
    }
    // Line numbers of the hunk start in both texts.
    size_t old_line = 1, new_line = 1;
    for (size_t k = 0; k < start; ++k) {
      if (lines[k].op != Op::Add) ++old_line;
      if (lines[k].op != Op::Remove) ++new_line;
    }
    size_t old_count = 0, new_count = 0;
    for (size_t k = start; k < end; ++k) {
      if (lines[k].op != Op::Add) ++old_count;
      if (lines[k].op != Op::Remove) ++new_count;
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", old_count ? old_line : old_line - 1, old_count,
                       new_count ? new_line : new_line - 1, new_count);
    for (size_t k = start; k < end; ++k)
      appendLine(out, lines[k].op == Op::Keep ? ' ' : lines[k].op == Op::Remove ? '-' : '+', lines[k].text);
    i = end;
  }
  return out;
}

}  // namespace ptlint::cli
