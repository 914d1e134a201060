// The torch side of gpu_check: what `ptlint-gpu` answers. The only headers in the project whose
// implementations include torch (ATen headers only, to keep compile cost low); the interface
// itself is plain JSON so that main.cpp stays torch-free.
#pragma once

#include <nlohmann/json.hpp>

namespace ptlint::gpu_check::worker {

// {"torch": {...}, "devices": [...], "notes": [...]}: libtorch version and build, each device's
// facts (name, compute capability, memory, bf16, TF32 flags, SDPA backends). device_report.cpp.
nlohmann::json deviceReport();

// {"results": [...]}: for each pattern of a "validate" request, the hand-rolled formula and its
// scaled_dot_product_attention rewrite run on the same random inputs, compared and timed.
// attention_check.cpp. Throws std::exception on a malformed request.
nlohmann::json validatePatterns(const nlohmann::json& request);

}  // namespace ptlint::gpu_check::worker
