// What the version-driven rules say about the releases they judge: the removal and deprecation
// dates in PTL106's messages, and the facts PTL103's documentation states.
#include <gtest/gtest.h>

#include "rules/linter.h"
#include "rules/registry.h"
#include "tests/unit/lint_source.h"
#include "tests/unit/test_files.h"

using namespace ptlint;

namespace {

using lint_source::has;
using lint_source::lint;

TEST(VersionRules, SymeigIsRemovedFromTwoZero) {
  auto at26 = lint("import torch\nw, v = torch.symeig(a)\n", "PTL106");
  ASSERT_EQ(at26.size(), 1u);
  EXPECT_EQ(at26[0].severity, rules::Severity::Error);
  EXPECT_TRUE(has(at26[0].message, "removed in PyTorch 2.0")) << at26[0].message;
  auto at113 = lint("import torch\nw, v = torch.symeig(a)\n", "PTL106", "1.13");
  ASSERT_EQ(at113.size(), 1u);
  EXPECT_EQ(at113[0].severity, rules::Severity::Warning);
  EXPECT_TRUE(has(at113[0].message, "is deprecated; use `torch.linalg.eigh` (judged for torch >=1.13)")) << at113[0].message;
  EXPECT_EQ(at113[0].help, "Deprecated since PyTorch 1.9.");
}

TEST(VersionRules, ReferenceToARemovedStubIsNotAFinding) {
  // `torch.symeig` is still an attribute in 2.x (a stub that raises when called).
  EXPECT_TRUE(lint("import torch\nadd_docstr(torch.symeig, \"doc\")\n", "PTL106").empty());
  EXPECT_TRUE(lint("import torch\ntable = {torch.solve: 1}\n", "PTL106", "2.14").empty());
  EXPECT_EQ(lint("import torch\nx = torch.solve(b, a)\n", "PTL106").size(), 1u);
}

TEST(VersionRules, DeprecationsDatedByTheOldestReleaseReadSaySo) {
  auto ger = lint("import torch\ny = torch.ger(a, b)\n", "PTL106");
  ASSERT_EQ(ger.size(), 1u);
  EXPECT_TRUE(has(ger[0].help, "since PyTorch 1.13 or earlier")) << ger[0].help;
  auto qr = lint("import torch\ny = torch.qr(a)\n", "PTL106");
  ASSERT_EQ(qr.size(), 1u);
  EXPECT_TRUE(has(qr[0].message, "use `torch.linalg.qr` (judged for torch >=2.6)")) << qr[0].message;
  EXPECT_TRUE(has(qr[0].help, "since PyTorch 1.9")) << qr[0].help;
}

TEST(VersionRules, RenamedDynamoLimitDocsSayOldReleasesRaise) {
  const rules::Rule* rule = rules::findRule("PTL103");
  ASSERT_NE(rule, nullptr);
  std::string docs(rule->meta().docs);
  EXPECT_TRUE(has(docs, "AttributeError")) << docs;
  EXPECT_FALSE(has(docs, "unused module attribute")) << docs;
}

TEST(VersionRules, ProfilerUseCudaIsAnErrorWhereTheRangeReachesItsRemoval) {
  auto found = lint("import torch\nwith torch.profiler.profile(use_cuda=True):\n    pass\n", "PTL113");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, rules::Severity::Error);
  EXPECT_TRUE(has(found[0].message, "removed in PyTorch 2.14")) << found[0].message;
  rules::Settings settings;
  settings.select = {"PTL113"};
  settings.setTorchRange(*rules::TorchRange::parse(">=2.4,<2.9"));
  auto old = rules::lintFile(analysis::ParsedFile::parse("import torch\nwith torch.profiler.profile(use_cuda=True):\n    pass\n"),
                             settings)
                 .diagnostics;
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].severity, rules::Severity::Warning);
  EXPECT_FALSE(has(old[0].message, "removed")) << old[0].message;
}

