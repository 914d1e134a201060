#include "gpu_check/ptlint_gpu/cuda_driver.h"

#include <dlfcn.h>

#include <string>

namespace ptlint::gpu_check::worker {
namespace {

// The few driver API entry points used, with their C signatures (CUresult is an int, CUdevice
// an int). Attribute numbers from cuda.h's CUdevice_attribute.
using CuInit = int (*)(unsigned);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceTotalMem = int (*)(size_t*, int);
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

template <typename F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

CudaDriver queryCudaDriver() {
  CudaDriver driver;
  // Kept loaded: libtorch's CUDA runtime, if any, shares it.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    driver.error = "no CUDA driver (libcuda.so.1 not found)";
    return driver;
  }
  auto init = symbol<CuInit>(lib, "cuInit");
  auto version = symbol<CuDriverGetVersion>(lib, "cuDriverGetVersion");
  auto count = symbol<CuDeviceGetCount>(lib, "cuDeviceGetCount");
  auto get = symbol<CuDeviceGet>(lib, "cuDeviceGet");
  auto name = symbol<CuDeviceGetName>(lib, "cuDeviceGetName");
  auto attribute = symbol<CuDeviceGetAttribute>(lib, "cuDeviceGetAttribute");
  auto memory = symbol<CuDeviceTotalMem>(lib, "cuDeviceTotalMem_v2");
  if (!init || !version || !count || !get || !name || !attribute || !memory) {
    driver.error = "libcuda.so.1 lacks the driver API entry points used";
    return driver;
  }
  if (int rc = init(0); rc != 0) {
    driver.error = "cuInit failed with CUresult " + std::to_string(rc);
    return driver;
  }
  driver.loaded = true;
  version(&driver.driver_version);
  int n = 0;
  if (count(&n) != 0) n = 0;
  for (int i = 0; i < n; ++i) {
    int handle = 0;
    if (get(&handle, i) != 0) continue;
    CudaDevice device;
    device.index = i;
    char buffer[256] = {};
    if (name(buffer, sizeof buffer - 1, handle) == 0) device.name = buffer;
    attribute(&device.cc_major, kComputeCapabilityMajor, handle);
    attribute(&device.cc_minor, kComputeCapabilityMinor, handle);
    size_t bytes = 0;
    if (memory(&bytes, handle) == 0) device.memory_bytes = bytes;
    driver.devices.push_back(device);
  }
  return driver;
}

}  // namespace ptlint::gpu_check::worker
