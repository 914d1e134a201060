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
  std::string message;
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

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleMeta& meta() const = 0;
  // Node kinds the rule wants to see; the linter walks the tree once and dispatches.
  virtual std::vector<analysis::NodeKind> nodeKinds() const = 0;
  virtual void check(TSNode node, Context& ctx) const = 0;
  // Byte strings of which at least one must occur in a file for the rule to possibly report.
  // Empty: the rule must always run. Used to skip parsing files that cannot match.
  virtual std::vector<std::string_view> triggers() const { return {}; }
  // True when each trigger must occur as a whole identifier (`amp` in `torch.cuda.amp`, not in
  // `example`): exact for rules whose every finding names that identifier somewhere in the file.
  virtual bool triggersAreWholeWords() const { return false; }
  // Byte strings that must ALL occur in a file (besides one trigger) for the rule to possibly
  // report, e.g. PTL703's `cudnn` and `deterministic`: checked before parsing, like triggers().
  virtual std::vector<std::string_view> requiredWords() const { return {}; }
  // The same under the file's settings, for rules whose triggers depend on them (PTL501 adds
  // the configured `compile-decorators`). The strings may point into `settings`.
  virtual std::vector<std::string_view> triggersFor(const Settings& settings) const {
    (void)settings;
    return triggers();
  }
  // True for the rules that override triggersFor: only their words are read again for each
  // file's settings when the linter looks up the prefilter of a selection.
  virtual bool triggersDependOnSettings() const { return false; }
  // A finer test on the bytes, asked before parsing once a trigger word matched: false when the
  // text shows the rule cannot report (PTL106: every `norm` in the file is the method of some
  // object other than torch). Exact, like triggers(), and cheap: it runs on every such file.
  virtual bool mayMatchText(std::string_view text, const Settings& settings) const {
    (void)text;
    (void)settings;
    return true;
  }
  // The same, given the text with what several prefilters share (its code without strings and
  // comments, computed once per file). The linter asks this one; by default it is mayMatchText.
  virtual bool mayMatchSource(const analysis::PrefilterText& source, const Settings& settings) const {
    return mayMatchText(source.text(), settings);
  }
  // Asked once per file, after parsing and before the semantic model is built: false when the
  // tree shows the rule cannot report here (PTL501 where nothing is compiled), so it does not run;
  // when no rule is left, no model is built. Exact, like triggers(): it must never hide a finding.
  virtual bool mayReportIn(const analysis::ParsedFile& file, const Settings& settings) const {
    (void)file;
    (void)settings;
    return true;
  }
  // Where check() can report or needs to look, asked once per file after the semantic model is
  // built, of rules whose checksWithinRanges() is true: byte ranges such that every node of
  // `nodeKinds()` (other than the module) whose check can report, or must be seen, overlaps one
  // of them (the words such a node always spells, the compiled functions, ...). When every rule
  // that runs says so, the linter walks only the subtrees that overlap some rule's ranges instead
  // of the whole tree, and hands a rule only the nodes that overlap its own (the module node, if
  // asked for, always). Exact, like triggers(): a node left out is one the rule would not report on.
  virtual bool checksWithinRanges() const { return false; }
  virtual std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                                 const Settings& settings) const {
    (void)model;
    (void)settings;
    return {};
  }
  // Identifiers one of which a text must spell (as a whole word) for the rule to use what other
  // files of the project say about it (PTL501: `item`, `tolist`, for functions compiled from
  // elsewhere); the caller then consults the project index. None: the rule never asks. The words
  // of all rules are looked up in one pass (`rules::asksProject`).
  virtual std::vector<std::string_view> projectWords() const { return {}; }
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
