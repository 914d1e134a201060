// torch.compile logs recorded from real runs (tests/compile_logs/record.sh: PyTorch 2.6 and 2.14,
// text logs and TORCH_TRACE traces of the scripts in tests/compile_logs/src/) read, mapped to the
// scripts by path suffix (the logs name /work/src/<script>.py, the chroot's paths) and linted.
// Each script says where a run must put its findings, in a trailing comment:
//   x = t.item()   # run: PTL901            every release and form
//   ...            # run-2.14: PTL901       only the 2.14 logs
//   ...            # run-trace: PTL902      only the TORCH_TRACE forms
// Every finding no line expects fails the test, and so does every expectation left unmet.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <set>

#include "rules/linter.h"
#include "test_files.h"
#include "workspace/compile_log.h"

namespace fs = std::filesystem;
using namespace ptlint;

namespace {

const fs::path kDir = PTLINT_COMPILE_LOGS_DIR;

std::vector<fs::path> scripts() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kDir / "src"))
    if (e.path().extension() == ".py") out.push_back(fs::absolute(e.path()).lexically_normal());
  std::sort(out.begin(), out.end());
  return out;
}

using Found = std::set<std::pair<uint32_t, std::string>>;  // (line, code)

// (line, code) pairs the script expects for this release and form.
Found expected(const fs::path& script, const std::string& version, bool trace) {
  Found out;
  std::istringstream in(test_files::readFile(script));
  std::string line;
  for (uint32_t row = 1; std::getline(in, line); ++row) {
    for (size_t at = line.find("# run"); at != std::string::npos; at = line.find("# run", at + 1)) {
      size_t colon = line.find(':', at);
      if (colon == std::string::npos) break;
      std::string tag = line.substr(at + 5, colon - at - 5);
      bool applies = tag.empty() || tag == "-" + version || (tag == "-trace" && trace) ||
                     (tag == "-text" && !trace) || tag == "-" + version + (trace ? "-trace" : "-text");
      if (!applies) continue;
      std::istringstream words(line.substr(colon + 1, line.find('#', colon) - colon - 1));
      std::string code;
      while (words >> code) {
        if (code.back() == ',') code.pop_back();
        if (code.starts_with("PTL")) out.insert({row, code});
      }
    }
  }
  return out;
}

struct Linted {
  Found found;
  std::vector<std::string> messages;
};

Linted lint(const fs::path& script, std::shared_ptr<const rules::RuntimeFindings> runtime,
            std::vector<std::string> select = {"PTL9", "PTL5"}) {
  auto file = analysis::ParsedFile::parse(test_files::readFile(script));
  rules::Settings settings;
  settings.select = std::move(select);
  settings.compile_log_given = true;
  settings.runtime = std::move(runtime);
  Linted out;
  for (const auto& d : rules::lintFile(file, settings).diagnostics) {
    out.found.insert({file.lines().lineOf(d.start) + 1, std::string(d.code)});
    out.messages.push_back(std::string(d.code) + ":" + std::to_string(file.lines().lineOf(d.start) + 1) + ": " +
                           d.message);
  }
  return out;
}

void checkLog(const fs::path& log_path, const std::string& version, bool trace) {
  SCOPED_TRACE(log_path.string());
  ASSERT_TRUE(fs::exists(log_path));
  workspace::CompileLog log = workspace::readCompileLog(log_path);
  EXPECT_FALSE(log.error) << *log.error;
  EXPECT_FALSE(log.best_effort);
  auto files = scripts();
  workspace::CompileLogMapping mapping = workspace::mapCompileLog(log, files);
  for (const fs::path& script : files) {
    auto it = mapping.per_file.find(script);
    Linted got = lint(script, it == mapping.per_file.end() ? nullptr : it->second, {"PTL9"});
    Found want = expected(script, version, trace);
    std::string all;
    for (const auto& m : got.messages) all += "\n  " + m;
    // Only the script the log was recorded from has expectations in it.
    if (log_path.stem().string().starts_with(script.stem().string()) ||
        log_path.filename().string().starts_with(script.stem().string())) {
      EXPECT_EQ(got.found, want) << script.filename() << all;
    } else {
      EXPECT_TRUE(got.found.empty()) << script.filename() << all;
    }
  }
}

