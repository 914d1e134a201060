#include "quickfix/fix.h"

#include <algorithm>

namespace ptlint::quickfix {

std::string_view applicabilityName(Applicability applicability) {
  switch (applicability) {
    case Applicability::Safe: return "safe";
    case Applicability::Unsafe: return "unsafe";
    case Applicability::DisplayOnly: return "display-only";
  }
  return "display-only";
}

void Fix::sortEdits() {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
}

std::string applyEdits(std::string_view text, const std::vector<Edit>& edits, std::string_view line_ending) {
  std::string out;
  out.reserve(text.size() + 64);
  uint32_t cursor = 0;
  for (const Edit& edit : edits) {
    uint32_t start = std::min<uint32_t>(edit.start, static_cast<uint32_t>(text.size()));
    uint32_t end = std::min<uint32_t>(std::max(edit.end, start), static_cast<uint32_t>(text.size()));
    if (start < cursor) continue;  // overlapping: callers never pass these, but never corrupt
    out.append(text.substr(cursor, start - cursor));
    if (line_ending == "\n") {
      out.append(edit.content);
    } else {
      for (char c : edit.content) {
        if (c == '\n') out.append(line_ending);
        else out.push_back(c);
      }
    }
    cursor = end;
  }
  out.append(text.substr(cursor));
  return out;
}

std::string_view detectLineEnding(std::string_view text) {
  size_t nl = text.find('\n');
  if (nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r') return "\r\n";
  return "\n";
}

bool normalizeEdits(std::vector<Edit>& edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.start != b.start) return a.start < b.start;
    return (a.start == a.end) > (b.start == b.end);  // insertions first
  });
  std::vector<Edit> out;
  for (Edit& e : edits) {
    if (!out.empty() && out.back().start == e.start && out.back().start == out.back().end) {
      out.back().end = e.end;
      out.back().content += e.content;
      continue;
    }
    if (!out.empty() && e.start < out.back().end) return false;
    out.push_back(std::move(e));
  }
  edits = std::move(out);
  return true;
}

}  // namespace ptlint::quickfix
