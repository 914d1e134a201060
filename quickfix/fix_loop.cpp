#include "quickfix/fix_loop.h"

#include <algorithm>

namespace ptlint::quickfix {
namespace {

bool overlaps(const Edit& a, const Edit& b) {
  // Proper overlap, or two edits starting at one point (their order would be arbitrary).
  return (a.start < b.end && b.start < a.end) || a.start == b.start;
}

}  // namespace

std::vector<Edit> selectNonOverlapping(const std::vector<Fix>& fixes, Applicability minimum, int* picked) {
  std::vector<const Fix*> candidates;
  for (const Fix& fix : fixes)
    if (fix.applicability >= minimum && !fix.edits.empty()) candidates.push_back(&fix);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Fix* a, const Fix* b) { return a->edits.front().start < b->edits.front().start; });
  std::vector<Edit> accepted;
  int count = 0;
  for (const Fix* fix : candidates) {
    bool clash = false;
    for (const Edit& e : fix->edits) {
      for (const Edit& a : accepted)
        if (overlaps(e, a)) { clash = true; break; }
      if (clash) break;
    }
    // Edits within one fix must not overlap each other either.
    for (size_t i = 0; !clash && i + 1 < fix->edits.size(); ++i)
      for (size_t j = i + 1; j < fix->edits.size(); ++j)
        if (overlaps(fix->edits[i], fix->edits[j])) { clash = true; break; }
    if (clash) continue;
    accepted.insert(accepted.end(), fix->edits.begin(), fix->edits.end());
    ++count;
  }
  std::stable_sort(accepted.begin(), accepted.end(),
                   [](const Edit& a, const Edit& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
  if (picked) *picked = count;
  return accepted;
}

uint32_t shiftOffset(uint32_t offset, const std::vector<Edit>& edits) {
  int64_t delta = 0;
  for (const Edit& e : edits) {
    if (e.start > offset || (e.start == offset && e.end > offset)) break;
    if (e.end > offset) return e.start + static_cast<uint32_t>(delta);  // inside an edit: its start
    delta += static_cast<int64_t>(e.content.size()) - static_cast<int64_t>(e.end - e.start);
  }
  return static_cast<uint32_t>(static_cast<int64_t>(offset) + delta);
}

FixLoopResult fixToFixpoint(std::string text, Applicability minimum, const FixProvider& provider,
                            const std::function<void(const std::vector<Edit>&)>& on_pass) {
  FixLoopResult result;
  analysis::ParsedFile current = analysis::ParsedFile::parse(std::move(text));
  if (current.hasSyntaxErrors()) {
    result.text = std::string(current.text());
    return result;
  }
  std::string_view line_ending = detectLineEnding(current.text());
  for (;;) {
    if (result.passes == kMaxFixPasses) {
      result.hit_pass_cap = true;
      break;
    }
    std::vector<Fix> fixes = provider(current);
    if (!fixes.empty()) {  // the scan reads the whole text: not for a pass with nothing to guard
      LexicalMap lexical(current.text());
      std::erase_if(fixes, [&](const Fix& fix) { return !lexical.allows(fix); });
    }
    int picked = 0;
    std::vector<Edit> edits = selectNonOverlapping(fixes, minimum, &picked);
    if (edits.empty()) break;
    ++result.passes;
    std::string next_text = applyEdits(current.text(), edits, line_ending);
    if (next_text == current.text()) break;
    analysis::ParsedFile next = analysis::ParsedFile::parse(std::move(next_text));
    if (next.hasSyntaxErrors()) {
      result.reverted = true;
      break;
    }
    result.fixes_applied += picked;
    current = std::move(next);
    // As applied: inserted line breaks in the file's own ending.
    if (line_ending != "\n")
      for (Edit& e : edits) {
        std::string written;
        for (char c : e.content) {
          if (c == '\n') written.append(line_ending);
          else written.push_back(c);
        }
        e.content = std::move(written);
      }
    if (on_pass) on_pass(edits);
    result.history.push_back(std::move(edits));
  }
  result.text = std::string(current.text());
  return result;
}

}  // namespace ptlint::quickfix
