// gpu_check: the environment checks and pattern facts (pure C++, always run), the client's
// behaviour when `ptlint-gpu` is missing, broken or hanging (always run), and — when
// `ptlint-gpu` is built — the doctor report and the validation of PTL601 rewrites on the CPU.
// No assertion is about timing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu_check/client.h"
#include "gpu_check/subprocess.h"

namespace fs = std::filesystem;
using namespace ptlint::gpu_check;
using nlohmann::json;

namespace {

const std::string kWorker = PTLINT_GPU_WORKER;  // empty: not built
const std::string kPtlint = PTLINT_BINARY;      // empty: cli/ not built

bool hasFinding(const EnvVarReport& report, Level level, std::string_view needle) {
  for (const auto& f : report.findings) {
    if (f.level == level && f.message.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string describe(const EnvVarReport& report) {
  std::string out;
  for (const auto& f : report.findings) out += std::string(levelName(f.level)) + ": " + f.message + "\n";
  return out;
}

// ---------------------------------------------------------------- PYTORCH_CUDA_ALLOC_CONF

TEST(AllocConf, UnsetIsFine) {
  auto report = checkAllocConf(std::nullopt);
  EXPECT_FALSE(report.value);
  EXPECT_TRUE(report.valid());
  EXPECT_TRUE(report.findings.empty());
}

TEST(AllocConf, AcceptsEveryKnownKey) {
  auto report = checkAllocConf(
      "expandable_segments:True,max_split_size_mb:128,garbage_collection_threshold:0.6,"
      "roundup_power2_divisions:4,backend:native",
      "2.6.0");
  EXPECT_TRUE(report.valid()) << describe(report);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  ASSERT_EQ(report.entries.size(), 5u);
  EXPECT_EQ(report.entries[0].key, "expandable_segments");
  EXPECT_EQ(report.entries[0].value, "True");
  EXPECT_EQ(report.entries[1].value, "128");
}

TEST(AllocConf, AcceptsDivisionListsAndSpaces) {
  auto report = checkAllocConf("roundup_power2_divisions:[256:1, 512:2,1024:0,>:8], expandable_segments : False");
  EXPECT_TRUE(report.valid()) << describe(report);
  ASSERT_EQ(report.entries.size(), 2u);
  EXPECT_EQ(report.entries[0].value, "[256:1,512:2,1024:0,>:8]");
  EXPECT_EQ(report.entries[1].value, "False");
}

TEST(AllocConf, EmptyAndTrailingCommaAreHarmless) {
  EXPECT_TRUE(checkAllocConf("").valid());
  EXPECT_TRUE(checkAllocConf("expandable_segments:True,").valid());
}

TEST(AllocConf, RejectsUnknownKey) {
  auto report = checkAllocConf("expandable_segment:True");  // a typo every release refuses at first allocation
  EXPECT_FALSE(report.valid());
  EXPECT_TRUE(hasFinding(report, Level::Error, "torch 2.14 rejects it")) << describe(report);
  EXPECT_TRUE(hasFinding(report, Level::Error, "expandable_segment")) << describe(report);
}

TEST(AllocConf, ValuesEveryReleaseRejectsAreErrors) {
  for (const char* conf : {"expandable_segments:true", "max_split_size_mb:1.5", "garbage_collection_threshold:1.0",
                           "garbage_collection_threshold:high", "roundup_power2_divisions:3",
                           "foo:1,max_split_size_mb:128"}) {
    auto report = checkAllocConf(conf);
    EXPECT_FALSE(report.valid()) << conf << "\n" << describe(report);
  }
}

// The releases disagree: 2.14 takes `max_split_size_mb:20` (`>= 20`), 1.13 and 2.6 need `> 20`;
// `expandable_segments` does not exist at 1.13. The user's release decides; unknown, it warns.
TEST(AllocConf, JudgedAtTheUsersRelease) {
  auto unknown = checkAllocConf("max_split_size_mb:20");
  EXPECT_TRUE(unknown.valid()) << describe(unknown);
  EXPECT_TRUE(hasFinding(unknown, Level::Warning, "torch 2.6 rejects it")) << describe(unknown);
  EXPECT_TRUE(hasFinding(unknown, Level::Warning, "2.14 accepts it")) << describe(unknown);

  auto at_2_14 = checkAllocConf("max_split_size_mb:20", "2.14.1+cpu");
  EXPECT_TRUE(at_2_14.findings.empty()) << describe(at_2_14);

  auto at_2_6 = checkAllocConf("max_split_size_mb:20", "2.6.0+cu124");
  EXPECT_FALSE(at_2_6.valid());
  EXPECT_TRUE(hasFinding(at_2_6, Level::Error, "torch 2.6 rejects it")) << describe(at_2_6);
  EXPECT_FALSE(hasFinding(at_2_6, Level::Error, "1.13")) << describe(at_2_6);

  EXPECT_TRUE(checkAllocConf("expandable_segments:True", "2.6.0").findings.empty());
  EXPECT_FALSE(checkAllocConf("expandable_segments:True", "1.13.1").valid());
  // A release ptlint does not model is judged by all of them.
  EXPECT_TRUE(hasFinding(checkAllocConf("expandable_segments:True", "2.10.0"), Level::Warning, "torch 1.13 rejects it"));
}

TEST(AllocConf, NewVariableIsJudgedByTheReleaseThatReadsIt) {
  auto report = checkAllocConf("max_split_size_mb:20", "", "PYTORCH_ALLOC_CONF");
  EXPECT_EQ(report.name, "PYTORCH_ALLOC_CONF");
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_FALSE(checkAllocConf("expandable_segment:True", "", "PYTORCH_ALLOC_CONF").valid());
}

TEST(AllocConf, WarnsOnDuplicatesAndOnOptionsIgnoredByCudaMallocAsync) {
  auto twice = checkAllocConf("max_split_size_mb:128,max_split_size_mb:256", "2.6.0");
  EXPECT_TRUE(twice.valid()) << describe(twice);
  EXPECT_TRUE(hasFinding(twice, Level::Warning, "more than once")) << describe(twice);

  auto async = checkAllocConf("backend:cudaMallocAsync,expandable_segments:True", "2.6.0");
  EXPECT_TRUE(async.valid()) << describe(async);
  EXPECT_TRUE(hasFinding(async, Level::Warning, "no effect")) << describe(async);
}

// ---------------------------------------------------------------- CUBLAS_WORKSPACE_CONFIG

TEST(CublasWorkspaceConfig, DeterministicValuesAreClean) {
  for (const char* value : {":4096:8", ":16:8"}) {
    auto report = checkCublasWorkspaceConfig(value);
    EXPECT_TRUE(report.valid());
    EXPECT_TRUE(report.findings.empty()) << value;
  }
}

TEST(CublasWorkspaceConfig, UnsetIsInfo) {
  auto report = checkCublasWorkspaceConfig(std::nullopt);
  EXPECT_TRUE(report.valid());
  EXPECT_TRUE(hasFinding(report, Level::Info, ":4096:8"));
}

TEST(CublasWorkspaceConfig, OtherWellFormedValuesWarn) {
  auto report = checkCublasWorkspaceConfig(":4096:2:16:8");
  EXPECT_TRUE(report.valid());
  EXPECT_TRUE(hasFinding(report, Level::Warning, "accepts only")) << describe(report);
}

TEST(CublasWorkspaceConfig, MalformedValuesAreErrors) {
  for (const char* value : {"4096:8", ":4096", ":abc:8", "", ":4096:8:", ":0:8"}) {
    auto report = checkCublasWorkspaceConfig(value);
    EXPECT_FALSE(report.valid()) << "`" << value << "`";
  }
}

// ---------------------------------------------------------------- PTL601 facts

using Facts = ptlint::rules::AttentionFacts;

TEST(AttentionPatternFacts, ReadsEveryField) {
  auto p = AttentionPattern::fromFacts(Facts{.scale = Facts::Scale::Value,
                                             .scale_value = 0.125,
                                             .mask = Facts::Mask::Boolean,
                                             .dropout = 0.1,
                                             .layout = Facts::Layout::BTD,
                                             .softmax_float32 = true,
                                             .dtype = Facts::Dtype::BFloat16});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->scale, AttentionPattern::Scale::Value);
  EXPECT_DOUBLE_EQ(p->scale_value, 0.125);
  EXPECT_EQ(p->mask, AttentionPattern::Mask::Boolean);
  EXPECT_DOUBLE_EQ(p->dropout, 0.1);
  EXPECT_EQ(p->layout, AttentionPattern::Layout::BTD);
  EXPECT_TRUE(p->softmax_float32);
  EXPECT_EQ(p->dtype, "bfloat16");
  EXPECT_TRUE(p->test_wrong_rewrite.empty());
}

TEST(AttentionPatternFacts, DefaultsAndExpressionScales) {
  auto plain = AttentionPattern::fromFacts(Facts{});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->scale, AttentionPattern::Scale::Default);
  EXPECT_EQ(plain->mask, AttentionPattern::Mask::None);
  EXPECT_EQ(plain->layout, AttentionPattern::Layout::BHTD);
  EXPECT_EQ(plain->dtype, "unknown");

  EXPECT_EQ(AttentionPattern::fromFacts(Facts{.mask = Facts::Mask::Causal})->mask, AttentionPattern::Mask::Causal);
  EXPECT_EQ(AttentionPattern::fromFacts(Facts{.scale = Facts::Scale::None})->scale, AttentionPattern::Scale::None);
  auto unknown_scale = AttentionPattern::fromFacts(Facts{.scale = Facts::Scale::Expression, .dropout = std::nullopt});
  ASSERT_TRUE(unknown_scale);
  EXPECT_EQ(unknown_scale->scale, AttentionPattern::Scale::Value);
  EXPECT_DOUBLE_EQ(unknown_scale->scale_value, kRepresentativeScale);
  EXPECT_DOUBLE_EQ(unknown_scale->dropout, 0.0);
}

TEST(AttentionPatternFacts, RejectsUnusableNumbers) {
  for (const Facts& facts : {Facts{.scale = Facts::Scale::Value, .scale_value = 0},
                             Facts{.scale = Facts::Scale::Value, .scale_value = std::nan("")},
                             Facts{.scale = Facts::Scale::Value, .scale_value = INFINITY}, Facts{.dropout = 1.5},
                             Facts{.dropout = -0.1}}) {
    std::string error;
    EXPECT_FALSE(AttentionPattern::fromFacts(facts, &error));
    EXPECT_FALSE(error.empty());
  }
}

TEST(AttentionPatternFacts, WireFormRoundTrips) {
  AttentionPattern p;
  p.scale = AttentionPattern::Scale::Value;
  p.scale_value = 0.3;
  p.mask = AttentionPattern::Mask::Additive;
  p.layout = AttentionPattern::Layout::BTD;
  p.test_wrong_rewrite = "invert_mask";
  AttentionPattern back = json(p).get<AttentionPattern>();
  EXPECT_EQ(back.scale, p.scale);
  EXPECT_DOUBLE_EQ(back.scale_value, 0.3);
  EXPECT_EQ(back.mask, p.mask);
  EXPECT_EQ(back.layout, p.layout);
  EXPECT_EQ(back.test_wrong_rewrite, "invert_mask");
  EXPECT_THROW(json({{"mask", "sideways"}}).get<AttentionPattern>(), std::invalid_argument);
  EXPECT_THROW(json({{"test_wrong_rewrite", "anything"}}).get<AttentionPattern>(), std::invalid_argument);
}

// ---------------------------------------------------------------- the client without a worker

class WorkerEnv : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv("PTLINT_GPU"); }
  void TearDown() override { ::unsetenv("PTLINT_GPU"); }
  void useWorker(const std::string& path) { ::setenv("PTLINT_GPU", path.c_str(), 1); }

