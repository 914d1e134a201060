// The Rule interface. One rule per file under rules/<area>/, its documentation beside its
// matcher; the codes live in one table (registry.cpp). Rules see byte offsets only.
#pragma once

#include <tree_sitter/api.h>

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/node_kinds.h"
#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "quickfix/fix.h"
#include "rules/finding_data.h"
#include "rules/prefilter.h"
#include "rules/settings.h"

namespace ptlint::rules {

enum class Severity { Error, Warning, Information, Hint };
std::string_view severityName(Severity severity);

enum class FixAvailability { None, Sometimes, Always };

struct RuleMeta {
  std::string_view code;     // "PTL101": stable forever
  std::string_view name;     // "deprecated-cuda-amp"
  std::string_view summary;  // one line
  FixAvailability fix = FixAvailability::None;
  quickfix::Applicability fix_applicability = quickfix::Applicability::Safe;
  Severity severity = Severity::Warning;
  bool enabled_by_default = true;
  bool deprecated_tag = false;   // LSP `DiagnosticTag.Deprecated`
  std::string_view since_torch;  // the PyTorch version the rule's facts are about
  std::string_view docs;         // Markdown: What it does / Why is this bad? / ... / References
};

struct RelatedInfo {
  uint32_t start = 0, end = 0;
  std::string message;
  // Set when the information points into another file (absolute path); `start`/`end` are then
  // that file's bytes, and its position is given precomputed (the other text is not at hand).
  std::string path;
  uint32_t line = 0;          // 0-based
  uint32_t column = 0;        // 1-based code points
  uint32_t column_utf16 = 0;  // 0-based UTF-16 units
  uint32_t column_bytes = 0;  // 0-based bytes
};

struct Diagnostic {
  std::string_view code;  // points into the rule's static metadata
  std::string message;  // what is wrong and what to do, short
  // Why, or under which condition, in one sentence (Ruff's `help:`); empty for most findings.
  // The `full` text output shows it under the snippet; the machine formats keep their keys.
  std::string help;
  uint32_t start = 0, end = 0;  // bytes; `start` decides the noqa line
  Severity severity = Severity::Warning;
  std::optional<quickfix::Fix> fix;
  std::vector<RelatedInfo> related;
  // The rule's own data for tools outside it (rules/finding_data.h); null for most findings.
  std::shared_ptr<const FindingData> data;
};

// The finding's data when the rule that reported it keeps a `T` (null otherwise).
template <typename T>
const T* findingData(const Diagnostic& d) {
  return findingData<T>(d.data);
}

class Context;

// What Rule::mayReport sees: a file's bytes (with the code view the prefilters share), and after
// parsing its tree.
struct PrefilterInput {
  const analysis::PrefilterText& source;
  const analysis::ParsedFile* parsed = nullptr;  // null before parsing
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleMeta& meta() const = 0;
  // Node kinds the rule wants to see; the linter walks the tree once and dispatches.
  virtual std::vector<analysis::NodeKind> nodeKinds() const = 0;
  virtual void check(TSNode node, Context& ctx) const = 0;
  // The words and byte-level conditions without which the rule cannot report (rules/prefilter.h),
  // as data: the linter evaluates every rule's declaration at once. None: the rule always runs.
  virtual Prefilter prefilter() const { return {}; }
  // The one custom prefilter test, for what the declaration cannot say (a shape of the code, a
  // fact of the settings): asked once on the bytes before parsing (`input.parsed` null), once
  // more after parsing (the tree at hand), in each case after the declared conditions passed.
  // False when the rule cannot report in this file, so it does not run. Like every prefilter it
  // must never hide a finding: PTLINT_NO_PREFILTER=1 skips it and the output must not change.
  virtual bool mayReport(const PrefilterInput& input, const Settings& settings) const {
    (void)input;
    (void)settings;
    return true;
  }
  // Where check() can report or needs to look: a mechanism apart from the prefilter, because it
  // does not decide whether the rule runs but which part of the tree it is handed, and it needs
  // the semantic model (built after every prefilter). Asked once per file after the model is
  // built, of rules whose checksWithinRanges() is true: byte ranges such that every node of
  // `nodeKinds()` (other than the module) whose check can report, or must be seen, overlaps one
  // of them (the words such a node always spells, the compiled functions, ...). When every rule
  // that runs says so, the linter walks only the subtrees that overlap some rule's ranges instead
  // of the whole tree, and hands a rule only the nodes that overlap its own (the module node, if
  // asked for, always). Exact, like the prefilter: a node left out is one the rule would not report on.
  virtual bool checksWithinRanges() const { return false; }
  virtual std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                                 const Settings& settings) const {
    (void)model;
    (void)settings;
    return {};
  }
};

// What a rule sees while checking one file.
class Context {
 public:
  Context(const analysis::ParsedFile& file, const analysis::SemanticModel& model, const Settings& settings,
          const Rule& rule, std::vector<Diagnostic>& out)
      : file_(file), model_(model), settings_(settings), rule_(&rule), out_(out) {}

  const analysis::ParsedFile& file() const { return file_; }
  const analysis::SemanticModel& model() const { return model_; }
  const Settings& settings() const { return settings_; }
  std::string_view source() const { return file_.text(); }
  std::string_view text(TSNode node) const { return model_.text(node); }
  bool torchAtLeast(int major, int minor) const { return settings_.torch_version.atLeast(major, minor); }
  // The range's oldest release, as messages name it: "PyTorch 2.1".
  std::string torchFloorText() const { return "PyTorch " + settings_.torch_version.str(); }

  void setRule(const Rule& rule) { rule_ = &rule; }

  Diagnostic& report(uint32_t start, uint32_t end, std::string message);
  Diagnostic& report(TSNode node, std::string message) {
    return report(ts_node_start_byte(node), ts_node_end_byte(node), std::move(message));
  }

 private:
  const analysis::ParsedFile& file_;
  const analysis::SemanticModel& model_;
  const Settings& settings_;
  const Rule* rule_;
  std::vector<Diagnostic>& out_;
};

}  // namespace ptlint::rules
