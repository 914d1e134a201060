// The allocator-configuration parsers of 1.13, 2.6 and 2.14 (analysis/alloc_conf.h), one row per
// string: what each release's parser does with it. The rows were read off each release's parser
// (see alloc_conf.h); the device-neutral 2.14 rows were also run on Debian's 2.14.1 through
// `torch._C._accelerator_setAllocatorSettings` (tests/torch_facts checks a few of them there).
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/alloc_conf.h"
#include "lint_source.h"
#include "test_files.h"

using ptlint::alloc_conf::check;
using ptlint::alloc_conf::Parser;

namespace {

struct Row {
  const char* value;
  bool accepted_1_13;
  bool accepted_2_6;
  bool accepted_2_14;
};

const Row kRows[] = {
    {"max_split_size_mb:20", false, false, true},
    {"max_split_size_mb:21", true, true, true},
    {"max_split_size_mb:19", false, false, false},
    {"max_split_size_mb:128MB", true, true, true},
    {"max_split_size_mb:-1", true, true, true},
    {"max_split_size_mb:abc", false, false, false},
    {"max_split_size_mb:4294967296", false, false, true},
    {"max_split_size_mb:1e3", false, false, false},
    {"max_split_size_mb: 200", true, true, true},
    {"max_split_size_mb:128:3", true, false, false},
    {"max_split_size_mb", true, false, false},
    {"max_non_split_rounding_mb:20", false, false, true},
    {"max_non_split_rounding_mb:64", false, true, true},
    {"garbage_collection_threshold:0.5", true, true, true},
    {"garbage_collection_threshold:1", false, false, false},
    {"garbage_collection_threshold:0.5x", true, true, true},
    {"garbage_collection_threshold:nan", false, false, false},
    {"roundup_power2_divisions:4", true, true, true},
    {"roundup_power2_divisions:3", false, false, false},
    {"roundup_power2_divisions:0", false, false, false},
    {"roundup_power2_divisions:[256:1,512:2,>:4]", false, true, true},
    {"roundup_power2_divisions:[256:3]", false, false, false},
    {"roundup_power2_divisions:[3:4]", false, false, false},
    {"roundup_power2_divisions:[256:1,>:4", false, false, false},
    {"roundup_bypass_threshold_mb:64", true, false, false},
    {"expandable_segments:True", false, true, true},
    {"expandable_segments:true", false, false, false},
    {"backend:cudaMallocAsync", false, true, true},
    {"backend:async", false, false, false},
    {"pinned_use_background_threads:True", false, true, true},
    {"pinned_num_register_threads:8", false, true, true},
    {"pinned_num_register_threads:256", false, false, false},
    {"pinned_reserve_segment_size_mb:64", false, false, true},
    {"pinned_reserve_segment_size_mb:0", false, false, false},
    {"graph_capture_record_stream_reuse:True", false, false, true},
    {"per_process_memory_fraction:0.5", false, false, true},
    {"large_segment_size_mb:64", false, false, true},
    {"large_segment_size_mb:10", false, false, false},
    {"large_segment_size_mb:64,max_split_size_mb:32", false, false, false},
    {"pinned_max_cached_size_mb:64", false, false, true},
    {"expandable_segment:True", false, false, false},
    {"expandable_segments:True,", false, true, true},
    {",max_split_size_mb:128", true, false, false},
    {"", true, true, true},
    {"max_split_size_mb:128,garbage_collection_threshold:0.6", true, true, true},
    {"max_split_size_mb:128 garbage_collection_threshold:0.6", true, false, false},
    {"max_split_size_mb:19,max_split_size_mb:128", false, false, false},
    {"large_segment_size_mb:12,max_split_size_mb:15", false, false, true},
    {"max_split_size_mb:30,large_segment_size_mb:40", false, false, false},
    {",large_segment_size_mb:0", false, false, false},
};

void expectVerdict(const Row& row, Parser parser, bool accepted) {
  auto rejection = check(row.value, parser);
  EXPECT_EQ(!rejection, accepted) << "`" << row.value << "` at " << ptlint::alloc_conf::releaseOf(parser)
                                  << (rejection ? ": rejected: " + rejection->message : std::string(": accepted"));
}

TEST(AllocConf, EachReleaseParser) {
  for (const auto& row : kRows) {
    expectVerdict(row, Parser::Torch1_13, row.accepted_1_13);
    expectVerdict(row, Parser::Torch2_6, row.accepted_2_6);
    expectVerdict(row, Parser::Torch2_14, row.accepted_2_14);
  }
}

TEST(AllocConf, MessagesNameTheOption) {
  auto unknown = check("expandable_segment:True", Parser::Torch2_14);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->key, "expandable_segment");
  EXPECT_NE(unknown->message.find("unknown option `expandable_segment`"), std::string::npos);
  auto small = check("max_split_size_mb:20", Parser::Torch2_6);
  ASSERT_TRUE(small);
  EXPECT_NE(small->message.find("greater than 20"), std::string::npos);
  auto old = check("expandable_segments:True", Parser::Torch1_13);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->key, "expandable_segments");
}