  // A throwaway executable script, for workers that misbehave.
  std::string script(const std::string& name, const std::string& body) {
    fs::path path = fs::temp_directory_path() / ("ptlint_gpu_test_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    scripts_.push_back(path);
    return path.string();
  }
  ~WorkerEnv() override {
    for (const auto& p : scripts_) fs::remove(p);
  }

 private:
  std::vector<fs::path> scripts_;
};

ValidationOptions smallShape() {
  ValidationOptions options;
  options.shape = {1, 2, 32, 16};
  options.warmup = 1;
  options.repeats = 2;
  options.timeout = std::chrono::seconds(120);
  return options;
}

TEST_F(WorkerEnv, DoctorWithoutWorkerSaysSoAndStillChecksTheEnvironment) {
  useWorker("/nonexistent/ptlint-gpu");
  ::setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:yes", 1);
  EXPECT_FALSE(findWorker());

  std::ostringstream out, err;
  EXPECT_EQ(runDoctor(/*json=*/true, out, err), 0);
  json report = json::parse(out.str());
  EXPECT_FALSE(report["gpu_check"]["available"].get<bool>());
  EXPECT_NE(report["gpu_check"]["error"].get<std::string>().find("ptlint-gpu"), std::string::npos);
  EXPECT_TRUE(report["torch"].is_null());
  EXPECT_TRUE(report["devices"].empty());
  const json& alloc = report["env"]["PYTORCH_CUDA_ALLOC_CONF"];
  EXPECT_TRUE(alloc["set"].get<bool>());
  EXPECT_FALSE(alloc["valid"].get<bool>());
  EXPECT_EQ(alloc["options"]["expandable_segments"], "yes");
  EXPECT_TRUE(report["env"].contains("CUBLAS_WORKSPACE_CONFIG"));

  std::ostringstream human, herr;
  EXPECT_EQ(runDoctor(/*json=*/false, human, herr), 0);
  EXPECT_NE(human.str().find("Device checks: unavailable"), std::string::npos) << human.str();
  EXPECT_NE(human.str().find("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:yes  (invalid)"), std::string::npos);
  ::unsetenv("PYTORCH_CUDA_ALLOC_CONF");
}

TEST_F(WorkerEnv, NotBesideTheExecutableNorOnPathIsNotFound) {
  // The test binary's folder has no ptlint-gpu; nor has this PATH.
  std::string path = readEnv("PATH").value_or("");
  ::setenv("PATH", "/nonexistent", 1);
  std::string why;
  auto results = validateAttention({AttentionPattern{}}, smallShape(), &why);
  EXPECT_FALSE(findWorker());
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(results[0]);
  EXPECT_NE(why.find("`ptlint-gpu` was not found"), std::string::npos) << why;
}

TEST_F(WorkerEnv, PtlintGpuNoneTurnsItOff) {
  useWorker("none");
  EXPECT_FALSE(findWorker());
}

TEST_F(WorkerEnv, ValidationWithoutWorkerDegrades) {
  useWorker("/nonexistent/ptlint-gpu");
  std::string why;
  auto results = validateAttention({AttentionPattern{}, AttentionPattern{}}, smallShape(), &why);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0]);
  EXPECT_FALSE(results[1]);
  EXPECT_NE(why.find("PTLINT_GPU=/nonexistent/ptlint-gpu is not an executable"), std::string::npos) << why;

  useWorker("none");
  validateAttention({AttentionPattern{}}, smallShape(), &why);
  EXPECT_NE(why.find("turned off"), std::string::npos) << why;
}