class RecordedLogs : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedLogs, EveryBreakAndRecompileOnItsLine) {
  const std::string version = GetParam();
  fs::path dir = kDir / "logs" / version;
  if (!fs::exists(dir)) GTEST_SKIP() << "no logs recorded for " << version;
  int read = 0;
  for (const fs::path& script : scripts()) {
    std::string name = script.stem().string();
    checkLog(dir / (name + ".log"), version, false);
    checkLog(dir / (name + ".trace"), version, true);
    read += 2;
  }
  // The same run's text log without PyTorch's prefix.
  checkLog(dir / "helper_break.noprefix.log", version, false);
  EXPECT_GE(read, 16);
}

INSTANTIATE_TEST_SUITE_P(Releases, RecordedLogs, ::testing::Values("2.6", "2.14"));

}  // namespace

namespace {

fs::path writeTemp(const std::string& name, const std::string& content) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-compile-log-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << content;
  return dir / name;
}

// A trace cut in the middle of a record: the error names the line, what came before is kept.
TEST(CompileLogErrors, CutTraceNamesTheLine) {
  fs::path dir = kDir / "logs" / "2.6" / "item_int.trace";
  ASSERT_TRUE(fs::exists(dir));
  std::string trace = test_files::readFile(fs::directory_iterator(dir)->path());
  size_t second_break = trace.find("dynamo_graph_break_reason", trace.find("dynamo_graph_break_reason") + 1);
  ASSERT_NE(second_break, std::string::npos);
  std::string cut = trace.substr(0, second_break);  // ends inside the record's JSON
  size_t lines = static_cast<size_t>(std::count(cut.begin(), cut.end(), '\n'));
  fs::path path = writeTemp("cut_trace.log", cut);
  workspace::CompileLog log = workspace::readCompileLog(path);
  ASSERT_TRUE(log.error);
  EXPECT_NE(log.error->find("cut_trace.log:" + std::to_string(lines + 1) + ": "), std::string::npos) << *log.error;
  EXPECT_EQ(log.breaks.size(), 1u);  // the first break, read before the cut
}

TEST(CompileLogErrors, BinaryTextLogNamesTheLine) {
  std::string text = test_files::readFile(kDir / "logs" / "2.6" / "print_break.log");
  fs::path path = writeTemp("garbled.log", text.substr(0, text.find('\n')) + "\n\x01\x02\xff\xfe\x00garbage\n" + text);
  workspace::CompileLog log = workspace::readCompileLog(path);
  ASSERT_TRUE(log.error);
  EXPECT_NE(log.error->find("garbled.log:2: not text"), std::string::npos) << *log.error;
}

TEST(CompileLogErrors, GraphBreakWithoutPlace) {
  fs::path path = writeTemp("noplace.log",
                            "V1204 16:27:00.619000 31889 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks] "
                            "Graph break in user code at somewhere\n");
  workspace::CompileLog log = workspace::readCompileLog(path);
  ASSERT_TRUE(log.error);
  EXPECT_NE(log.error->find("noplace.log:1: a graph-break record without its `file:line`"), std::string::npos)
      << *log.error;
}

// Two processes writing to one log: their lines interleave, each record is read whole, and the
// break is counted once per rank. PyTorch's own frames never become findings.
TEST(CompileLogText, InterleavedRanksAndInternalFrames) {
  auto line = [](int rank, int pid, const std::string& text) {
    return "[rank" + std::to_string(rank) + "]:V1204 16:01:02.123456 " + std::to_string(pid) +
           " torch/_dynamo/symbolic_convert.py:444] [0/0] [__graph_breaks] " + text + "\n";
  };
  std::string log_text;
  for (const char* text : {"Graph break in user code at /usr/lib/python3/dist-packages/torch/nn/functional.py:12",
                           "Reason: Unsupported: something", "User code traceback:",
                           "  File \"/home/ci/job/src/item_int.py\", line 9, in torch_dynamo_resume_in_scale_at_7",
                           "    n = int(y.max())",
                           "  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 12, in relu",
                           "    return x"}) {
    log_text += line(0, 100, text);
    log_text += line(1, 101, text);
  }
  fs::path path = writeTemp("ranks.log", log_text);
  workspace::CompileLog log = workspace::readCompileLog(path);
  ASSERT_FALSE(log.error) << *log.error;
  ASSERT_EQ(log.breaks.size(), 2u);
  auto mapping = workspace::mapCompileLog(log, scripts());
  auto it = mapping.per_file.find(fs::absolute(kDir / "src" / "item_int.py").lexically_normal());
  ASSERT_NE(it, mapping.per_file.end());
  ASSERT_EQ(it->second->findings.size(), 1u);
  const auto& finding = it->second->findings.front();
  EXPECT_EQ(finding.line, 9u);
  EXPECT_NE(finding.message.find("logged 2 times; ranks 0, 1"), std::string::npos) << finding.message;
}

