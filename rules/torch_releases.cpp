#include "rules/torch_releases.h"

#include <algorithm>
#include <array>

namespace ptlint::rules::releases {
namespace {

// One row per fact, sorted by key (fact() searches it). `source` names the release files read:
// 1.13 (Debian bookworm), 2.6 (trixie) and 2.14.1 (sid) were read in full; a date between them
// is the release that PyTorch's own notes and tagged sources give, and the row says which.
constexpr std::array kFacts{
    ReleaseFact{"PYTORCH_ALLOC_CONF", {2, 14}, {}, {},
                "c10/cuda/CUDAAllocatorConfig.h: 2.14's CUDAAllocatorConfig::instance() reads "
                "PYTORCH_CUDA_ALLOC_CONF, then PYTORCH_ALLOC_CONF when the first is unset (no deprecation "
                "warning; the first wins when both are set); 2.6 and 1.13 read PYTORCH_CUDA_ALLOC_CONF only; "
                "the releases between were not read, so 2.14 is the date"},
    ReleaseFact{"torch.GradScaler", {2, 3}, {}, {},
                "torch/__init__.py re-exports `from torch.amp import autocast, GradScaler` in 2.6 and 2.14; "
                "absent from 1.13; added with torch.amp.GradScaler in v2.3.0"},
    ReleaseFact{"torch._dynamo.config.accumulated_recompile_limit", {2, 7}, {}, {},
                "torch/_dynamo/config.py: 2.14 defines it and keeps accumulated_cache_size_limit as an alias; "
                "2.6 has only accumulated_cache_size_limit; renamed in v2.7.0"},
    ReleaseFact{"torch._dynamo.config.recompile_limit", {2, 7}, {}, {},
                "torch/_dynamo/config.py: 2.14 defines it and keeps cache_size_limit as an alias; 2.6 has only "
                "cache_size_limit; renamed in v2.7.0"},
    ReleaseFact{"torch.amp.GradScaler", {2, 3}, {}, {},
                "torch/amp/grad_scaler.py: present in 2.6 and 2.14, absent from 1.13 (torch.cuda.amp.GradScaler "
                "only); added in v2.3.0"},
    ReleaseFact{"torch.amp.autocast", {1, 13}, {}, {},
                "torch/amp/autocast_mode.py: `class autocast` with `device_type` in 1.13, 2.6 and 2.14 "
                "(the oldest release read; torch.autocast itself is v1.10.0's)"},
    ReleaseFact{"torch.amp.custom_bwd", {2, 4}, {}, {},
                "torch/amp/autocast_mode.py: `def custom_bwd(bwd=None, *, device_type)` in 2.6 and 2.14; absent "
                "from 1.13 (v2.4.0)"},
    ReleaseFact{"torch.amp.custom_fwd", {2, 4}, {}, {},
                "torch/amp/autocast_mode.py: `def custom_fwd(fwd=None, *, device_type, cast_inputs=None)` in 2.6 "
                "and 2.14; absent from 1.13 (v2.4.0)"},
    ReleaseFact{"torch.autograd.profiler.profile(use_cuda=)", {0, 0}, TorchVersion{2, 6}, TorchVersion{2, 14},
                "torch/autograd/profiler.py: 1.13 takes `use_cuda=` without a warning; 2.6 warns \"The attribute "
                "`use_cuda` will be deprecated soon\" (FutureWarning); 2.14 has no such parameter (TypeError); "
                "the releases between were not read, so 2.6 and 2.14 are the dates"},
    ReleaseFact{"torch.autograd.profiler.profile(use_device=)", {2, 6}, {}, {},
                "torch/autograd/profiler.py: `use_device=None` in 2.6 and 2.14, absent from 1.13 (TypeError); "
                "2.6 is the oldest release read that has it"},
    ReleaseFact{"torch.backends.cuda.matmul.fp32_precision", {2, 9}, {}, {},
                "torch/backends/cuda/__init__.py and torch/backends/cudnn/__init__.py: `fp32_precision` in 2.14, "
                "absent from 2.6 (v2.9.0 introduced the settings, with cudnn.conv / cudnn.rnn)"},
    ReleaseFact{"torch.cuda.amp.GradScaler", {1, 6}, TorchVersion{2, 4}, {},
                "torch/cuda/amp/grad_scaler.py: 1.13 defines it; 2.6 and 2.14 warn "
                "\"torch.cuda.amp.GradScaler(args...) is deprecated\" (deprecated in v2.4.0)"},
    ReleaseFact{"torch.cuda.amp.autocast", {1, 6}, TorchVersion{2, 4}, {},
                "torch/cuda/amp/autocast_mode.py: 2.6 and 2.14 warn \"torch.cuda.amp.autocast(args...) is "
                "deprecated\"; 1.13 does not (deprecated in v2.4.0)"},
    ReleaseFact{"torch.distributed.launch:passes-dashed-local-rank", {2, 0}, {}, {},
                "torch/distributed/run.py: 2.6 and 2.14 append `--local-rank={local_rank}` when use_env is off "
                "(torch.distributed.launch); 1.13's launcher passes `--local_rank`; the docs of both say \"From "
                "PyTorch 2.0.0 onwards, the dashed --local-rank\""},
    ReleaseFact{"torch.jit.script", {0, 0}, TorchVersion{2, 14}, {},
                "torch/jit/_script.py, _trace.py, _serialization.py, _freeze.py, _fuser.py, _async.py: 2.14 warns "
                "\"`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`\" "
                "(FutureWarning), as for trace, trace_module, script_method, interface, freeze, fork, wait, "
                "set_fusion_strategy, save, load; 2.6 does not; the releases between were not read"},
    ReleaseFact{"torch.load(weights_only=)", {1, 13}, {}, {},
                "torch/serialization.py: `load(..., weights_only=False)` in 1.13; earlier releases take no "
                "such argument"},
    ReleaseFact{"torch.load:pickle_module-defaults-weights_only-false", {2, 6}, {}, {},
                "torch/serialization.py 2.6 and 2.14: `_default_to_weights_only(pickle_module)` is "
                "`pickle_module is None`, so passing pickle_module= leaves weights_only False"},
    ReleaseFact{"torch.load:weights_only-default-true", {2, 6}, {}, {},
                "torch/serialization.py: the default is False in 1.13 and `None` (meaning True) in 2.6 and "
                "2.14 (v2.6.0)"},
    ReleaseFact{"torch.load:weights_only-with-pickle_module-raises", {1, 13}, {}, {},
                "torch/serialization.py 1.13, 2.6, 2.14: weights_only=True with a pickle_module raises "
                "RuntimeError(\"Can not safely load weights when explicit pickle_module is specified\")"},
    ReleaseFact{"torch.nn.attention.flex_attention", {2, 5}, {}, {},
                "torch/nn/attention/flex_attention.py: present in 2.6 and 2.14, absent from 1.13 "
                "(public from v2.5.0)"},
    ReleaseFact{"torch.nn.attention.sdpa_kernel", {2, 3}, {}, {},
                "torch/nn/attention/__init__.py: `sdpa_kernel(backends: list[SDPBackend] | SDPBackend)` in 2.6 "
                "and 2.14; absent from 1.13; the module is v2.2.0's, a list of backends from v2.3.0 (taken as "
                "the first release for every form)"},
    ReleaseFact{"torch.nn.functional.scaled_dot_product_attention", {2, 0}, {}, {},
                "torch/nn/functional.py: present in 2.6 and 2.14, absent from 1.13 (v2.0.0)"},
    ReleaseFact{"torch.nn.functional.scaled_dot_product_attention(enable_gqa=)", {2, 5}, {}, {},
                "torch/nn/functional.py: `enable_gqa=False` in 2.6 and 2.14 (v2.5.0)"},
    ReleaseFact{"torch.nn.functional.scaled_dot_product_attention(scale=)", {2, 1}, {}, {},
                "torch/nn/functional.py: `scale=None` in 2.6 and 2.14; v2.0.0's signature ends at "
                "`is_causal` (v2.1.0)"},
    ReleaseFact{"torch.profiler.profile(use_cuda=)", {0, 0}, TorchVersion{1, 13}, TorchVersion{2, 14},
                "torch/profiler/profiler.py: 1.13 and 2.6 warn \"use_cuda is deprecated, use activities argument "
                "instead\"; 2.14 has no such parameter (TypeError); the releases between 2.6 and 2.14 were not "
                "read, so 2.14 is the removal's date"},
    ReleaseFact{"torch.utils.checkpoint.checkpoint(use_reentrant=)", {1, 13}, {}, {},
                "torch/utils/checkpoint.py: `checkpoint(function, *args, use_reentrant: bool = True, ...)` "
                "in 1.13, the oldest release read (the argument is v1.11.0's)"},
    ReleaseFact{"torch.utils.checkpoint.checkpoint_sequential(use_reentrant=)", {2, 1}, {}, {},
                "torch/utils/checkpoint.py: 1.13's `checkpoint_sequential(functions, segments, input, "
                "**kwargs)` raises ValueError(\"Unexpected keyword arguments: use_reentrant\"); 2.6 and 2.14 "
                "take `use_reentrant=None`; 2.1 is the first release taken to have it (2.0 not read: silent there)"},
};

constexpr bool sortedByKey() {
  for (size_t i = 1; i < kFacts.size(); ++i)
    if (!(kFacts[i - 1].key < kFacts[i].key)) return false;
  return true;
}
static_assert(sortedByKey(), "keep kFacts sorted by key");

}  // namespace

const ReleaseFact* fact(std::string_view key) {
  auto it = std::lower_bound(kFacts.begin(), kFacts.end(), key,
                             [](const ReleaseFact& f, std::string_view k) { return f.key < k; });
  return it != kFacts.end() && it->key == key ? &*it : nullptr;
}

std::span<const ReleaseFact> allFacts() { return kFacts; }

bool existsAt(std::string_view key, TorchVersion v) {
  const ReleaseFact* f = fact(key);
  return f != nullptr && v.atLeast(f->added) && !(f->removed && v.atLeast(*f->removed));
}

bool existsThroughout(std::string_view key, const TorchRange& range) {
  const ReleaseFact* f = fact(key);
  if (f == nullptr || !range.floor().atLeast(f->added)) return false;
  return !f->removed || !range.includesAny(*f->removed);
}

bool deprecatedWithin(std::string_view key, const TorchRange& range) {
  const ReleaseFact* f = fact(key);
  if (f == nullptr) return false;
  if (f->deprecated && range.includesAny(*f->deprecated)) return true;
  return f->removed && range.includesAny(*f->removed);
}

bool removedWithin(std::string_view key, const TorchRange& range) {
  const ReleaseFact* f = fact(key);
  return f != nullptr && f->removed && range.includesAny(*f->removed);
}

std::string addedIn(std::string_view key) {
  const ReleaseFact* f = fact(key);
  return f ? f->added.str() : "?";
}

}  // namespace ptlint::rules::releases
