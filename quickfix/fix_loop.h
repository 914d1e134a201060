// The fix loop shared by `--fix`, `source.fixAll` and `ptlint.applyFixAll`: apply every
// non-overlapping fix at or above an applicability, re-lint, repeat until nothing changes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/parse.h"
#include "quickfix/fix.h"

namespace ptlint::quickfix {

inline constexpr int kMaxFixPasses = 10;

// What the loop needs from a lint pass: the fixes on offer for a parsed file.
using FixProvider = std::function<std::vector<Fix>(const analysis::ParsedFile&)>;

struct FixLoopResult {
  std::string text;            // final text (unchanged when nothing applied)
  int fixes_applied = 0;
  int passes = 0;
  bool reverted = false;       // a pass would have introduced a syntax error and was undone
  bool hit_pass_cap = false;   // still changing after kMaxFixPasses
};

// Picks fixes with applicability >= `minimum` whose edits overlap neither each other nor an
// earlier pick (in order of first edit), and returns their edits merged and sorted.
std::vector<Edit> selectNonOverlapping(const std::vector<Fix>& fixes, Applicability minimum, int* picked = nullptr);

// Runs the loop on `text` (UTF-8, no BOM). A file that starts with syntax errors is returned
// unchanged; a pass that would add one is reverted and the loop stops.
FixLoopResult fixToFixpoint(std::string text, Applicability minimum, const FixProvider& provider);

}  // namespace ptlint::quickfix
