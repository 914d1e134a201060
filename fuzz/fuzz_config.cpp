// Target: the config loader. Arbitrary bytes as `ptlint.toml`, `.ptlint.toml` or
// `pyproject.toml` yield a FileConfig or a ConfigError naming the file, never another exception
// or a crash; a loaded config resolves to settings for a file.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/fuzz_check.h"
#include "workspace/config.h"

using namespace ptlint;
namespace fs = std::filesystem;

namespace {

const fs::path& scratchDir() {
  static const fs::path dir = fuzz::makeScratchDir("ptlint-fuzz-config");
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const kNames[] = {"ptlint.toml", ".ptlint.toml", "pyproject.toml"};
  const char* name = kNames[size > 0 ? data[0] % 3 : 0];
  std::string body(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0), size > 0 ? size - 1 : 0);
  for (const char* n : kNames) fs::remove(scratchDir() / n);
  fs::path path = scratchDir() / name;
  {
    std::ofstream out(path, std::ios::binary);
    out << body;
  }
  try {
    auto config = workspace::loadConfigFile(path);
    if (config) {
      workspace::ConfigResolver resolver({}, path);
      auto resolved = resolver.forPath(scratchDir() / "pkg" / "train.py");
      (void)workspace::settingsForFile(resolved, scratchDir() / "pkg" / "train.py");
      for (const auto& pfi : config->per_file_ignores) (void)workspace::globMatches(pfi.glob, "pkg/train.py");
      for (const auto& glob : resolved.exclude) (void)workspace::globMatches(glob, "pkg/sub/train.py");
    }
  } catch (const workspace::ConfigError& e) {
    fuzz::require(e.file() == path.string() || e.file().find(name) != std::string::npos, "ConfigError names the file");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    fuzz::fail("the config loader threw something other than ConfigError");
  }
  return 0;
}
