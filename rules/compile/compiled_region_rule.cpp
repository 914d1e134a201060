#include "rules/compile/compiled_region_rule.h"

#include <string>

#include "analysis/syntax.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

// Functions of the file may be compiled from another one: the project's facts say so.
bool compiledFromElsewhere(const Settings& settings) { return settings.project != nullptr && !settings.project->empty(); }

}  // namespace

const analysis::CompiledRegions::Function* compiledFunctionAt(TSNode node, const analysis::SemanticModel& model,
                                                              const Settings& settings) {
  // Built once per file, on the first candidate.
  const auto& regions = analysis::CompiledRegions::of(model, settings.compile_decorators, settings.project);
  const auto* fn = regions.functionAt(node);
  if (fn == nullptr || regions.isSkippedWhileCompiling(node)) return nullptr;
  return fn;
}

Prefilter CompiledRegionRule::prefilter() const {
  std::vector<std::string_view> words = findingWords();
  return {.words = {"compile", "optimize"},
          .plus_compile_decorators = true,
          .words_in_project = words,
          .project_words = words};
}

bool CompiledRegionRule::mayReport(const PrefilterInput& input, const Settings& settings) const {
  if (input.parsed != nullptr) {
    if (!mayHoldFinding(*input.parsed)) return false;
    if (compiledFromElsewhere(settings)) return true;
    return analysis::CompiledRegions::mayCompileAnything(*input.parsed, settings.compile_decorators);
  }
  if (compiledFromElsewhere(settings)) return true;
  auto words = prefilter().wordsFor(settings);
  return analysis::CompiledRegions::mayCompileAnythingInCode(input.source, words, settings.compile_decorators);
}

std::vector<std::pair<uint32_t, uint32_t>> CompiledRegionRule::checkRanges(const analysis::SemanticModel& model,
                                                                           const Settings& settings) const {
  std::vector<std::pair<uint32_t, uint32_t>> compiled;
  for (const auto& fn : analysis::CompiledRegions::of(model, settings.compile_decorators, settings.project).functions())
    compiled.emplace_back(analysis::startOf(fn->def), analysis::endOf(fn->def));
  if (!findingsSpellWords()) return compiled;
  std::vector<std::string_view> words = findingWords();
  return wordRangesWithin(model.file().text(), words, std::move(compiled));
}

}  // namespace ptlint::rules
