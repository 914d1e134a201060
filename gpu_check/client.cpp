#include "gpu_check/client.h"

#include "gpu_check/python_torch.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "gpu_check/subprocess.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ptlint::gpu_check {
namespace {

constexpr const char* kWorkerName = "ptlint-gpu";

bool isExecutable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// Is this ptlint the one in a CMake build folder (a source build), rather than an installed one?
bool runsFromBuildTree() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return !ec && fs::is_regular_file(self.parent_path() / "CMakeCache.txt", ec);
}

struct WorkerAnswer {
  std::optional<json> body;  // the parsed answer when the exchange went through
  std::string error;         // why not
};

// One request/answer exchange with `ptlint-gpu`.
WorkerAnswer askWorker(const json& request, std::chrono::milliseconds timeout) {
  WorkerAnswer answer;
  auto worker = findWorker();
  if (!worker) {
    if (auto configured = readEnv("PTLINT_GPU")) {
      answer.error = configured->empty() || *configured == "none"
                         ? std::string("turned off (PTLINT_GPU=none)")
                         : fmt::format("PTLINT_GPU={} is not an executable file", *configured);
      return answer;
    }
    answer.error = runsFromBuildTree()
                       ? fmt::format("`{}` was not found beside ptlint or on PATH (it is built only when libtorch "
                                     "is found: configure with -DPTLINT_WITH_TORCH=ON, or set PTLINT_GPU to its path)",
                                     kWorkerName)
                       : fmt::format("`{0}` was not found beside ptlint or on PATH: install the `{0}` package of "
                                     "the same ptlint release (it needs libtorch), or set PTLINT_GPU to its path",
                                     kWorkerName);
    return answer;
  }
  ChildResult child = runChild({*worker}, request.dump() + "\n", timeout);
  if (!child.started) {
    answer.error = child.error;
    return answer;
  }
  auto stderrTail = [&] {
    std::string tail = child.err.size() > 2000 ? child.err.substr(child.err.size() - 2000) : child.err;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    return tail.empty() ? std::string() : ": " + tail;
  };
  if (child.timed_out) {
    answer.error = fmt::format("`{}` did not answer within {} s and was stopped", *worker, timeout.count() / 1000.0);
    return answer;
  }
  if (child.term_signal != 0) {
    answer.error = fmt::format("`{}` was killed by signal {}{}", *worker, child.term_signal, stderrTail());
    return answer;
  }
  json body = json::parse(child.out, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    answer.error = fmt::format("`{}` exited with code {} without a JSON answer{}", *worker, child.exit_code,
                               stderrTail());
    return answer;
  }
  if (body.contains("error") && body["error"].is_string()) {
    answer.error = fmt::format("`{}`: {}", *worker, body["error"].get<std::string>());
    return answer;
  }
  const json& protocol = body["protocol"];
  if (!protocol.is_number_integer() || protocol.get<int64_t>() != kProtocolVersion) {
    answer.error = fmt::format("`{}` speaks protocol {}, this ptlint speaks {}: rebuild them together", *worker,
                               protocol.dump(), kProtocolVersion);
    return answer;
  }
  answer.body = std::move(body);
  return answer;
}

json findingsJson(const EnvVarReport& report) {
  json findings = json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"level", levelName(f.level)}, {"key", f.key}, {"message", f.message}});
  }
  return findings;
}

json envJson(const EnvVarReport& report) {
  json j{{"set", report.value.has_value()},
         {"value", report.value ? json(*report.value) : json(nullptr)},
         {"valid", report.valid()},
         {"findings", findingsJson(report)}};
  if (report.name != "CUBLAS_WORKSPACE_CONFIG") {
    json entries = json::object();
    for (const auto& e : report.entries) entries[e.key] = e.value;
    j["options"] = entries;
  }
  return j;
}

json numberOrNull(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

std::string yesNo(const json& value) {
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  return "unknown";
}

std::string text(const json& value, std::string_view fallback = "unknown") {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_number()) return fmt::format("{}", value.get<double>());
  return std::string(fallback);
}

void printEnv(const json& var, std::string_view name, std::ostream& out) {
  if (!var.value("set", false)) {
    out << "  " << name << ": not set\n";
  } else {
    out << "  " << name << "=" << var["value"].get<std::string>() << (var.value("valid", false) ? "  (ok)" : "  (invalid)")
        << "\n";
  }
  for (const auto& f : var["findings"]) {
    out << "    " << f["level"].get<std::string>() << ": " << f["message"].get<std::string>() << "\n";
  }
}

// The torch of the user's Python environment (what their code imports).
void printPythonTorch(const json& python, std::ostream& out) {
  const json& t = python["torch"];
  if (t.is_object()) {
    std::string build = !t["cuda"].is_null() ? "CUDA " + text(t["cuda"]) + " build"
                        : !t["hip"].is_null() ? "ROCm/HIP " + text(t["hip"]) + " build"
                                              : "CPU-only build";
    if (!t["cudnn"].is_null()) build += ", cuDNN " + text(t["cudnn"]);
    out << "Python environment: torch " << text(t["version"]) << " (" << build << ")\n"
        << "  " << text(t["location"]) << "  (" << text(t["found_by"]) << ")\n\n";
  } else {
    out << "Python environment: no torch found\n";
    for (const auto& s : python["searched"]) out << "  searched " << text(s) << "\n";
    out << "\n";
  }
}

