// The skeleton of the rules that report something inside code `torch.compile` traces (PTL501,
// PTL502, PTL504): which files may hold a finding, the byte ranges worth checking, and the
// compiled function a node sits in. Each rule keeps what it looks for and what it says.
#pragma once

#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/compiled_regions.h"
#include "rules/compile/compile_path.h"
#include "rules/rule.h"

namespace ptlint::rules {

// The compiled function `node` runs in (`torch.compile` reaches it and no
// `torch.compiler.disable` or `is_compiling()` guard keeps it eager), or null.
const analysis::CompiledRegions::Function* compiledFunctionAt(TSNode node, const analysis::SemanticModel& model,
                                                              const Settings& settings);

class CompiledRegionRule : public Rule {
 public:
  // A file compiles something when it names `torch.compile` (or a configured decorator).
  std::vector<std::string_view> triggers() const override { return {"compile", "optimize"}; }
  bool triggersDependOnSettings() const override { return true; }
  // Compiled from another file: every finding spells one of `findingWords()`.
  std::vector<std::string_view> triggersFor(const Settings& settings) const override;
  // Before parsing: with nothing compiled from other files, a finding needs `compile` (or a
  // configured decorator) as an identifier in code that can name a compiler (not `re.compile`).
  bool mayMatchSource(const analysis::PrefilterText& source, const Settings& settings) const override;
  bool mayReportIn(const analysis::ParsedFile& file, const Settings& settings) const override;
  // Functions of this file may be compiled from another one (`torch.compile(Model())` in train.py).
  std::vector<std::string_view> projectWords() const override { return findingWords(); }

  // Every finding is in a compiled function (and, with `findingsSpellWords()`, spells a word).
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings& settings) const override;

 protected:
  // The words (method or function names) every finding spells.
  virtual std::vector<std::string_view> findingWords() const = 0;
  // Can the file's text hold a finding at all, compiled or not?
  virtual bool mayHoldFinding(const analysis::ParsedFile& file) const = 0;
  // Does every finding spell one of `findingWords()` inside its compiled function (so that the
  // ranges to check narrow to those words)?
  virtual bool findingsSpellWords() const { return true; }
};

}  // namespace ptlint::rules
