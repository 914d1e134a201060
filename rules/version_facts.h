// The PyTorch release facts of the version-driven rules (PTL111-PTL114, PTL303), one entry each,
// each read in the sources of the release named (Debian's python3-torch 1.13, 2.6, 2.14), and
// the range tests the rules gate on.
#pragma once

#include <string>

#include "rules/settings.h"

namespace ptlint::rules::versions {

// torch/jit/_script.py, _trace.py, _serialization.py: `FutureWarning` "... is deprecated" in
// 2.14, absent in 2.6 (the releases between were not read).
inline constexpr TorchVersion kTorchscriptDeprecated{2, 14};
// torch/backends/cuda/__init__.py, torch/backends/cudnn/__init__.py: `fp32_precision` (2.9
// release notes; present in 2.14, absent in 2.6).
inline constexpr TorchVersion kFp32PrecisionApi{2, 9};
// torch/profiler/profiler.py and torch/autograd/profiler.py: `use_cuda=` is a deprecated
// keyword in 2.6 (FutureWarning) and gone in 2.14 (TypeError).
inline constexpr TorchVersion kProfilerUseCudaRemoved{2, 14};
// torch/autograd/profiler.py `profile(use_device=)`: present in 2.6, absent in 1.13.
inline constexpr TorchVersion kProfilerUseDevice{2, 6};
// torch/profiler/profiler.py `profile(use_cuda=)` deprecated ("use activities argument"): 1.13.
inline constexpr TorchVersion kProfilerUseCudaDeprecated{1, 13};
// torch/distributed/launch.py, run.py: the launcher passes `--local-rank=<rank>` from 2.0
// (1.13's passes `--local_rank`).
inline constexpr TorchVersion kLocalRankDashed{2, 0};
// The newest release ptlint knows: an open range reaches it.
inline constexpr TorchVersion kNewestRelease{2, 14};

// Does the configured range hold a release at `v` or later?
inline bool rangeIncludesFrom(const Settings& settings, TorchVersion v) {
  (void)settings;  // an open range from the floor: every release up to the newest known
  return kNewestRelease.atLeast(v.major, v.minor);
}
// Does every release of the range have what `v` introduced (the floor does)?
inline bool floorAtLeast(const Settings& settings, TorchVersion v) {
  return settings.torch_version.atLeast(v.major, v.minor);
}
// The range as the messages name it.
inline std::string rangeText(const Settings& settings) { return ">=" + settings.torch_version.str(); }

}  // namespace ptlint::rules::versions
