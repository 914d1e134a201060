#include "server/device_verdicts.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/attention_facts.h"
#include "server/log.h"

namespace ptlint::server {

std::string DeviceVerdicts::patternKey(const rules::Diagnostic& d) {
  const rules::AttentionFacts& f = *rules::findingData<rules::AttentionFacts>(d);
  return fmt::format("{}/{}/{}/{}/{}/{}/{}", static_cast<int>(f.scale), f.scale_value, static_cast<int>(f.mask),
                     f.dropout ? *f.dropout : -1.0, static_cast<int>(f.layout), f.softmax_float32,
                     static_cast<int>(f.dtype));
}

void DeviceVerdicts::shutdown() {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
}

void DeviceVerdicts::request(const AnalysisResult& result, uint32_t from, uint32_t to) {
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
  auto offered = [&](const rules::Diagnostic& d) {
    return rules::findingData<rules::AttentionFacts>(d) && d.fix && !d.fix->edits.empty() &&
           d.fix->applicability != quickfix::Applicability::DisplayOnly;  // unsafe ones are offered too
  };
  bool wanted = false;
  for (const auto& d : result.lint.diagnostics)
    if (offered(d) && d.start <= to && d.end >= from) wanted = true;
  if (!wanted) return;  // nothing asked for needs the device
  std::thread previous;
  {
    std::lock_guard lock(mutex_);
    for (const auto& d : result.lint.diagnostics) {
      if (!offered(d)) continue;
      auto pattern = gpu_check::AttentionPattern::fromFacts(*rules::findingData<rules::AttentionFacts>(d));
      if (!pattern) continue;
      std::string key = patternKey(d);
      if (verdicts_.count(key)) continue;
      verdicts_[key] = {};
      if (!unavailable_.empty()) {
        verdicts_[key].done = true;
        verdicts_[key].why = unavailable_;
        continue;
      }
      queue_.emplace_back(key, *pattern);
    }
    if (!queue_.empty() && !running_ && !stopped_) {
      running_ = true;
      previous = std::move(thread_);  // ended: it cleared running_ on its way out
      thread_ = std::thread([this] { validationLoop(); });
    }
  }
  if (previous.joinable()) previous.join();
#else
  (void)result, (void)from, (void)to;
#endif
}

#ifdef PTLINT_SERVER_WITH_GPU_CHECK
void DeviceVerdicts::validationLoop() {
  for (;;) {
    std::vector<std::pair<std::string, gpu_check::AttentionPattern>> batch;
    {
      std::lock_guard lock(mutex_);
      if (queue_.empty() || stopped_) {
        running_ = false;
        return;
      }
      batch.swap(queue_);
    }
    std::vector<gpu_check::AttentionPattern> patterns;
    for (const auto& [key, pattern] : batch) patterns.push_back(pattern);
    std::string why;
    auto results = gpu_check::validateAttention(patterns, gpu_check::ValidationOptions{}, &why);
    bool none = std::none_of(results.begin(), results.end(), [](const auto& r) { return r.has_value(); });
    if (none) logToStderr("gpuCheck: " + (why.empty() ? std::string("ptlint-gpu is unavailable") : why));
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < batch.size(); ++i) {
      Verdict& verdict = verdicts_[batch[i].first];
      verdict.done = true;
      if (i < results.size() && results[i]) verdict.validation = results[i];
      else verdict.why = why.empty() ? "ptlint-gpu is unavailable" : why;
    }
    if (none) {
      // It could not be run at all: not again this session. Queued patterns get the reason.
      unavailable_ = why.empty() ? "ptlint-gpu is unavailable" : why;
      for (const auto& [key, pattern] : queue_) {
        verdicts_[key].done = true;
        verdicts_[key].why = unavailable_;
      }
      queue_.clear();
    }
  }
}
#endif

bool DeviceVerdicts::verdict(const rules::Diagnostic& d, std::string& note) {
  if (!rules::findingData<rules::AttentionFacts>(d)) return true;
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
  std::lock_guard lock(mutex_);
  auto it = verdicts_.find(patternKey(d));
  if (it == verdicts_.end() || !it->second.done) {
    note = " (validating on the device...)";
    return true;
  }
  const Verdict& verdict = it->second;
  if (!verdict.validation || !verdict.validation->error.empty()) {
    note = " (not validated: " + (verdict.validation ? verdict.validation->error : verdict.why) + ")";
    return true;
  }
  note = " - " + gpu_check::summarize(*verdict.validation);
  return verdict.validation->equivalent;
#else
  note = " (not validated: this build has no gpu_check)";
  return true;
#endif
}

}  // namespace ptlint::server
