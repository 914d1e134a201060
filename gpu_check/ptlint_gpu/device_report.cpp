// libtorch and device facts for `ptlint doctor`. ATen headers only (see worker.h).
#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpu_check/ptlint_gpu/cuda_driver.h"
#include "gpu_check/ptlint_gpu/worker.h"

using nlohmann::json;

namespace ptlint::gpu_check::worker {
namespace {

constexpr bool torchAtLeast(int major, int minor) {
  return TORCH_VERSION_MAJOR > major || (TORCH_VERSION_MAJOR == major && TORCH_VERSION_MINOR >= minor);
}

std::string cudaVersionText(long version) {  // 12040 -> "12.4"
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// "model name" and whether the flags carry native bf16 arithmetic (AVX512-BF16 or AMX-BF16).
json cpuDevice() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, name = "unknown", flags;
  while (std::getline(cpuinfo, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && name == "unknown") name = value;
    if (key == "flags" && flags.empty()) flags = " " + value + " ";
  }
  bool native_bf16 = flags.find(" avx512_bf16 ") != std::string::npos || flags.find(" amx_bf16 ") != std::string::npos;
  json backends = json::array();
  // The CPU flash-attention kernel arrived in PyTorch 2.2; before, SDPA on CPU is the math path.
  if (torchAtLeast(2, 2)) backends.push_back("flash");
  backends.push_back("math");
  return {{"type", "cpu"},
          {"index", nullptr},
          {"name", name},
          {"bf16", true},  // ATen implements bf16 on every CPU; fast only with native instructions
          {"bf16_native", native_bf16},
          {"sdpa_backends", backends}};
}

json cudaDevice(int index, const CudaDriver& driver, bool cuda_build) {
  const CudaDevice* facts = nullptr;
  for (const auto& d : driver.devices) {
    if (d.index == index) facts = &d;
  }
  const int sm = facts ? facts->cc_major * 10 + facts->cc_minor : 0;
  json device{{"type", "cuda"}, {"index", index}};
  device["name"] = facts ? json(facts->name) : json(nullptr);
  device["compute_capability"] = facts ? json(std::to_string(facts->cc_major) + "." + std::to_string(facts->cc_minor))
                                       : json(nullptr);
  device["memory_bytes"] = facts ? json(facts->memory_bytes) : json(nullptr);
  // torch.cuda.is_bf16_supported(): CUDA >= 11 and compute capability >= 8.0 (Ampere).
  device["bf16"] = facts ? json(sm >= 80) : json(nullptr);
  // Process defaults (the TORCH_ALLOW_TF32_CUBLAS_OVERRIDE environment variable included); the
  // code under check can change them.
  device["tf32_matmul"] = at::globalContext().allowTF32CuBLAS();
  device["tf32_cudnn"] = at::globalContext().allowTF32CuDNN();
  json backends = json::array();
  if (cuda_build && facts) {
    auto& ctx = at::globalContext();
    // Flash attention: sm80+ and fp16/bf16 inputs. In 1.13 it sits behind the private
    // _scaled_dot_product_attention, without masks.
    if (sm >= 80 && ctx.userEnabledFlashSDP()) backends.push_back("flash");
#if TORCH_VERSION_MAJOR >= 2
    // Memory-efficient attention (xFormers kernels): sm50+, any float dtype, masks from 2.1.
    if (sm >= 50 && ctx.userEnabledMemEfficientSDP()) backends.push_back("efficient");
#endif
    if (ctx.userEnabledMathSDP()) backends.push_back("math");
  }
  device["sdpa_backends"] = backends;
  return device;
}

}  // namespace

json deviceReport() {
  auto& hooks = at::detail::getCUDAHooks();
  const bool cuda_build = hooks.hasCUDART();  // the stub hooks of a CPU-only build say false
  json torch{{"version", TORCH_VERSION},
             {"cuda_build", cuda_build},
             {"cuda_runtime", cuda_build ? json(cudaVersionText(hooks.versionCUDART())) : json(nullptr)},
             {"cudnn", cuda_build && hooks.compiledWithCuDNN() ? json(hooks.versionCuDNN()) : json(nullptr)},
             {"sdpa_api", torchAtLeast(2, 1)   ? "at::scaled_dot_product_attention (scale=)"
                          : torchAtLeast(2, 0) ? "at::scaled_dot_product_attention (no scale=: q is pre-scaled)"
                                               : "at::_scaled_dot_product_attention (private; no scale=: q is "
                                                 "pre-scaled)"}};
  json notes = json::array();
  json devices = json::array();
  devices.push_back(cpuDevice());

  CudaDriver driver = queryCudaDriver();
  const int torch_gpus = cuda_build ? hooks.getNumGPUs() : 0;
  const int n = std::max<int>(torch_gpus, static_cast<int>(driver.devices.size()));
  for (int i = 0; i < n; ++i) devices.push_back(cudaDevice(i, driver, cuda_build));
  if (!driver.devices.empty() && !cuda_build) {
    notes.push_back("this libtorch is a CPU-only build: it cannot use the CUDA devices listed; build ptlint-gpu "
                    "against a CUDA libtorch (Torch_DIR, or a PyTorch install's torch.utils.cmake_prefix_path)");
  }
  if (cuda_build && driver.devices.empty()) notes.push_back("CUDA build, but " + driver.error);
  if (!torchAtLeast(2, 0)) {
    notes.push_back("libtorch " TORCH_VERSION " predates torch.nn.functional.scaled_dot_product_attention "
                    "(2.0); validation uses the private 1.13 kernel");
  }
  notes.push_back("TF32 flags are a fresh process's defaults; code can change them "
                  "(torch.backends.cuda.matmul.allow_tf32, torch.set_float32_matmul_precision)");
  return {{"torch", torch}, {"devices", devices}, {"notes", notes}};
}

}  // namespace ptlint::gpu_check::worker