TEST_F(WorkerEnv, WorkerThatAnswersGarbageDegrades) {
  useWorker(script("garbage", "echo 'not json'; echo 'boom' >&2; exit 3"));
  std::string why;
  auto results = validateAttention({AttentionPattern{}}, smallShape(), &why);
  EXPECT_FALSE(results[0]);
  EXPECT_NE(why.find("exited with code 3 without a JSON answer: boom"), std::string::npos) << why;

  std::ostringstream out, err;
  EXPECT_EQ(runDoctor(true, out, err), 0);
  EXPECT_FALSE(json::parse(out.str())["gpu_check"]["available"].get<bool>());
}

TEST_F(WorkerEnv, WorkerThatEchoesTheRequestDegrades) {
  useWorker("/bin/cat");  // valid JSON, protocol 1, but no answer in it
  std::string why;
  auto results = validateAttention({AttentionPattern{}}, smallShape(), &why);
  EXPECT_FALSE(results[0]);
  EXPECT_NE(why.find("answered 0 results for 1 patterns"), std::string::npos) << why;
  EXPECT_FALSE(doctorReport()["gpu_check"]["available"].get<bool>());
}

TEST_F(WorkerEnv, WorkerThatHangsIsStoppedAtTheTimeout) {
  useWorker(script("hang", "exec sleep 30"));
  ValidationOptions options = smallShape();
  options.timeout = std::chrono::milliseconds(300);
  std::string why;
  auto start = std::chrono::steady_clock::now();
  auto results = validateAttention({AttentionPattern{}}, options, &why);
  EXPECT_FALSE(results[0]);
  EXPECT_NE(why.find("did not answer"), std::string::npos) << why;
  // Not a timing assertion on the device: only that the child was killed, not waited for.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST_F(WorkerEnv, WorkerThatDiesWithoutReadingItsInput) {
  // Writing the request to a closed pipe must neither kill ptlint (SIGPIPE) nor hang it.
  useWorker(script("dies", "exit 0"));
  std::vector<AttentionPattern> many(2000);  // a request larger than a pipe buffer
  std::string why;
  auto results = validateAttention(many, smallShape(), &why);
  EXPECT_FALSE(results[0]);
  EXPECT_FALSE(why.empty());
}

