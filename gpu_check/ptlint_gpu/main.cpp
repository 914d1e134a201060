// `ptlint-gpu`: the device half of gpu_check, started by `ptlint` (gpu_check/client.cpp) for
// `ptlint doctor` and `ptlint check --gpu-check`. Reads one JSON request on stdin, writes one
// JSON answer on stdout, exits 0; on a bad request it answers {"error": ...} and exits 1.
//   {"protocol": 1, "command": "doctor"}
//   {"protocol": 1, "command": "validate", "shape": [B, H, T, D], "warmup": 3, "repeats": 10,
//    "device": "auto", "seed": 0, "patterns": [<AttentionPattern>, ...]}
// This file includes no torch; worker.h's functions do the device work.
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

#include "gpu_check/pattern.h"
#include "gpu_check/ptlint_gpu/worker.h"

using nlohmann::json;
namespace gc = ptlint::gpu_check;

namespace {

int answer(const json& body, int code) {
  json out = body;
  out["protocol"] = gc::kProtocolVersion;
  std::cout << out.dump() << "\n" << std::flush;
  return code;
}

int fail(const std::string& message) { return answer({{"error", message}}, 1); }

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
      std::cout << "ptlint-gpu: device checks for ptlint (started by `ptlint doctor` and `ptlint check "
                   "--gpu-check`).\nReads one JSON request on stdin and answers on stdout; see "
                   "docs/gpu_check.md.\n";
      return 0;
    }
    std::cerr << "ptlint-gpu takes no arguments (it reads a JSON request on stdin); try --help\n";
    return 2;
  }
  std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  json request = json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded() || !request.is_object()) return fail("the request is not a JSON object");
  try {
    if (request.value("protocol", 0) != gc::kProtocolVersion) {
      return fail("unsupported protocol version (this ptlint-gpu speaks " + std::to_string(gc::kProtocolVersion) +
                  ")");
    }
    const std::string command = request.value("command", "");
    if (command == "doctor") return answer(gc::worker::deviceReport(), 0);
    if (command == "validate") return answer(gc::worker::validatePatterns(request), 0);
    return fail("unknown command `" + command + "` (doctor, validate)");
  } catch (const std::exception& e) {
    std::string message = e.what();
    return fail(message.substr(0, message.find('\n')));
  }
}
