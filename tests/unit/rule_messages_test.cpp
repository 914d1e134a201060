// What the core rules say: the message is the user-facing explanation, so its facts are tested.
#include <gtest/gtest.h>

#include "rules/linter.h"
#include "tests/unit/lint_source.h"

using namespace ptlint;

namespace {

using lint_source::has;
using lint_source::lint;

TEST(RuleMessages, BareDeprecatedImportUsedForNothingIsLighter) {
  auto bare = lint("import torch.cuda.amp\n", "PTL101");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_TRUE(has(bare[0].message, "imported but unused")) << bare[0].message;
  EXPECT_TRUE(has(bare[0].help, "Importing the module does not warn")) << bare[0].help;
  auto used = lint("import torch.cuda.amp\nscaler = torch.cuda.amp.GradScaler()\n", "PTL101");
  ASSERT_EQ(used.size(), 2u);
  EXPECT_FALSE(has(used[0].message, "unused")) << used[0].message;
}

TEST(RuleMessages, WorkerGeneratorsNameTheCopiedGeneratorNotTheGlobalStreams) {
  const std::string source =
      "import numpy as np\nimport torch\n"
      "class Crops(torch.utils.data.Dataset):\n"
      "    def __init__(self):\n        self.rng = np.random.default_rng(0)\n"
      "    def __getitem__(self, i):\n        return self.rng.random() + np.random.rand()\n"
      "loader = torch.utils.data.DataLoader(Crops(), num_workers=2)\n";
  auto found = lint(source, "PTL401");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(has(found[0].message, "draws from `self.rng`")) << found[0].message;
  EXPECT_TRUE(has(found[0].help, "`self.rng` (`numpy.random.default_rng`) is created before")) << found[0].help;
  EXPECT_TRUE(has(found[0].message, "with one state in all workers")) << found[0].message;
  ASSERT_EQ(found[0].related.size(), 1u);
  EXPECT_EQ(source.substr(found[0].related[0].start, found[0].related[0].end - found[0].related[0].start),
            "np.random.default_rng(0)");

  const std::string global_only =
      "import numpy as np\nimport torch\n"
      "class Noise(torch.utils.data.Dataset):\n"
      "    def __getitem__(self, i):\n        return np.random.rand()\n"
      "loader = torch.utils.data.DataLoader(Noise(), num_workers=2)\n";
  EXPECT_TRUE(lint(global_only, "PTL401").empty());
  auto old = lint(global_only, "PTL401", "1.8");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_TRUE(has(old[0].message, "before 1.9")) << old[0].message;
}

TEST(RuleMessages, FindUnusedParametersSaysTheCostAndWhenItIsNeeded) {
  auto found = lint("import lightning as L\ntrainer = L.Trainer(strategy=\"ddp_find_unused_parameters_true\")\n",
                    "PTL301");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(has(found[0].message, "walks the autograd graph after every forward")) << found[0].message;
  EXPECT_TRUE(has(found[0].message, "unless the unused set changes")) << found[0].message;
  EXPECT_TRUE(has(found[0].help, "changes between iterations")) << found[0].help;
  EXPECT_FALSE(found[0].fix.has_value());
}

}  // namespace
