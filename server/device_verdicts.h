// gpuCheck: ptlint-gpu's verdicts on recognised attention patterns' rewrites (PTL601), shown in
// quickfix titles. `ptlint-gpu` loads libtorch (seconds), so it is started lazily, only when a
// quickfix request meets a PTL601 fix with gpuCheck on, for every pattern queued by then (one
// process per batch, on its own thread), and never again once it failed to start or answer:
// the reason is shown instead. Verdicts are remembered per pattern for the session.
//
// Thread-safe; its lock is never held while ptlint-gpu runs.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/document_analysis.h"

#ifdef PTLINT_SERVER_WITH_GPU_CHECK
#include "gpu_check/client.h"
#endif

namespace ptlint::server {

class DeviceVerdicts {
 public:
  DeviceVerdicts() = default;
  ~DeviceVerdicts() { shutdown(); }
  DeviceVerdicts(const DeviceVerdicts&) = delete;
  DeviceVerdicts& operator=(const DeviceVerdicts&) = delete;

  // Queues the patterns of `result`'s offered PTL601 fixes that have no verdict yet, when one in
  // [from, to] is among them, and starts the validation thread when it is idle.
  void request(const AnalysisResult& result, uint32_t from, uint32_t to);
  // The verdict on `d`'s rewrite as a title suffix. Returns false when the rewrite was found not
  // equivalent (the fix is withdrawn). Diagnostics without a pattern are left alone.
  bool verdict(const rules::Diagnostic& d, std::string& note);
  // Waits for the validation thread; no new one starts. Idempotent.
  void shutdown();

 private:
  struct Verdict {
    bool done = false;
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
    std::optional<gpu_check::Validation> validation;
#endif
    std::string why;
  };
  static std::string patternKey(const rules::Diagnostic& d);
#ifdef PTLINT_SERVER_WITH_GPU_CHECK
  void validationLoop();
  std::vector<std::pair<std::string, gpu_check::AttentionPattern>> queue_;
#endif

  std::mutex mutex_;
  std::map<std::string, Verdict> verdicts_;
  std::string unavailable_;  // why ptlint-gpu cannot be used; empty until it failed
  bool running_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace ptlint::server