// Bad input never crashes: truncated lists, stray separators, huge numbers, control bytes.
TEST(AllocConf, MalformedStringsAreJudgedWithoutCrashing) {
  const char* inputs[] = {"[", "]", ":", ",", "::::", "[[[[", "a:[", "roundup_power2_divisions:[",
                          "roundup_power2_divisions:[>", "roundup_power2_divisions:[>:", "roundup_power2_divisions:[>:1",
                          "backend:", "x:\x01\x7f", "max_split_size_mb:999999999999999999999999",
                          "garbage_collection_threshold:1e999"};
  for (const char* input : inputs) {
    for (auto parser : {Parser::Torch1_13, Parser::Torch2_6, Parser::Torch2_14}) (void)check(input, parser);
  }
  EXPECT_TRUE(check("roundup_power2_divisions:[", Parser::Torch2_14));
  EXPECT_TRUE(check("max_split_size_mb:999999999999999999999999", Parser::Torch2_14));
}

// 2.14's device-neutral pass against the real one: 1500 random strings of the allocator's keys,
// values and separators, with Debian 2.14.1's verdict on each (tests/unit/data).
TEST(AllocConf, DeviceNeutralPassAgreesWithPyTorch2_14) {
  std::istringstream lines(ptlint::test_files::readFile(std::string(PTLINT_FIXTURES_DIR) +
                                                        "/../unit/data/alloc_conf_2_14_cpu.tsv"));
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    std::string value = line.substr(tab + 1);
    auto rejection = ptlint::alloc_conf::checkDeviceNeutral2_14(value);
    EXPECT_EQ(!rejection, line[0] == 'A') << "`" << value << "`" << (rejection ? ": " + rejection->message : "");
    ++rows;
  }
  EXPECT_GT(rows, 1000);
  // The CUDA pass then rejects what only the device-neutral pass skips.
  EXPECT_FALSE(ptlint::alloc_conf::checkDeviceNeutral2_14(",max_split_size_mb:5"));
  EXPECT_TRUE(check(",max_split_size_mb:5", Parser::Torch2_14));
}

}  // namespace

namespace {

using ptlint::lint_source::has;
using ptlint::lint_source::lint;

// The message names the release that raises and the range it was judged for.
TEST(AllocConfRule, MessageNamesTheReleaseJudged) {
  auto at26 = lint("import os\nos.environ['PYTORCH_CUDA_ALLOC_CONF'] = 'max_split_size_mb:20'\n", "PTL705", "2.6");
  ASSERT_EQ(at26.size(), 1u);
  EXPECT_TRUE(has(at26[0].help, "PyTorch 2.6 raises")) << at26[0].help;
  EXPECT_TRUE(has(at26[0].message, "(judged for torch >=2.6)")) << at26[0].message;
  auto at27 = lint("import os\nos.environ['PYTORCH_CUDA_ALLOC_CONF'] = 'max_split_size_mb:20'\n", "PTL705", "2.7");
  EXPECT_TRUE(at27.empty());  // 2.14 takes 20; 2.7 to 2.13 were not read
  auto removed = lint("import os\nos.environ['PYTORCH_CUDA_ALLOC_CONF'] = 'roundup_bypass_threshold_mb:64'\n", "PTL705", "1.13");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_TRUE(has(removed[0].help, "PyTorch 2.6 raises")) << removed[0].help;
  auto newer = lint("import os\nos.environ['PYTORCH_ALLOC_CONF'] = 'expandable_segment:True'\n", "PTL705", "2.6");
  ASSERT_EQ(newer.size(), 1u);
  EXPECT_TRUE(has(newer[0].help, "`PYTORCH_ALLOC_CONF`")) << newer[0].help;
  EXPECT_TRUE(has(newer[0].help, "PyTorch 2.14 raises")) << newer[0].help;
}

}  // namespace
