// The code-only view of a file used by byte-level prefilters: strings and comments blanked,
// offsets kept, and no view at all where the lexing is unsure.
#include <gtest/gtest.h>

#include "analysis/code_text.h"
#include "rules/linter.h"

using ptlint::analysis::blankStringsAndComments;

TEST(CodeText, BlanksCommentsAndPlainStringsKeepingOffsets) {
  std::string text = "x = torch.log(1 + y)  # log(1 + y)\ns = 'log(1 + y)'\nd = \"\"\"a\nlog(1 + y)\"\"\"\n";
  auto code = blankStringsAndComments(text);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->size(), text.size());
  EXPECT_EQ(*code, "x = torch.log(1 + y)              \ns = '          '\nd = \"\"\" \n          \"\"\"\n");
}

TEST(CodeText, PrefixesEscapesAndFStrings) {
  auto code = blankStringsAndComments("a = rb'\\'x' + f\"{torch.log(1 + y)}\" + B\"#\"  # c\n");
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, "a = rb'   ' + f\"{torch.log(1 + y)}\" + B\" \"     \n");
}

TEST(CodeText, UnsureLexingGivesNoView) {
  EXPECT_FALSE(blankStringsAndComments("s = 'open\nx = 1\n").has_value());    // unterminated
  EXPECT_FALSE(blankStringsAndComments("s = '''open\n").has_value());          // unterminated
  EXPECT_FALSE(blankStringsAndComments("s = xyz'a'\n").has_value());           // unknown prefix
  EXPECT_FALSE(blankStringsAndComments("s = f\"{d[\"k\"]}\"\n").has_value());  // nested same quote
}

TEST(CodeText, PrefiltersIgnoreDocstringMentions) {
  ptlint::rules::Settings ptl704;
  ptl704.select = {"PTL704"};
  EXPECT_TRUE(ptlint::rules::cannotMatch("import torch\n\"\"\"Use torch.log(1 + x).\"\"\"\ny = torch.log(x)\n", ptl704));
  EXPECT_FALSE(ptlint::rules::cannotMatch("import torch\n\"\"\"Doc.\"\"\"\ny = torch.log(1 + x)\n", ptl704));
  ptlint::rules::Settings ptl106;
  ptl106.select = {"PTL106"};
  EXPECT_TRUE(ptlint::rules::cannotMatch("import torch\n# torch.symeig(a) is gone\ny = torch.linalg.eigh(a)\n", ptl106));
  EXPECT_FALSE(ptlint::rules::cannotMatch("import torch\ny = torch.symeig(a)\n", ptl106));
}

TEST(CodeText, Ptl704LooksAtEachLogAndMinusOne) {
  ptlint::rules::Settings ptl704;
  ptl704.select = {"PTL704"};
  // `1 +`, `softmax`, `exp`/`sum` and `- 1` all occur, but never as the rule's operands.
  EXPECT_TRUE(ptlint::rules::cannotMatch(
      "import torch\ny = torch.log(x)\nz = f(1 + x)\nw = g(x).softmax(-1)\nv = x.exp().sum()\nu = n - 1\n", ptl704));
  for (const char* site : {"y = torch.log(1 + x)\n", "y = (x + 1).log()\n", "y = x.exp().sum(-1).log()\n",
                           "y = torch.log(F.softmax(x, -1))\n", "y = torch.exp(x) - 1\n", "y = (x.exp()) - 1.0\n"})
    EXPECT_FALSE(ptlint::rules::cannotMatch(std::string("import torch\n") + site, ptl704)) << site;
}

TEST(CodeText, Ptl106NamesAreWholeIdentifiersInCode) {
  ptlint::rules::Settings ptl106;
  ptl106.select = {"PTL106"};
  EXPECT_TRUE(ptlint::rules::cannotMatch("import torch\ny = torch.cholesky_solve(b, u)\n", ptl106));
  EXPECT_FALSE(ptlint::rules::cannotMatch("import torch\ny = torch.cholesky(a)\n", ptl106));
  EXPECT_FALSE(ptlint::rules::cannotMatch("from functorch import vmap\n", ptl106));
}
