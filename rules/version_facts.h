// The release facts the version-driven rules (PTL111-PTL113, PTL303) gate on, read from the
// table of PyTorch release facts (rules/torch_releases.cpp, where each row cites its sources),
// and the range tests they use.
#pragma once

#include <string>
#include <string_view>

#include "rules/settings.h"
#include "rules/torch_releases.h"

namespace ptlint::rules::versions {

// Keys of rules/torch_releases.cpp.
inline constexpr std::string_view kTorchscript = "torch.jit.script";
inline constexpr std::string_view kFp32Precision = "torch.backends.cuda.matmul.fp32_precision";
inline constexpr std::string_view kProfilerUseCuda = "torch.profiler.profile(use_cuda=)";
inline constexpr std::string_view kAutogradProfilerUseCuda = "torch.autograd.profiler.profile(use_cuda=)";
inline constexpr std::string_view kAutogradProfilerUseDevice = "torch.autograd.profiler.profile(use_device=)";
inline constexpr std::string_view kLaunchDashedLocalRank = "torch.distributed.launch:passes-dashed-local-rank";

// The release each fact names (the table holds every key above, with the dates asked for).
inline TorchVersion addedIn(std::string_view key) { return releases::fact(key)->added; }
inline TorchVersion deprecatedIn(std::string_view key) { return *releases::fact(key)->deprecated; }
inline TorchVersion removedIn(std::string_view key) { return *releases::fact(key)->removed; }

// Does the configured range hold a release at `v` or later?
inline bool rangeIncludesFrom(const Settings& settings, TorchVersion v) { return settings.torchRange().includesAny(v); }
// Does every release of the range have what `v` introduced (the floor does)?
inline bool floorAtLeast(const Settings& settings, TorchVersion v) { return settings.torchRange().allAtLeast(v); }
// The range as the messages name it (">=2.6").
inline std::string rangeText(const Settings& settings) { return settings.torchRange().str(); }
// " (judged for torch >=2.6)": what a version-gated message ends with, the one form all use.
inline std::string judgedFor(const Settings& settings) { return " (judged for torch " + rangeText(settings) + ")"; }

}  // namespace ptlint::rules::versions