TEST(ValidationJson, IsExactlyTheSpecObject) {
  Validation v{"cpu", "float32", {2, 8, 256, 64}, 1.5e-7, 1e-4, true, 1.25, ""};
  json j = toJson(v);
  EXPECT_EQ(j, json::parse(R"({"device": "cpu", "dtype": "float32", "shape": [2, 8, 256, 64],
      "max_abs_error": 1.5e-7, "tolerance": 1e-4, "equivalent": true, "speedup": 1.25})"));
  v.max_abs_error = INFINITY;
  v.equivalent = false;
  v.speedup = NAN;
  j = toJson(v);
  EXPECT_TRUE(j["max_abs_error"].is_null());
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_NE(summarize(v).find("NOT equivalent"), std::string::npos);
}

// ---------------------------------------------------------------- with ptlint-gpu

class WithWorker : public WorkerEnv {
 protected:
  void SetUp() override {
    WorkerEnv::SetUp();
    if (kWorker.empty()) GTEST_SKIP() << "ptlint-gpu is not built (libtorch not found): device checks skipped";
    useWorker(kWorker);
  }
};

TEST_F(WithWorker, DoctorReportsTorchDevicesAndEnvironment) {
  std::ostringstream out, err;
  ASSERT_EQ(runDoctor(/*json=*/true, out, err), 0);
  json report = json::parse(out.str());
  ASSERT_TRUE(report["gpu_check"]["available"].get<bool>()) << report.dump(2);
  EXPECT_EQ(report["gpu_check"]["path"], fs::absolute(kWorker).string());

  const json& torch = report["torch"];
  ASSERT_TRUE(torch["version"].is_string());
  EXPECT_FALSE(torch["version"].get<std::string>().empty());
  ASSERT_TRUE(torch["cuda_build"].is_boolean());
  EXPECT_EQ(torch["cuda_runtime"].is_null(), !torch["cuda_build"].get<bool>());
  EXPECT_TRUE(torch["sdpa_api"].is_string());

  const json& devices = report["devices"];
  ASSERT_FALSE(devices.empty());
  const json& cpu = devices[0];
  EXPECT_EQ(cpu["type"], "cpu");
  EXPECT_TRUE(cpu["name"].is_string());
  EXPECT_TRUE(cpu["bf16"].is_boolean());
  EXPECT_TRUE(cpu["bf16_native"].is_boolean());
  ASSERT_TRUE(cpu["sdpa_backends"].is_array());
  EXPECT_NE(std::find(cpu["sdpa_backends"].begin(), cpu["sdpa_backends"].end(), "math"), cpu["sdpa_backends"].end());
  for (size_t i = 1; i < devices.size(); ++i) {
    const json& gpu = devices[i];
    EXPECT_EQ(gpu["type"], "cuda");
    for (const char* key : {"index", "name", "compute_capability", "memory_bytes", "bf16", "tf32_matmul", "tf32_cudnn",
                            "sdpa_backends"}) {
      EXPECT_TRUE(gpu.contains(key)) << key;
    }
  }
  EXPECT_TRUE(report["env"]["PYTORCH_CUDA_ALLOC_CONF"].contains("valid"));
  EXPECT_TRUE(report["env"]["CUBLAS_WORKSPACE_CONFIG"].contains("findings"));

  std::ostringstream human, herr;
  EXPECT_EQ(runDoctor(/*json=*/false, human, herr), 0);
  EXPECT_NE(human.str().find("libtorch " + torch["version"].get<std::string>()), std::string::npos) << human.str();
  EXPECT_NE(human.str().find("cpu: "), std::string::npos);
}

