// Checks of the environment variables that change how PyTorch uses the device, without libtorch:
// `ptlint doctor` checks the process environment with them, and PTL705 the values set in code.
//
// PYTORCH_CUDA_ALLOC_CONF (and from 2.14 PYTORCH_ALLOC_CONF) is read by the caching allocator at
// its first allocation; an unknown key or a bad value there is a hard error in the middle of a
// training run, so it is worth catching before.
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
  std::string name;                  // PYTORCH_CUDA_ALLOC_CONF, PYTORCH_ALLOC_CONF, CUBLAS_WORKSPACE_CONFIG
  std::optional<std::string> value;  // nullopt: not set
  std::vector<AllocConfEntry> entries;  // the allocator variables only
  std::vector<EnvFinding> findings;
  // No Error finding (Info and Warning leave the value usable).
  bool valid() const;
};

// `expandable_segments:True,max_split_size_mb:128`, judged by the parser of each PyTorch release
// ptlint models (alloc_conf.h: 1.13, 2.6, 2.14). With `torch_version` one of those releases
// ("2.6.0+cpu"), only its parser judges and a rejection is an Error; otherwise every release
// judges, and a value some release accepts gets Warnings naming the ones that reject it.
// `variable` is PYTORCH_CUDA_ALLOC_CONF (every release) or PYTORCH_ALLOC_CONF (2.14's parser;
// 2.14 reads it only when PYTORCH_CUDA_ALLOC_CONF is unset). Also warns on a repeated option and
// on options `backend:cudaMallocAsync` ignores.
EnvVarReport checkAllocConf(std::optional<std::string_view> value, std::string_view torch_version = {},
                            std::string_view variable = "PYTORCH_CUDA_ALLOC_CONF");

// `:4096:8` or `:16:8` are what `torch.use_deterministic_algorithms(True)` accepts for cuBLAS
// on CUDA >= 10.2. Unset is Info; well-formed but other values a Warning; malformed an Error.
EnvVarReport checkCublasWorkspaceConfig(std::optional<std::string_view> value);

// Reads the variable from the process environment.
std::optional<std::string> readEnv(const char* name);

}  // namespace ptlint::env_check
