#include "cli/diff.h"

#include <fmt/format.h>

#include "analysis/line_index.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace ptlint::cli {
namespace {

using analysis::splitLines;

enum class Op { Keep, Remove, Add };
struct Line {
  Op op;
  std::string_view text;
};

// Myers' O((N+M)D) line diff in linear space (the middle-snake bisection of "An O(ND)
// Difference Algorithm and Its Variations", 1986), as GNU diff and git use: no size cut-off,
// and the work is proportional to the lines changed, not to the file's size. Lines are
// compared as numbers (one per distinct text). The bisection keeps its sub-problems on an
// explicit stack, so nothing recurses on the number of changes.
class Myers {
 public:
  Myers(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) : a_(a), b_(b) {
    size_t max = (a.size() + b.size() + 1) / 2 + 2;
    vf_.assign(2 * max + 3, 0);
    vb_.assign(2 * max + 3, 0);
  }

  // For each line of `a` and of `b`: whether it is kept.
  void run(std::vector<bool>& keep_a, std::vector<bool>& keep_b) {
    keep_a.assign(a_.size(), false);
    keep_b.assign(b_.size(), false);
    struct Range { size_t a0, a1, b0, b1; };
    std::vector<Range> stack{{0, a_.size(), 0, b_.size()}};
    while (!stack.empty()) {
      Range r = stack.back();
      stack.pop_back();
      while (r.a0 < r.a1 && r.b0 < r.b1 && a_[r.a0] == b_[r.b0]) keep_a[r.a0++] = keep_b[r.b0++] = true;
      while (r.a0 < r.a1 && r.b0 < r.b1 && a_[r.a1 - 1] == b_[r.b1 - 1]) keep_a[--r.a1] = keep_b[--r.b1] = true;
      if (r.a0 == r.a1 || r.b0 == r.b1) continue;  // only insertions or only deletions left
      Snake s = middleSnake(r.a0, r.a1, r.b0, r.b1);
      bool smaller = (s.x0 - r.a0) + (s.y0 - r.b0) < (r.a1 - r.a0) + (r.b1 - r.b0) &&
                     (r.a1 - s.x1) + (r.b1 - s.y1) < (r.a1 - r.a0) + (r.b1 - r.b0);
      if (!smaller) continue;  // cannot happen once prefix and suffix differ; never loop
      for (size_t x = s.x0, y = s.y0; x < s.x1; ++x, ++y) keep_a[x] = keep_b[y] = true;
      stack.push_back({s.x1, r.a1, s.y1, r.b1});
      stack.push_back({r.a0, s.x0, r.b0, s.y0});
    }
  }

 private:
  struct Snake { size_t x0, y0, x1, y1; };

  // The middle snake of a[a0, a1) against b[b0, b1): a run of equal lines that some shortest
  // edit script passes through at its half-way point.
  Snake middleSnake(size_t a0, size_t a1, size_t b0, size_t b1) {
    const long n = static_cast<long>(a1 - a0), m = static_cast<long>(b1 - b0);
    const long delta = n - m;
    const bool odd = (delta & 1) != 0;
    const long max = (n + m + 1) / 2;
    const long off = max + 1;
    vf_[off + 1] = 0;
    vb_[off + 1] = 0;
    for (long d = 0; d <= max; ++d) {
      for (long k = -d; k <= d; k += 2) {  // forward, from (0, 0)
        long x = (k == -d || (k != d && vf_[off + k - 1] < vf_[off + k + 1])) ? vf_[off + k + 1] : vf_[off + k - 1] + 1;
        long y = x - k;
        long x0 = x, y0 = y;
        while (x < n && y < m && a_[a0 + x] == b_[b0 + y]) ++x, ++y;
        vf_[off + k] = x;
        long c = delta - k;  // the same diagonal, counted from the end
        if (odd && c >= -(d - 1) && c <= d - 1 && x + vb_[off + c] >= n)
          return {a0 + x0, b0 + y0, a0 + x, b0 + y};
      }
      for (long c = -d; c <= d; c += 2) {  // backward, from (n, m)
        long x = (c == -d || (c != d && vb_[off + c - 1] < vb_[off + c + 1])) ? vb_[off + c + 1] : vb_[off + c - 1] + 1;
        long y = x - c;
        long x0 = x, y0 = y;
        while (x < n && y < m && a_[a1 - 1 - x] == b_[b1 - 1 - y]) ++x, ++y;
        vb_[off + c] = x;
        long k = delta - c;
        if (!odd && k >= -d && k <= d && x + vf_[off + k] >= n)
          return {a1 - x, b1 - y, a1 - x0, b1 - y0};
      }
    }
    return {a0, b0, a0, b0};  // unreachable: d = max always meets
  }

  const std::vector<uint32_t>& a_;
  const std::vector<uint32_t>& b_;
  std::vector<long> vf_, vb_;
};

std::vector<Line> diffLines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::unordered_map<std::string_view, uint32_t> ids;
  auto number = [&](const std::vector<std::string_view>& lines) {
    std::vector<uint32_t> out;
    out.reserve(lines.size());
    for (std::string_view line : lines) out.push_back(ids.emplace(line, static_cast<uint32_t>(ids.size())).first->second);
    return out;
  };
  std::vector<uint32_t> na = number(a), nb = number(b);
  std::vector<bool> keep_a, keep_b;
  Myers(na, nb).run(keep_a, keep_b);
  std::vector<Line> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && !keep_a[i]) out.push_back({Op::Remove, a[i++]});
    else if (j < b.size() && !keep_b[j]) out.push_back({Op::Add, b[j++]});
    else out.push_back({Op::Keep, a[i++]}), ++j;
  }
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