TEST(VersionRules, TorchScriptIsSilentForARangeThatEndsBeforeItsDeprecation) {
  rules::Settings settings;
  settings.select = {"PTL112"};
  settings.setTorchRange(*rules::TorchRange::parse(">=2.1,<2.9"));
  auto found = rules::lintFile(analysis::ParsedFile::parse("import torch\nm = torch.jit.script(model)\n"), settings).diagnostics;
  EXPECT_TRUE(found.empty());
  EXPECT_EQ(lint("import torch\nm = torch.jit.script(model)\n", "PTL112").size(), 1u);
}

TEST(VersionRules, LocalRankIsSilentWhenEveryReleasePassesTheUnderscoredSpelling) {
  const std::string source =
      "import argparse\np = argparse.ArgumentParser()\np.add_argument(\"--local_rank\", type=int)\n"
      "args = p.parse_args()\nprint(args.local_rank)\n";
  rules::Settings settings;
  settings.select = {"PTL303"};
  settings.setTorchRange(*rules::TorchRange::parse(">=1.12,<2.0"));
  EXPECT_TRUE(rules::lintFile(analysis::ParsedFile::parse(source), settings).diagnostics.empty());
  EXPECT_EQ(lint(source, "PTL303").size(), 1u);
}

TEST(VersionRules, LegacyTf32MixedWithFp32PrecisionIsAnError) {
  auto alone = lint("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", "PTL111", "2.9");
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].severity, rules::Severity::Warning);
  auto mixed = lint("import torch\ntorch.backends.cudnn.conv.fp32_precision = \"tf32\"\n"
                    "if torch.backends.cudnn.allow_tf32:\n    pass\n",
                    "PTL111", "2.9");
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].severity, rules::Severity::Error);
  EXPECT_TRUE(has(mixed[0].help, "mix of the legacy and new APIs")) << mixed[0].help;
  // Below 2.9 the new settings do not exist (AttributeError): nothing to migrate to.
  EXPECT_TRUE(lint("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", "PTL111", "2.8").empty());
}

}  // namespace

// Every version-gated finding names the range it was judged for.
TEST(VersionRules, MessagesNameTheRangeJudged) {
  struct Case {
    const char* source;
    const char* code;
    const char* version;
  } cases[] = {
      {"import torch\ns = torch.cuda.amp.GradScaler()\n", "PTL101", "2.4"},
      {"import torch\ny = torch.qr(a)\n", "PTL106", "2.4"},
      {"from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x)\n", "PTL108", "2.4"},
      {"import torch\nm = torch.load('m.pt')\n", "PTL801", "2.4"},
      {"import torch._dynamo\ntorch._dynamo.config.cache_size_limit = 8\n", "PTL103", "2.7"},
      {"from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\nm = FSDP(model)\n", "PTL302", "2.6"},
      {"import torch\nfrom torch.nn.attention import sdpa_kernel, SDPBackend\nwith sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n"
       "    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)\n",
       "PTL602", "2.6"},
  };
  for (const auto& c : cases) {
    auto found = lint(c.source, c.code, c.version);
    ASSERT_EQ(found.size(), 1u) << c.code;
    EXPECT_TRUE(has(found[0].message, std::string(" (judged for torch >=") + c.version + ")")) << found[0].message;
  }
}

// Every rule's documentation says which releases its premise and its fix depend on.
TEST(VersionRules, EveryRuleDocumentsItsReleases) {
  for (const rules::RuleMeta* meta : rules::allMetas()) {
    EXPECT_TRUE(has(std::string(meta->docs), "\n## Releases\n")) << meta->code;
  }
}

// PTL601's fix titles name the release the rewrite needs and the range it was judged for.
TEST(VersionRules, AttentionFixTitlesNameTheReleaseTheyNeed) {
  std::string source = test_files::readFile(std::string(PTLINT_FIXTURES_DIR) + "/attention/PTL601.py");
  int with_scale = 0, without = 0;
  for (const auto& d : lint(source, "PTL601", "2.1")) {
    if (!d.fix) continue;
    EXPECT_TRUE(has(d.fix->message, "; judged for torch >=2.1)")) << d.fix->message;
    if (has(d.fix->message, "(`scale=`: PyTorch 2.1+;")) ++with_scale;
    if (has(d.fix->message, "(PyTorch 2.0+;")) ++without;
  }
  EXPECT_GT(with_scale, 0);
  EXPECT_GT(without, 0);
}