AttentionPattern pattern(const Facts& facts) {
  std::string error;
  auto p = AttentionPattern::fromFacts(facts, &error);
  EXPECT_TRUE(p) << error;
  return p.value_or(AttentionPattern{});
}

TEST_F(WithWorker, RecognisedPatternsAreEquivalentToTheirRewrite) {
  const std::vector<std::pair<std::string, Facts>> cases = {
      {"plain", Facts{.scale = Facts::Scale::Default, .mask = Facts::Mask::None}},
      {"unscaled", Facts{.scale = Facts::Scale::None}},
      {"scaled", Facts{.scale = Facts::Scale::Value, .scale_value = 0.3}},
      {"masked", Facts{.mask = Facts::Mask::Boolean}},
      {"additive", Facts{.scale = Facts::Scale::Value, .scale_value = 0.125, .mask = Facts::Mask::Additive}},
      {"causal", Facts{.mask = Facts::Mask::Causal}},
      {"causal-bmm", Facts{.mask = Facts::Mask::Causal, .layout = Facts::Layout::BTD}},
      {"upcast-softmax", Facts{.dropout = 0.1, .softmax_float32 = true, .dtype = Facts::Dtype::BFloat16}},
  };
  std::vector<AttentionPattern> patterns;
  for (const auto& [name, facts] : cases) patterns.push_back(pattern(facts));
  ValidationOptions options = smallShape();
  std::string why;
  auto results = validateAttention(patterns, options, &why);
  ASSERT_EQ(results.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].first);
    ASSERT_TRUE(results[i]) << why;
    const Validation& v = *results[i];
    EXPECT_EQ(v.error, "");
    EXPECT_TRUE(v.equivalent) << summarize(v);
    EXPECT_LE(v.max_abs_error, v.tolerance);
    EXPECT_GT(v.tolerance, 0);
    EXPECT_TRUE(v.device == "cpu" || v.device.rfind("cuda", 0) == 0) << v.device;
    if (v.device == "cpu") {
      EXPECT_EQ(v.dtype, "float32");  // fp32 on CPU whatever the code uses
    }
    if (patterns[i].layout == AttentionPattern::Layout::BTD) {
      EXPECT_EQ(v.shape, (std::vector<int64_t>{2, 32, 16}));
    } else {
      EXPECT_EQ(v.shape, options.shape);
    }
    EXPECT_TRUE(std::isfinite(v.speedup) && v.speedup > 0);  // measured; its value is not asserted
    json j = toJson(v);
    EXPECT_EQ(j.size(), 7u) << j.dump();
  }
}

