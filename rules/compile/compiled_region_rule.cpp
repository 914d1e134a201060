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

std::vector<std::string_view> CompiledRegionRule::triggersFor(const Settings& settings) const {
  if (compiledFromElsewhere(settings)) return findingWords();
  std::vector<std::string_view> words = triggers();
  for (const std::string& decorator : settings.compile_decorators) {
    std::string_view name = decorator;
    if (size_t dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
    if (!name.empty()) words.push_back(name);
  }
  return words;
}

bool CompiledRegionRule::mayMatchSource(const analysis::PrefilterText& source, const Settings& settings) const {
  if (compiledFromElsewhere(settings)) return true;
  auto words = triggersFor(settings);
  return analysis::CompiledRegions::mayCompileAnythingInCode(source, words, settings.compile_decorators);
}

bool CompiledRegionRule::mayReportIn(const analysis::ParsedFile& file, const Settings& settings) const {
  if (!mayHoldFinding(file)) return false;
  if (compiledFromElsewhere(settings)) return true;
  return analysis::CompiledRegions::mayCompileAnything(file, settings.compile_decorators);
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