void printHuman(const json& report, std::ostream& out) {
  out << "ptlint doctor\n\n";
  printPythonTorch(report["python"], out);
  const json& gpu = report["gpu_check"];
  if (!gpu.value("available", false)) {
    out << "Device checks: unavailable. " << gpu.value("error", std::string()) << "\n"
        << "  (`ptlint check --gpu-check` cannot validate fixes on this machine; the environment checks below "
           "need no libtorch.)\n";
  } else {
    const json& torch = report["torch"];
    out << "libtorch " << text(torch["version"]) << " ("
        << (torch.value("cuda_build", false) ? "CUDA " + text(torch["cuda_runtime"]) + " build" : "CPU-only build")
        << (torch["cudnn"].is_null() ? "" : ", cuDNN " + text(torch["cudnn"])) << ")  via " << text(gpu["path"])
        << "\n";
    out << "  SDPA entry point: " << text(torch["sdpa_api"]) << "\n";
    out << "\nDevices:\n";
    for (const auto& d : report["devices"]) {
      std::string backends;
      for (const auto& b : d["sdpa_backends"]) backends += (backends.empty() ? "" : ", ") + b.get<std::string>();
      if (d["type"] == "cpu") {
        out << "  cpu: " << text(d["name"]) << "\n"
            << "    bf16: " << yesNo(d["bf16"]) << " (native instructions: " << yesNo(d["bf16_native"]) << ")"
            << "  SDPA backends: " << (backends.empty() ? "none" : backends) << "\n";
      } else {
        out << "  cuda:" << text(d["index"]) << ": " << text(d["name"]) << "  (sm_" << text(d["compute_capability"])
            << ", " << fmt::format("{:.1f}", d.value("memory_bytes", 0.0) / (1024.0 * 1024 * 1024)) << " GiB)\n"
            << "    bf16: " << yesNo(d["bf16"]) << "  TF32 matmul: " << yesNo(d["tf32_matmul"])
            << "  TF32 cuDNN: " << yesNo(d["tf32_cudnn"]) << "\n"
            << "    SDPA backends: " << (backends.empty() ? "none" : backends) << "\n";
      }
    }
    for (const auto& note : report.value("notes", json::array())) out << "  note: " << text(note) << "\n";
  }
  out << "\nEnvironment:\n";
  printEnv(report["env"]["PYTORCH_CUDA_ALLOC_CONF"], "PYTORCH_CUDA_ALLOC_CONF", out);
  if (report["env"]["PYTORCH_ALLOC_CONF"].value("set", false)) {
    printEnv(report["env"]["PYTORCH_ALLOC_CONF"], "PYTORCH_ALLOC_CONF", out);
  }
  printEnv(report["env"]["CUBLAS_WORKSPACE_CONFIG"], "CUBLAS_WORKSPACE_CONFIG", out);
}

std::optional<Validation> validationFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  Validation v;
  v.device = j.value("device", "");
  v.dtype = j.value("dtype", "");
  if (j.contains("shape") && j["shape"].is_array()) {
    for (const auto& n : j["shape"]) {
      if (n.is_number_integer()) v.shape.push_back(n.get<int64_t>());
    }
  }
  // null: the outputs differed in NaN/inf, or no measure.
  auto number = [&](const char* key, double if_null) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : if_null;
  };
  v.max_abs_error = number("max_abs_error", INFINITY);
  v.tolerance = number("tolerance", 0);
  v.equivalent = j.value("equivalent", false);
  v.speedup = number("speedup", NAN);
  v.error = j.value("error", "");
  return v;
}

}  // namespace