TEST_F(WithWorker, DeliberatelyWrongRewritesAreCaught) {
  const std::vector<std::pair<std::string, Facts>> cases = {
      {"invert_mask", Facts{.mask = Facts::Mask::Boolean}},
      {"invert_mask", Facts{.mask = Facts::Mask::Additive}},
      {"drop_causal", Facts{.mask = Facts::Mask::Causal}},
      {"drop_scale", Facts{.scale = Facts::Scale::Default}},
      {"drop_scale", Facts{.scale = Facts::Scale::Value, .scale_value = 0.5, .layout = Facts::Layout::BTD}},
  };
  std::vector<AttentionPattern> patterns;
  for (const auto& [wrong, facts] : cases) {
    patterns.push_back(pattern(facts));
    patterns.back().test_wrong_rewrite = wrong;
  }
  std::string why;
  auto results = validateAttention(patterns, smallShape(), &why);
  ASSERT_EQ(results.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].first);
    ASSERT_TRUE(results[i]) << why;
    EXPECT_EQ(results[i]->error, "");
    EXPECT_FALSE(results[i]->equivalent) << summarize(*results[i]);
    EXPECT_GT(results[i]->max_abs_error, results[i]->tolerance);
  }
}

TEST_F(WithWorker, DefaultShapeIsTheDocumentedOne) {
  ValidationOptions options;
  EXPECT_EQ(options.shape, (std::vector<int64_t>{2, 8, 256, 64}));
  options.repeats = 1;
  options.warmup = 0;
  auto results = validateAttention({pattern(Facts{.mask = Facts::Mask::Causal})}, options);
  ASSERT_TRUE(results[0]);
  EXPECT_EQ(results[0]->shape, (std::vector<int64_t>{2, 8, 256, 64}));
  EXPECT_TRUE(results[0]->equivalent) << summarize(*results[0]);
}

