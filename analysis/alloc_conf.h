// The CUDA caching allocator's configuration string (`PYTORCH_CUDA_ALLOC_CONF`, and from 2.14
// also `PYTORCH_ALLOC_CONF`) as the parser of each PyTorch release read handles it. The three
// parsers differ in syntax (1.13 splits on whitespace and commas; 2.6 and 2.14 tokenise), in the
// keys they know and in their value checks, so a string is judged release by release.
//
// Sources, one per release (the rule's docs cite the same):
// - 1.13: `c10/cuda/CUDACachingAllocator.cpp`, `CachingAllocatorConfig::parseArgs` (v1.13.0).
// - 2.6: `c10/cuda/CUDAAllocatorConfig.cpp` (v2.6.0); the keys as Debian's 2.6 headers declare
//   them (`c10/cuda/CUDAAllocatorConfig.h`: one `parse...` member per key).
// - 2.14: `c10/core/AllocatorConfig.{h,cpp}` (`ConfigTokenizer`, `AcceleratorAllocatorConfig`)
//   then `c10/cuda/CUDAAllocatorConfig.{h,cpp}` (`getKeys()`, the CUDA keys) — the device-neutral
//   pass agrees with Debian's 2.14.1 (`torch._C._accelerator_setAllocatorSettings`) on 1,500
//   random strings (tests/unit/data/alloc_conf_2_14_cpu.tsv).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptlint::alloc_conf {

enum class Parser { Torch1_13, Torch2_6, Torch2_14 };

// "1.13", "2.6", "2.14".
std::string_view releaseOf(Parser parser);

struct Rejection {
  std::string key;      // the option concerned ("" when the string as a whole is malformed)
  std::string message;  // one clause: "unknown option `foo`"
};

// nullopt when that release's parser accepts `value`; else the first error it raises on (PyTorch
// stops there). Values whose check could not be read at a release are accepted.
std::optional<Rejection> check(std::string_view value, Parser parser);

// 2.14's device-neutral pass alone (c10/core/AllocatorConfig.cpp), which a CPU-only build runs
// (`torch._C._accelerator_setAllocatorSettings`): what the tests compare with the real 2.14.
std::optional<Rejection> checkDeviceNeutral2_14(std::string_view value);

}  // namespace ptlint::alloc_conf
