// PTL601's rewrite: `scale=` only for a provable Python number, a tensor scale folded into the
// query only when that is exact, and a reason in the help whenever no fix is offered.
#include <gtest/gtest.h>

#include <string>

#include "quickfix/fix.h"
#include "rules/linter.h"

using namespace ptlint;

namespace {

struct Outcome {
  std::string message;
  std::string fixed;  // the file after the fix; empty when none is offered
  std::string help;   // why no fix is offered
};

Outcome lint(const std::string& source, const char* torch_version = "2.4") {
  auto file = analysis::ParsedFile::parse(source);
  rules::Settings settings;
  settings.select = {"PTL601"};
  settings.unsafe_fixes = true;
  settings.torch_version = *rules::TorchVersion::parse(torch_version);
  auto result = rules::lintFile(file, settings);
  EXPECT_EQ(result.diagnostics.size(), 1u) << source;
  if (result.diagnostics.empty()) return {};
  const auto& d = result.diagnostics.front();
  Outcome out{d.message, "", d.help};
  if (d.fix) out.fixed = quickfix::applyEdits(source, d.fix->edits, "\n");
  return out;
}

const char* kHeader = "import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n";

std::string member(const std::string& init_params, const std::string& init_body) {
  return std::string(kHeader) + "class A(nn.Module):\n    def __init__(self, " + init_params + "):\n        super().__init__()\n" +
         init_body +
         "    def forward(self, q, k, v):\n"
         "        attn = q @ k.transpose(2, 3) * self.scale\n"
         "        return attn.softmax(dim=-1) @ v\n";
}

TEST(Ptl601Fix, ScaleFromParameterWithIntDefaultIsANumber) {
  auto o = lint(member("dim_head=64", "        self.scale = dim_head ** -0.5\n"));
  EXPECT_NE(o.fixed.find("F.scaled_dot_product_attention(q, k, v, scale=self.scale)"), std::string::npos) << o.fixed;
}

TEST(Ptl601Fix, ScaleFromAnnotatedOrLayerSizedParameterIsANumber) {
  auto annotated = lint(member("dim: int, heads: int = 8", "        self.scale = (dim // heads) ** -0.5\n"));
  EXPECT_NE(annotated.fixed.find("scale=self.scale)"), std::string::npos) << annotated.message;
  // `dim` sizes an nn.Linear: a tensor there would raise, so it is an int.
  auto sized = lint(member("dim, qk_scale=None", "        self.proj = nn.Linear(dim, dim * 3)\n"
                                                 "        self.scale = qk_scale or dim ** -0.5\n"));
  EXPECT_NE(sized.fixed.find("scale=self.scale)"), std::string::npos) << sized.message;
}

TEST(Ptl601Fix, ScaleFromUntypedParameterIsNotProvable) {
  auto o = lint(member("head_dim", "        self.scale = head_dim ** -0.5\n"));
  EXPECT_TRUE(o.fixed.empty());
  EXPECT_NE(o.help.find("No fix: the scale `self.scale` is not provably a Python number"), std::string::npos)
      << o.help;
}

TEST(Ptl601Fix, PerHeadParameterIsFoldedIntoTheQuery) {
  // timm edgenext: `scale=self.temperature` would raise (scale takes a float) and stop the
  // temperature from learning; folding it into q keeps both.
  auto o = lint(member("heads=8", "        self.scale = nn.Parameter(torch.ones(heads, 1, 1))\n"));
  EXPECT_NE(o.fixed.find("F.scaled_dot_product_attention(q * self.scale, k, v, scale=1.0)"), std::string::npos) << o.fixed;
  auto old = lint(member("heads=8", "        self.scale = nn.Parameter(torch.ones(heads, 1, 1))\n"), "2.0");
  EXPECT_TRUE(old.fixed.empty());
  EXPECT_NE(old.help.find("needs PyTorch 2.1"), std::string::npos) << old.help;
}

TEST(Ptl601Fix, LocalReshapedToEndInOneIsFolded) {
  // timm swin_transformer_v2_cr: a per-head logit scale reshaped to (1, heads, 1, 1).
  auto o = lint(std::string(kHeader) +
                "class A(nn.Module):\n"
                "    def __init__(self, heads=8):\n"
                "        super().__init__()\n"
                "        self.heads = heads\n"
                "        self.logit_scale = nn.Parameter(torch.empty(heads))\n"
                "    def forward(self, q, k, v):\n"
                "        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(2, 3)\n"
                "        logit_scale = torch.clamp(self.logit_scale.reshape(1, self.heads, 1, 1), max=4.6).exp()\n"
                "        attn = attn * logit_scale\n"
                "        return attn.softmax(dim=-1) @ v\n");
  EXPECT_NE(o.fixed.find("F.scaled_dot_product_attention(F.normalize(q, dim=-1) * logit_scale, F.normalize(k, dim=-1), v, "
                         "scale=1.0)"),
            std::string::npos)
      << o.message << o.fixed;
}

TEST(Ptl601Fix, TensorVaryingAlongKeysIsNotFolded) {
  auto o = lint(member("heads=8", "        self.scale = nn.Parameter(torch.ones(heads, 1, 16))\n"));
  EXPECT_TRUE(o.fixed.empty());
  EXPECT_NE(o.help.find("not provably a Python number"), std::string::npos) << o.help;
}

TEST(Ptl601Fix, ParameterScaleNeverBecomesTheScaleKeyword) {
  auto o = lint(std::string(kHeader) +
                "def f(q, k, v, t):\n"
                "    return F.softmax(q @ k.transpose(2, 3) * t, dim=-1) @ v\n");
  EXPECT_TRUE(o.fixed.empty());
  auto local = lint(std::string(kHeader) +
                    "def f(q, k, v):\n"
                    "    scale = 1 / math.sqrt(64)\n"
                    "    return F.softmax(q @ k.transpose(2, 3) * scale, dim=-1) @ v\n");
  EXPECT_NE(local.fixed.find("scale=scale)"), std::string::npos) << local.message;
}

TEST(Ptl601Fix, OnlyProvably4DOperandsGetAFix) {
  // Every fused kernel needs 4-D operands; with 3-D ones (bmm) or ranks the code does not show,
  // SDPA runs its math path.
  auto three = lint(std::string(kHeader) +
                    "def f(q, k, v):\n"
                    "    s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.size(-1))\n"
                    "    return torch.bmm(s.softmax(dim=-1), v)\n");
  EXPECT_TRUE(three.fixed.empty());
  EXPECT_NE(three.help.find("q, k and v are 3-D"), std::string::npos) << three.help;
  auto unknown = lint(std::string(kHeader) +
                      "def f(q, k, v):\n"
                      "    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
                      "    return s.softmax(dim=-1) @ v\n");
  EXPECT_TRUE(unknown.fixed.empty());
  EXPECT_NE(unknown.help.find("not provably 4-D"), std::string::npos) << unknown.help;
}

TEST(Ptl601Fix, AdditiveMaskTakesTheQueryDtype) {
  auto o = lint(std::string(kHeader) +
                "def f(q, k, v, bias):\n"
                "    s = q @ k.transpose(2, 3) / math.sqrt(q.size(-1)) + bias\n"
                "    return s.softmax(dim=-1) @ v\n");
  EXPECT_NE(o.fixed.find("F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype))"), std::string::npos)
      << o.message << o.fixed;
}

TEST(Ptl601Fix, ModelWidthScaleIsNotTheDefault) {
  // `dim ** -0.5` with `dim // heads` channels per head is not 1/sqrt(q.size(-1)): before 2.1
  // (no `scale=`) there is no fix, from 2.1 the scale is passed.
  std::string code = member("dim: int, heads: int = 8", "        self.scale = dim ** -0.5\n");
  auto old = lint(code, "2.0");
  EXPECT_TRUE(old.fixed.empty()) << old.fixed;
  auto recent = lint(code);
  EXPECT_NE(recent.fixed.find("scale=self.scale)"), std::string::npos) << recent.message;
}

TEST(Ptl601Fix, SoftCappingPointsToFlexAttention) {
  auto o = lint(std::string(kHeader) +
                "def f(q, k, v):\n"
                "    s = q @ k.mT / math.sqrt(q.size(-1))\n"
                "    s = 50.0 * torch.tanh(s / 50.0)\n"
                "    return s.softmax(dim=-1) @ v\n",
                "2.5");  // flex_attention's first release
  EXPECT_TRUE(o.fixed.empty());
  EXPECT_NE(o.message.find("tanh soft-capping"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("flex_attention"), std::string::npos) << o.message;
}

TEST(Ptl601Fix, VisiblyDifferentRanksGetNoFix) {
  auto o = lint(std::string(kHeader) +
                "def f(x, k, v, b, t):\n"
                "    q = x.view(b, t, 8, 16).transpose(1, 2)\n"
                "    v = v.view(b, t, 128)\n"
                "    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
                "    return s.softmax(dim=-1) @ v\n");
  EXPECT_TRUE(o.fixed.empty());
  EXPECT_NE(o.help.find("different ranks (4, ?, 3)"), std::string::npos) << o.help;
}

TEST(Ptl601Fix, KeysStoredTransposedAndValuesTimesWeightsTransposed) {
  auto o = lint(std::string(kHeader) +
                "def f(x, y, v):\n"
                "    q = x.transpose(2, 1)\n"
                "    k = y.permute(0, 2, 3, 1)\n"
                "    w = (q @ k).softmax(dim=-1)\n"
                "    return v @ w.transpose(-2, -1)\n");
  EXPECT_NE(o.fixed.find("F.scaled_dot_product_attention(q, k.transpose(-2, -1), v.transpose(-2, -1), scale=1.0)"
                         ".transpose(-2, -1)"),
            std::string::npos)
      << o.fixed;
}

TEST(Ptl601Fix, KeysWithoutEvidentLayoutAreNotAttention) {
  auto file = analysis::ParsedFile::parse(std::string(kHeader) +
                                          "def f(q, k, v):\n"
                                          "    return (q @ k).softmax(dim=-1) @ v\n");
  rules::Settings settings;
  settings.select = {"PTL601"};
  EXPECT_TRUE(rules::lintFile(file, settings).diagnostics.empty());
}

}  // namespace
