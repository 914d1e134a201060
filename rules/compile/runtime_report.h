// What PTL901 and PTL902 share: turning the findings a compile log holds for a file
// (`Settings::runtime`) into diagnostics, and the cross-reference between those and the static
// compiled-code rules (PTL501, PTL502, PTL504) that land on the same line.
#pragma once

#include <vector>

#include "rules/rule.h"
#include "rules/runtime_findings.h"

namespace ptlint::rules {

// Reports every finding of `kind` in `ctx.settings().runtime` on its line (a line past the end of
// the file — a log of an older version of it — is not reported).
void reportRuntimeFindings(Context& ctx, RuntimeFinding::Kind kind);

// Marks a PTL901 and a PTL501/PTL502/PTL504 on one line as confirming each other, and a PTL901
// on a line no static rule reported as such (only when those rules ran on the file).
void crossReferenceRuntime(std::vector<Diagnostic>& diagnostics, const analysis::ParsedFile& file,
                           const Settings& settings);

// PTL901 and PTL902: a rule that reports one kind of the compile log's findings, and runs only on
// a file the log has findings for.
class RuntimeFindingsRule final : public Rule {
 public:
  RuntimeFindingsRule(const RuleMeta& meta, RuntimeFinding::Kind kind) : meta_(meta), kind_(kind) {}
  const RuleMeta& meta() const override { return meta_; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::module}; }
  // Only on a file the compile log has findings for.
  bool mayReport(const PrefilterInput&, const Settings& settings) const override {
    return settings.runtime != nullptr && !settings.runtime->findings.empty();
  }
  void check(TSNode, Context& ctx) const override { reportRuntimeFindings(ctx, kind_); }

 private:
  const RuleMeta& meta_;
  RuntimeFinding::Kind kind_;
};

}  // namespace ptlint::rules
