// The torch of the user's Python environment, for `ptlint doctor`: found and described from its
// files alone — no Python is run and nothing is imported. The environments, in order: the
// project's `.venv`/`venv` (the nearest above the working folder), $VIRTUAL_ENV, $CONDA_PREFIX,
// then the `python3` on PATH (its prefix's site-packages / Debian dist-packages, and the user's
// site-packages). The first one holding a `torch` package is the torch the user's code imports.
// What a torch build targets comes from `torch/version.py` (`__version__`, `cuda`, `hip`), the
// cuDNN it was built with from the `nvidia-cudnn-*` wheel beside it or conda's `cudnn` record.
// Device facts (bf16, TF32) need a device and stay with `ptlint-gpu`.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ptlint::gpu_check {

struct PythonTorch {
  std::string version;             // `__version__`, else the dist-info's version
  std::optional<std::string> cuda; // CUDA toolkit of the build; nullopt: not a CUDA build
  std::optional<std::string> hip;  // ROCm/HIP build
  std::optional<std::string> cudnn;
  std::string location;            // the torch package folder
  std::string environment;         // the environment's prefix
  std::string found_by;            // "project .venv", "VIRTUAL_ENV", "CONDA_PREFIX", "python3 on PATH"
};

struct PythonEnvironmentSearch {
  std::optional<PythonTorch> torch;
  std::vector<std::string> searched;  // "<how>: <folder>", in order
};

// Injected for tests; fromProcess() reads the working folder, VIRTUAL_ENV, CONDA_PREFIX, PATH, HOME.
struct PythonSearchInputs {
  std::filesystem::path cwd;
  std::optional<std::filesystem::path> virtual_env, conda_prefix;
  std::string path;  // $PATH
  std::optional<std::filesystem::path> home;
  static PythonSearchInputs fromProcess();
};

PythonEnvironmentSearch findPythonTorch(const PythonSearchInputs& inputs);

// The values `torch/version.py` assigns (`name = 'text'` or `name: Optional[str] = None`): text
// for strings, nullopt for None; names assigned anything else are left out.
std::vector<std::pair<std::string, std::optional<std::string>>> readVersionPy(const std::string& text);

nlohmann::json toJson(const PythonEnvironmentSearch& search);

}  // namespace ptlint::gpu_check
