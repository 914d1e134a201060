// What the `ptlint` binary knows of gpu_check. No torch here: `ptlint` never links libtorch.
// The device work happens in the separate `ptlint-gpu` executable (built only when libtorch is
// found), started as a child process — JSON request on its stdin, JSON answer on its stdout —
// only for `ptlint doctor` and `ptlint check --gpu-check`. Without it, both say so plainly.
//
// Invariants: nothing here runs user code, and `ptlint-gpu` only runs the operations of a
// recognised pattern on random inputs. Every function here degrades (returns an explanation,
// never throws) when `ptlint-gpu` is missing, crashes, hangs or answers garbage.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/env_check.h"
#include "gpu_check/pattern.h"

namespace ptlint::gpu_check {

// The environment checks live in analysis/ (PTL705 uses them too); doctor reports them.
using namespace ptlint::env_check;

// Where `ptlint-gpu` is: $PTLINT_GPU when set (empty string: "none", to turn it off), else next to
// the running executable (/proc/self/exe), else on PATH. nullopt when not found.
std::optional<std::string> findWorker();

// `ptlint doctor [--json]`: libtorch and device facts (from `ptlint-gpu`), and the environment
// checks (always). Returns the process exit code: 0, also when `ptlint-gpu` is unavailable.
int runDoctor(bool json, std::ostream& out, std::ostream& err);

// The doctor report as JSON (what `runDoctor(true, ...)` prints).
nlohmann::json doctorReport(std::chrono::milliseconds timeout = std::chrono::seconds(60));

struct ValidationOptions {
  // B, H, T, D. For layout "btd" the inputs are (B*H, T, D).
  std::vector<int64_t> shape = {2, 8, 256, 64};
  int warmup = 3;   // untimed runs of each side first
  int repeats = 10; // timed runs of each side; the medians give the speedup
  std::string device = "auto";  // auto (CUDA when available, else CPU) | cpu | cuda
  uint64_t seed = 0;
  std::chrono::milliseconds timeout = std::chrono::seconds(300);  // for the whole batch
};

// The `"validation"` object of docs/gpu_check.md, plus `error` (empty when the run went through).
struct Validation {
  std::string device, dtype;
  std::vector<int64_t> shape;
  double max_abs_error = 0, tolerance = 0;  // max_abs_error is +inf when the outputs differ in NaN/inf
  bool equivalent = false;
  double speedup = 0;  // median(hand-rolled) / median(scaled_dot_product_attention)
  std::string error;
};

// One `ptlint-gpu` process for the whole batch. The result has one entry per pattern, nullopt
// when it could not be validated at all (`ptlint-gpu` unavailable or failing; then `*why`, if
// given, says why). An entry with a non-empty `error` is a pattern `ptlint-gpu` refused.
std::vector<std::optional<Validation>> validateAttention(const std::vector<AttentionPattern>& patterns,
                                                          const ValidationOptions& options,
                                                          std::string* why = nullptr);

// Exactly the documented object (docs/gpu_check.md): device, dtype, shape, max_abs_error, tolerance, equivalent, speedup
// (a non-finite error or speedup is written as null); "error" only when there is one.
nlohmann::json toJson(const Validation& validation);

// The verdict in a few words, for an LSP code action title or a CLI note:
// "validated on cpu float32: equivalent (max error 2.4e-07, 1.9x faster)".
std::string summarize(const Validation& validation);

}  // namespace ptlint::gpu_check
