// Checks of the environment variables that change how PyTorch uses the device, without libtorch:
// `ptlint doctor` checks the process environment with them, and PTL705 the values set in code.
//
// PYTORCH_CUDA_ALLOC_CONF is read by the CUDA caching allocator at its first allocation; an
// unknown key or a bad value there is a hard error ("Unrecognized CachingAllocator option")
// in the middle of a training run, so it is worth catching before.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptlint::env_check {

enum class Level { Info, Warning, Error };
std::string_view levelName(Level level);

struct EnvFinding {
  Level level = Level::Error;
  std::string key;  // the option concerned, or empty for the variable as a whole
  std::string message;
};

struct AllocConfEntry {
  std::string key;
  std::string value;  // as written, e.g. "True", "128", "[256:1,>:4]"
};

struct EnvVarReport {
  std::string name;                  // PYTORCH_CUDA_ALLOC_CONF, CUBLAS_WORKSPACE_CONFIG
  std::optional<std::string> value;  // nullopt: not set
  std::vector<AllocConfEntry> entries;  // PYTORCH_CUDA_ALLOC_CONF only
  std::vector<EnvFinding> findings;
  // No Error finding (Info and Warning leave the value usable).
  bool valid() const;
};

// `expandable_segments:True,max_split_size_mb:128`. Known keys and their values:
// expandable_segments True|False; max_split_size_mb integer > 20; garbage_collection_threshold
// in (0, 1); roundup_power2_divisions a power of two or `[size:div,...,>:div]` with powers of two;
// backend native|cudaMallocAsync. Also recognised (newer PyTorch, checked the same way):
// pinned_use_cuda_host_register, release_lock_on_cudamalloc (True|False),
// pinned_num_register_threads (power of two <= 128). Anything else is an unknown key.
EnvVarReport checkAllocConf(std::optional<std::string_view> value);

// `:4096:8` or `:16:8` are what `torch.use_deterministic_algorithms(True)` accepts for cuBLAS
// on CUDA >= 10.2. Unset is Info; well-formed but other values a Warning; malformed an Error.
EnvVarReport checkCublasWorkspaceConfig(std::optional<std::string_view> value);

// Reads the variable from the process environment.
std::optional<std::string> readEnv(const char* name);

}  // namespace ptlint::env_check