std::optional<std::string> findWorker() {
  if (auto configured = readEnv("PTLINT_GPU")) {
    if (configured->empty() || *configured == "none") return std::nullopt;
    if (isExecutable(*configured)) return fs::absolute(*configured).string();
    return std::nullopt;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = self.parent_path() / kWorkerName;
    if (isExecutable(beside)) return beside.string();
  }
  if (auto path = readEnv("PATH")) {
    std::string_view rest = *path;
    while (true) {
      auto colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) {
        fs::path candidate = fs::path(dir) / kWorkerName;
        if (isExecutable(candidate)) return candidate.string();
      }
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return std::nullopt;
}

json doctorReport(std::chrono::milliseconds timeout) {
  json report;
  WorkerAnswer answer = askWorker({{"protocol", kProtocolVersion}, {"command", "doctor"}}, timeout);
  if (answer.body && !((*answer.body)["torch"].is_object() && (*answer.body)["devices"].is_array())) {
    answer.error = "`ptlint-gpu` answered without the torch and device facts";
    answer.body.reset();
  }
  if (answer.body) {
    report["gpu_check"] = {{"available", true}, {"path", findWorker().value_or("")}, {"error", nullptr}};
    report["torch"] = answer.body->value("torch", json::object());
    report["devices"] = answer.body->value("devices", json::array());
    report["notes"] = answer.body->value("notes", json::array());
  } else {
    report["gpu_check"] = {{"available", false}, {"path", findWorker() ? json(*findWorker()) : json(nullptr)},
                           {"error", answer.error}};
    report["torch"] = nullptr;
    report["devices"] = json::array();
    report["notes"] = json::array();
  }
  // The torch the user's code imports, from its files (no Python run, nothing imported).
  auto python = findPythonTorch(PythonSearchInputs::fromProcess());
  report["python"] = toJson(python);
  // The allocator settings are judged by the parser of the torch that will read them: the user's
  // environment's, else the worker's libtorch, else every release ptlint models.
  std::string torch_version = python.torch ? python.torch->version : "";
  if (torch_version.empty() && report["torch"].is_object()) torch_version = report["torch"].value("version", "");
  auto cuda_conf = readEnv("PYTORCH_CUDA_ALLOC_CONF");
  auto alloc_conf = readEnv("PYTORCH_ALLOC_CONF");
  auto alloc_report = checkAllocConf(alloc_conf, torch_version, "PYTORCH_ALLOC_CONF");
  if (cuda_conf && alloc_conf) {
    alloc_report.findings.push_back({Level::Info, "",
                                     "ignored by the CUDA allocator: it reads PYTORCH_CUDA_ALLOC_CONF first"});
  }
  report["env"] = {
      {"PYTORCH_CUDA_ALLOC_CONF", envJson(checkAllocConf(cuda_conf, torch_version))},
      {"PYTORCH_ALLOC_CONF", envJson(alloc_report)},
      {"CUBLAS_WORKSPACE_CONFIG", envJson(checkCublasWorkspaceConfig(readEnv("CUBLAS_WORKSPACE_CONFIG")))},
  };
  return report;
}

int runDoctor(bool json_output, std::ostream& out, std::ostream& err) {
  try {
    json report = doctorReport();
    if (json_output) {
      out << report.dump(2) << "\n";
    } else {
      printHuman(report, out);
    }
  } catch (const std::exception& e) {
    err << "ptlint doctor: " << e.what() << "\n";
  }
  return 0;
}

std::vector<std::optional<Validation>> validateAttention(const std::vector<AttentionPattern>& patterns,
                                                          const ValidationOptions& options, std::string* why) {
  std::vector<std::optional<Validation>> results(patterns.size());
  if (patterns.empty()) return results;
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return results;
  };
  if (options.shape.size() != 4 ||
      std::any_of(options.shape.begin(), options.shape.end(), [](int64_t n) { return n <= 0 || n > (1 << 16); })) {
    return fail("the validation shape must be four positive sizes B, H, T, D");
  }
  json request{{"protocol", kProtocolVersion},
               {"command", "validate"},
               {"shape", options.shape},
               {"warmup", options.warmup},
               {"repeats", options.repeats},
               {"device", options.device},
               {"seed", options.seed},
               {"patterns", patterns}};
  WorkerAnswer answer = askWorker(request, options.timeout);
  if (!answer.body) return fail(answer.error);
  const json& list = (*answer.body)["results"];
  if (!list.is_array() || list.size() != patterns.size()) {
    return fail(fmt::format("`{}` answered {} results for {} patterns", kWorkerName,
                            list.is_array() ? list.size() : 0, patterns.size()));
  }
  try {
    for (size_t i = 0; i < patterns.size(); ++i) results[i] = validationFromJson(list[i]);
  } catch (const json::exception& e) {
    results.assign(patterns.size(), std::nullopt);
    return fail(fmt::format("`{}` answered a malformed result: {}", kWorkerName, e.what()));
  }
  return results;
}

json toJson(const Validation& v) {
  json j{{"device", v.device},
         {"dtype", v.dtype},
         {"shape", v.shape},
         {"max_abs_error", numberOrNull(v.max_abs_error)},
         {"tolerance", v.tolerance},
         {"equivalent", v.equivalent},
         {"speedup", numberOrNull(v.speedup)}};
  if (!v.error.empty()) j["error"] = v.error;
  return j;
}

std::string summarize(const Validation& v) {
  if (!v.error.empty()) return "not validated: " + v.error;
  std::string error = std::isfinite(v.max_abs_error) ? fmt::format("{:.2g}", v.max_abs_error) : "non-finite";
  std::string speed;
  if (std::isfinite(v.speedup) && v.speedup > 0) {
    speed = v.speedup >= 1 ? fmt::format(", {:.1f}x faster", v.speedup) : fmt::format(", {:.1f}x slower", 1 / v.speedup);
  }
  return fmt::format("validated on {} {}: {} (max error {} vs tolerance {:.0e}{})", v.device, v.dtype,
                     v.equivalent ? "equivalent" : "NOT equivalent", error, v.tolerance, speed);
}

}  // namespace ptlint::gpu_check
