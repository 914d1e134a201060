#include "cli/gpu_validation.h"

#include <string>
#include <utility>

#include "gpu_check/client.h"
#include "rules/attention_facts.h"

namespace ptlint::cli {

void validateAttentionFixes(std::vector<FileReport>& reports, std::ostream& err) {
  std::vector<gpu_check::AttentionPattern> patterns;
  std::vector<std::pair<FileReport*, size_t>> owners;  // pattern i -> (file, diagnostic index)
  for (auto& report : reports) {
    for (size_t i = 0; i < report.diagnostics.size(); ++i) {
      const rules::Diagnostic& d = report.diagnostics[i];
      const auto* attention = rules::findingData<rules::AttentionFacts>(d);
      if (!attention || !d.fix) continue;
      std::string why;
      auto pattern = gpu_check::AttentionPattern::fromFacts(*attention, &why);
      if (!pattern) {
        err << "warning: " << report.display_path << ": --gpu-check: " << why << "\n";
        continue;
      }
      patterns.push_back(std::move(*pattern));
      owners.emplace_back(&report, i);
    }
  }
  if (patterns.empty()) return;

  std::string why;
  auto results = gpu_check::validateAttention(patterns, gpu_check::ValidationOptions{}, &why);
  bool any = false;
  for (size_t k = 0; k < results.size(); ++k) {
    if (!results[k]) continue;
    any = true;
    auto& [report, index] = owners[k];
    const gpu_check::Validation& v = *results[k];
    report->validation[index] = gpu_check::toJson(v);
    if (v.error.empty() && !v.equivalent) {
      rules::Diagnostic& d = report->diagnostics[index];
      d.fix.reset();
      d.message += " (fix withdrawn: the rewrite was " + gpu_check::summarize(v) + ")";
    }
  }
  if (!any) err << "warning: --gpu-check: fixes were not validated: " << why << "\n";
}

}  // namespace ptlint::cli