TEST_F(WithWorker, BadRequestsGetAnErrorNotACrash) {
  auto ask = [](const std::string& input) {
    ChildResult r = runChild({kWorker}, input, std::chrono::seconds(60));
    EXPECT_TRUE(r.started) << r.error;
    EXPECT_EQ(r.term_signal, 0) << input;
    return std::make_pair(r.exit_code, json::parse(r.out, nullptr, false));
  };
  for (const std::string input :
       {"", "garbage", "[]", R"({"protocol": 99, "command": "doctor"})", R"({"protocol": "1"})",
        R"({"protocol": 1, "command": "format_disk"})", R"({"protocol": 1, "command": "validate"})",
        R"({"protocol": 1, "command": "validate", "shape": [1, 2], "patterns": []})",
        R"({"protocol": 1, "command": "validate", "shape": [1, 1, -4, 8], "patterns": [{}]})",
        R"({"protocol": 1, "command": "validate", "device": "tpu", "patterns": [{}]})"}) {
    auto [code, body] = ask(input);
    EXPECT_EQ(code, 1) << input;
    ASSERT_TRUE(body.is_object()) << input;
    EXPECT_TRUE(body["error"].is_string()) << input;
  }
  // One bad pattern in a batch is reported on its own; the others are still validated.
  auto [code, body] = ask(R"({"protocol": 1, "command": "validate", "shape": [1, 1, 8, 4], "repeats": 1,
                              "patterns": [{"mask": "sideways"}, {"mask": "causal"}]})");
  EXPECT_EQ(code, 0);
  ASSERT_EQ(body["results"].size(), 2u) << body.dump();
  EXPECT_NE(body["results"][0]["error"].get<std::string>().find("sideways"), std::string::npos);
  EXPECT_FALSE(body["results"][0]["equivalent"].get<bool>());
  EXPECT_TRUE(body["results"][1]["equivalent"].get<bool>());
}

