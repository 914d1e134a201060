// Device facts straight from the CUDA driver (libcuda.so.1, loaded at run time with dlopen), so
// that `ptlint-gpu` needs no CUDA headers to build and still names the device, its compute
// capability and memory under any libtorch, CPU-only builds included.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptlint::gpu_check::worker {

struct CudaDevice {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  uint64_t memory_bytes = 0;
};

struct CudaDriver {
  bool loaded = false;     // libcuda.so.1 found and initialised
  int driver_version = 0;  // e.g. 12040
  std::vector<CudaDevice> devices;
  std::string error;       // why not loaded
};

CudaDriver queryCudaDriver();

}  // namespace ptlint::gpu_check::worker
