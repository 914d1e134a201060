// workspace::Engine in process, as the server drives it: open buffers with their versions,
// files on disk, configuration errors as data, cancellation, progress, the one reader's refusals.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "workspace/engine.h"

namespace fs = std::filesystem;
using namespace ptlint;
using workspace::FileStatus;

namespace {

const std::string kAmp = "import torch\n\nwith torch.cuda.amp.autocast():\n    pass\n";

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptlint-engine-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& content) {
    fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  fs::path dir_;
};

std::vector<std::string> codes(const workspace::FileResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) out.emplace_back(d.code);
  return out;
}

TEST_F(EngineTest, BufferWinsOverDiskAndKeepsItsVersion) {
  fs::path file = write("a.py", "import torch\n");
  workspace::Engine engine({});
  auto result = engine.check({file, "\xEF\xBB\xBF" + kAmp, 7});
  ASSERT_EQ(result.status, FileStatus::Checked);
  EXPECT_EQ(result.version, 7);
  EXPECT_TRUE(result.form.had_bom);
  EXPECT_EQ(result.text, kAmp);  // the text the byte ranges refer to
  ASSERT_EQ(codes(result), std::vector<std::string>{"PTL101"});
  ASSERT_TRUE(result.diagnostics[0].fix);
  EXPECT_EQ(result.text.substr(result.diagnostics[0].start, 4), "torc");
  EXPECT_EQ(engine.check({file, std::nullopt, std::nullopt}).diagnostics.size(), 0u);
}

TEST_F(EngineTest, FixModeGivesTheFixedTextAndWritesNothing) {
  fs::path file = write("a.py", kAmp);
  workspace::EngineOptions options;
  options.fix = true;
  workspace::Engine engine(std::move(options));
  auto result = engine.check({file, std::nullopt, std::nullopt});
  ASSERT_EQ(result.status, FileStatus::Checked);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.original, kAmp);
  EXPECT_EQ(result.text, "import torch\n\nwith torch.amp.autocast(\"cuda\"):\n    pass\n");
  EXPECT_EQ(result.findings_fixed, 1);
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), kAmp);
}