// ---------------------------------------------------------------- through the ptlint binary

TEST_F(WorkerEnv, PtlintDoctorFindsTheWorkerBesideIt) {
  if (kPtlint.empty()) GTEST_SKIP() << "the ptlint binary is not built";
  if (kWorker.empty()) GTEST_SKIP() << "ptlint-gpu is not built (libtorch not found)";
  ChildResult r = runChild({kPtlint, "doctor", "--json"}, "", std::chrono::seconds(120));
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out << r.err;
  EXPECT_TRUE(report["gpu_check"]["available"].get<bool>()) << report.dump(2);
}

TEST_F(WorkerEnv, PtlintDoctorWithoutWorkerExitsZero) {
  if (kPtlint.empty()) GTEST_SKIP() << "the ptlint binary is not built";
  useWorker("none");
  ChildResult r = runChild({kPtlint, "doctor"}, "", std::chrono::seconds(60));
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("unavailable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUBLAS_WORKSPACE_CONFIG"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// `ptlint check --gpu-check` end to end, on a hand-rolled attention PTL601 offers to fix (its
// operands provably 4-D: `transpose(2, 3)`; the fused kernels take no other rank).
class CheckGpu : public WorkerEnv {
 protected:
  void SetUp() override {
    WorkerEnv::SetUp();
    if (kPtlint.empty()) GTEST_SKIP() << "the ptlint binary is not built";
    file_ = fs::temp_directory_path() / ("ptlint_gpu_check_" + std::to_string(::getpid()) + ".py");
    std::ofstream(file_) << "import torch\n\n\n"
                            "def attend(q, k, v):\n"
                            "    w = torch.matmul(q, k.transpose(2, 3))\n"
                            "    w = torch.softmax(w, -1)\n"
                            "    return torch.matmul(w, v)\n";
  }
  void TearDown() override {
    if (!file_.empty()) fs::remove(file_);
    WorkerEnv::TearDown();
  }
  ChildResult check() {
    return runChild({kPtlint, "check", "--select", "PTL601", "--gpu-check", "--no-cache", "--output-format", "json",
                     file_.string()},
                    "", std::chrono::seconds(280));
  }
  fs::path file_;
};

TEST_F(CheckGpu, AddsTheValidationObject) {
  if (kWorker.empty()) GTEST_SKIP() << "ptlint-gpu is not built (libtorch not found)";
  ChildResult r = check();
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the finding remains
  json findings = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(findings.is_array() && findings.size() == 1) << r.out << r.err;
  const json& v = findings[0]["validation"];
  ASSERT_TRUE(v.is_object()) << findings.dump(2) << r.err;
  for (const char* key : {"device", "dtype", "shape", "max_abs_error", "tolerance", "equivalent", "speedup"}) {
    EXPECT_TRUE(v.contains(key)) << key;
  }
  EXPECT_TRUE(v["equivalent"].get<bool>()) << v.dump();
  EXPECT_EQ(v["shape"], json({2, 8, 256, 64}));  // the default shape
  EXPECT_FALSE(findings[0]["fix"].is_null());
}

TEST_F(CheckGpu, WithoutWorkerReportsUnvalidatedFindings) {
  useWorker("none");
  ChildResult r = check();
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json findings = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(findings.is_array() && findings.size() == 1) << r.out << r.err;
  EXPECT_FALSE(findings[0].contains("validation"));
  EXPECT_FALSE(findings[0]["fix"].is_null());
  EXPECT_NE(r.err.find("fixes were not validated"), std::string::npos) << r.err;
}

}  // namespace