TEST(CompileLogText, ResumeFunctionsAndGeneratedCode) {
  EXPECT_EQ(workspace::resumeFunction("torch_dynamo_resume_in_scale_at_7"), std::make_pair(std::string("scale"), 7u));
  EXPECT_FALSE(workspace::resumeFunction("scale"));
  EXPECT_FALSE(workspace::isUserFrame({"<eval_with_key>.3", 4, "forward"}));
  EXPECT_FALSE(workspace::isUserFrame({"/tmp/ipykernel_1234/56789.py", 4, "<module>"}));
  EXPECT_FALSE(workspace::isUserFrame({"/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", 4, "f"}));
  EXPECT_TRUE(workspace::isUserFrame({"/home/me/proj/train.py", 4, "step"}));
}

// Paths map by their longest common suffix; a tie is no match, and says so.
TEST(CompileLogMap, LongestSuffixAndTies) {
  workspace::CompileLog log;
  workspace::GraphBreakEvent e;
  e.at = {"/remote/job/pkg/model.py", 3, "f"};
  e.stack = {e.at};
  e.reason = "Data-dependent jump";
  log.breaks.push_back(e);
  auto mapping = workspace::mapCompileLog(log, {"/here/pkg/model.py", "/here/other/model.py"});
  EXPECT_EQ(mapping.per_file.count("/here/pkg/model.py"), 1u);
  EXPECT_EQ(mapping.per_file.count("/here/other/model.py"), 0u);
  mapping = workspace::mapCompileLog(log, {"/a/x/model.py", "/b/y/model.py"});
  EXPECT_TRUE(mapping.per_file.empty());
  ASSERT_EQ(mapping.notes.size(), 1u);
  EXPECT_NE(mapping.notes[0].find("several checked files match it equally"), std::string::npos) << mapping.notes[0];
}

// The runtime rules are on only with a log, and honour `ignore`.
TEST(CompileLogRules, OnlyWithALog) {
  auto findings = std::make_shared<rules::RuntimeFindings>();
  findings->findings.push_back({rules::RuntimeFinding::Kind::GraphBreak, 2, false, "Graph break: x", {}});
  auto file = analysis::ParsedFile::parse("import torch\ny = 1\n");
  rules::Settings settings;
  EXPECT_TRUE(rules::lintFile(file, settings).diagnostics.empty());
  settings.compile_log_given = true;
  settings.runtime = findings;
  auto result = rules::lintFile(file, settings);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].code, "PTL901");
  settings.ignore = {"PTL9"};
  EXPECT_TRUE(rules::lintFile(file, settings).diagnostics.empty());
}

}  // namespace

namespace {

// A rank number past `int` is not PyTorch's prefix (and is no reason to stop reading).
TEST(CompileLogText, RankNumberOverflowIsNoPrefix) {
  fs::path path = writeTemp("rank_overflow.log",
                            "[rank99999999999999999999]:V1204 16:27:00.619000 1 x.py:1] [0/0] [__graph_breaks] "
                            "Graph break in user code at /a/b.py:3\n");
  workspace::CompileLog log;
  EXPECT_NO_THROW(log = workspace::readCompileLog(path));
  EXPECT_FALSE(log.error);
  EXPECT_TRUE(log.breaks.empty());
}

}  // namespace