TEST_F(EngineTest, ConfigErrorIsDataAndFailsOnlyItsFolder) {
  fs::path good = write("a/x.py", kAmp);
  write("b/ptlint.toml", "bogus = 1\n");
  fs::path bad = write("b/y.py", kAmp);
  workspace::Engine engine({});
  auto results = engine.run({{good, std::nullopt, std::nullopt}, {bad, std::nullopt, std::nullopt}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, FileStatus::Checked);
  EXPECT_EQ(codes(results[0]), std::vector<std::string>{"PTL101"});
  EXPECT_EQ(results[1].status, FileStatus::ConfigError);
  ASSERT_TRUE(results[1].error);
  EXPECT_NE(results[1].error->find("bogus"), std::string::npos);
}

TEST_F(EngineTest, ReaderRefusalsAreData) {
  fs::path bad = write("bad.py", "x = '\xff'\n");
  fs::path big = dir_ / "big.py";
  { std::ofstream(big) << std::string(workspace::kMaxFileBytes + 1, '#'); }
  workspace::Engine engine({});
  auto results = engine.run({{bad, std::nullopt, std::nullopt},
                             {big, std::nullopt, std::nullopt},
                             {dir_ / "missing.py", std::nullopt, std::nullopt},
                             {dir_ / "buffer.py", std::string(workspace::kMaxFileBytes + 1, '#'), 1}});
  for (const auto& r : results) {
    EXPECT_EQ(r.status, FileStatus::ReadError) << r.path;
    EXPECT_TRUE(r.error) << r.path;
  }
  EXPECT_NE(results[0].error->find("UTF-8"), std::string::npos);
  EXPECT_NE(results[1].error->find("too large"), std::string::npos);
}

TEST_F(EngineTest, LoneCarriageReturnsAndNotebooks) {
  workspace::Engine engine({});
  auto cr = engine.check({dir_ / "cr.py", "import torch\rwith torch.cuda.amp.autocast():\r    pass\r", 1});
  EXPECT_EQ(cr.form.endings, workspace::LoneCr::Only);
  EXPECT_EQ(cr.text.find('\r'), std::string::npos);
  EXPECT_EQ(codes(cr), std::vector<std::string>{"PTL101"});
  std::string notebook =
      R"({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [)"
      R"({"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\n"]},)"
      R"({"cell_type": "code", "metadata": {}, "outputs": [], "source": ["torch.cuda.amp.autocast()\n"]}]})";
  auto nb = engine.check({dir_ / "n.ipynb", notebook, 1});
  ASSERT_EQ(nb.status, FileStatus::Checked);
  ASSERT_TRUE(nb.form.notebook);
  EXPECT_EQ(codes(nb), std::vector<std::string>{"PTL101"});
}

TEST_F(EngineTest, CancellationAndProgressWithoutLocks) {
  std::vector<workspace::FileInput> inputs;
  for (int i = 0; i < 40; ++i)
    inputs.push_back({write("f" + std::to_string(i) + ".py", kAmp).string(), std::nullopt, std::nullopt});
  workspace::EngineOptions options;
  options.threads = 2;
  workspace::Engine engine(std::move(options));
  workspace::RunHooks hooks;
  std::atomic<size_t> calls{0}, last_total{0};
  std::atomic<bool> cancel_sent{false};
  hooks.progress = [&](size_t done, size_t total) {
    ++calls;
    last_total = total;
    EXPECT_LE(done, total);
    // A callback may call back into the engine: no engine lock is held.
    if (done == 5) {
      EXPECT_EQ(engine.check({inputs[0].path, std::nullopt, std::nullopt}).status, FileStatus::Checked);
      hooks.cancel.cancel();
      cancel_sent = true;
    } else if (done > 5) {
      // The other thread holds here until the cancel is sent: on a loaded machine it could
      // otherwise check every remaining file while this callback is descheduled.
      for (int i = 0; i < 10000 && !cancel_sent; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  auto results = engine.run(inputs, hooks);
  EXPECT_EQ(last_total, inputs.size());
  size_t checked = 0, cancelled = 0;
  for (const auto& r : results) {
    if (r.status == FileStatus::Checked) ++checked;
    if (r.status == FileStatus::Cancelled) ++cancelled;
  }
  EXPECT_GE(checked, 5u);
  EXPECT_GT(cancelled, 0u);
  EXPECT_EQ(checked + cancelled, inputs.size());
  EXPECT_EQ(calls, inputs.size());
}

TEST_F(EngineTest, ResultsRecordTheFilesTheirFactsCameFrom) {
  write("pyproject.toml", "[project]\nname = \"p\"\n");
  fs::path model = write("model.py",
                         "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
                         "        return x.sum().item()\n");
  fs::path train = write("train.py", "import torch\nfrom model import Net\n\nnet = torch.compile(Net())\n");
  workspace::Engine engine({});
  auto result = engine.check({model, std::nullopt, std::nullopt});
  EXPECT_EQ(codes(result), std::vector<std::string>{"PTL501"});
  EXPECT_EQ(result.dependencies, std::vector<std::string>{train.string()});
}

// A finding that rests on what a helper of another file returns depends on that file, and is
// not cached (the cache key does not describe it): an edit of the helper is seen on the next run.
TEST_F(EngineTest, ResultsThatReadAHelperOfAnotherFileDependOnItAndAreNotCached) {
  write("pyproject.toml", "[project]\nname = \"p\"\n");
  fs::path utils = write("utils.py", "import torch\n\ndef low():\n    return torch.bfloat16\n");
  fs::path train = write("train.py",
                         "from torch.distributed.fsdp import MixedPrecisionPolicy\nfrom utils import low\n\n"
                         "policy = MixedPrecisionPolicy(param_dtype=low(), reduce_dtype=low())\n");
  workspace::EngineOptions options;
  options.overrides.select = std::vector<std::string>{"PTL203"};
  options.cache_folder = dir_;
  {
    workspace::Engine engine(options);
    auto result = engine.check({train, std::nullopt, std::nullopt});
    EXPECT_EQ(codes(result), std::vector<std::string>{"PTL203"});
    EXPECT_EQ(result.dependencies, std::vector<std::string>{utils.string()});
    engine.save();
  }
  write("utils.py", "import torch\n\ndef low():\n    return torch.float32\n");
  workspace::Engine engine(options);
  auto result = engine.check({train, std::nullopt, std::nullopt});
  EXPECT_EQ(result.status, workspace::FileStatus::Checked);
  EXPECT_TRUE(codes(result).empty());
}

}  // namespace
