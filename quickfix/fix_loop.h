// The fix loop shared by `--fix`, `source.fixAll` and `ptlint.applyFixAll`: apply every
// non-overlapping fix at or above an applicability, re-lint, repeat until nothing changes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/parse.h"
#include "quickfix/edit_guard.h"
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
  // The edits of each kept pass, on that pass's text, line endings as written: where a position
  // of the input lies in `text` (a notebook's magic lines are given back there).
  std::vector<std::vector<Edit>> history;
};

// Where `offset` (outside every edit) lies after `edits` (sorted, non-overlapping) are applied.
uint32_t shiftOffset(uint32_t offset, const std::vector<Edit>& edits);

// Picks fixes with applicability >= `minimum` whose edits overlap neither each other nor an
// earlier pick (in order of first edit), and returns their edits merged and sorted.
std::vector<Edit> selectNonOverlapping(const std::vector<Fix>& fixes, Applicability minimum, int* picked = nullptr);

// Runs the loop on `text` (UTF-8, no BOM). A file that starts with syntax errors is returned
// unchanged; a pass that would add one is reverted and the loop stops. Every fix passes the
// lexical guard (quickfix/edit_guard.h) on the pass's text first; `on_pass` sees each kept
// pass's edits (a caller tracking positions across passes).
FixLoopResult fixToFixpoint(std::string text, Applicability minimum, const FixProvider& provider,
                            const std::function<void(const std::vector<Edit>&)>& on_pass = {});

}  // namespace ptlint::quickfix
