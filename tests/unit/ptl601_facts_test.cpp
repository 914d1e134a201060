// PTL601 hands the attention pattern it recognised to gpu_check through Diagnostic::attention;
// these tests pin what it recognised on each form.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rules/attention_facts.h"
#include "rules/linter.h"

using namespace ptlint;

namespace {

std::map<std::string, std::string> factsOf(const std::string& source, bool* has_fix = nullptr) {
  auto file = analysis::ParsedFile::parse(source);
  rules::Settings settings;
  settings.select = {"PTL601"};
  settings.unsafe_fixes = true;
  auto result = rules::lintFile(file, settings);
  EXPECT_EQ(result.diagnostics.size(), 1u) << source;
  if (result.diagnostics.empty()) return {};
  if (has_fix != nullptr) *has_fix = result.diagnostics.front().fix.has_value();
  // Rendered as short strings so that each test reads as a table of what was recognised.
  const auto* facts = rules::findingData<rules::AttentionFacts>(result.diagnostics.front());
  EXPECT_TRUE(facts != nullptr);
  if (!facts) return {};
  using F = rules::AttentionFacts;
  auto number = [](double value) { return fmt::format("{:.6g}", value); };
  std::map<std::string, std::string> out;
  switch (facts->scale) {
    case F::Scale::Default: out["scale"] = "default"; break;
    case F::Scale::None: out["scale"] = "none"; break;
    case F::Scale::Value: out["scale"] = number(facts->scale_value); break;
    case F::Scale::Expression: out["scale"] = "unknown"; break;
  }
  const char* masks[] = {"none", "boolean", "additive", "causal"};
  out["mask"] = masks[static_cast<int>(facts->mask)];
  out["dropout"] = facts->dropout ? number(*facts->dropout) : "module";
  out["layout"] = facts->layout == F::Layout::BTD ? "btd" : "bhtd";
  out["softmax_dtype"] = facts->softmax_float32 ? "float32" : "";
  const char* dtypes[] = {"unknown", "float32", "float16", "bfloat16"};
  out["dtype"] = dtypes[static_cast<int>(facts->dtype)];
  return out;
}

TEST(Ptl601Facts, PlainDefaultScale) {
  bool fix = false;
  auto f = factsOf(
      "import math\nimport torch.nn.functional as F\n"
      "def f(q, k, v):\n"
      "    s = q @ k.transpose(2, 3) / math.sqrt(q.size(-1))\n"
      "    return F.softmax(s, dim=-1) @ v\n",
      &fix);
  EXPECT_TRUE(fix);
  EXPECT_EQ(f["scale"], "default");
  EXPECT_EQ(f["mask"], "none");
  EXPECT_EQ(f["dropout"], "0");
  EXPECT_EQ(f["layout"], "bhtd");
  EXPECT_EQ(f["softmax_dtype"], "");
  EXPECT_EQ(f["dtype"], "unknown");
}

TEST(Ptl601Facts, CausalBufferAndDropoutModule) {
  auto f = factsOf(
      "import torch, math\nfrom torch import nn\nimport torch.nn.functional as F\n"
      "class A(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.drop = nn.Dropout(0.1)\n"
      "        self.register_buffer('bias', torch.tril(torch.ones(n, n)))\n"
      "    def forward(self, q, k, v):\n"
      "        T = q.size(-2)\n"
      "        a = q @ k.transpose(-2, -1) * k.size(-1) ** -0.5\n"
      "        a = a.masked_fill(self.bias[:T, :T] == 0, float('-inf'))\n"
      "        a = self.drop(F.softmax(a, dim=-1))\n"
      "        return a @ v\n");
  EXPECT_EQ(f["scale"], "default");
  EXPECT_EQ(f["mask"], "causal");
  EXPECT_EQ(f["dropout"], "0.1");
}

TEST(Ptl601Facts, BooleanMaskLiteralScaleUpcastBmmUnderAutocast) {
  auto f = factsOf(
      "import torch\n"
      "def f(q, k, v, m):\n"
      "    with torch.autocast('cuda', dtype=torch.bfloat16):\n"
      "        s = torch.bmm(q, k.transpose(1, 2)) * 0.125\n"
      "        s = s.masked_fill(m == 0, -1e9)\n"
      "        p = torch.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype)\n"
      "        return torch.bmm(p, v)\n");
  EXPECT_EQ(f["scale"], "0.125");
  EXPECT_EQ(f["mask"], "boolean");
  EXPECT_EQ(f["layout"], "btd");
  EXPECT_EQ(f["softmax_dtype"], "float32");
  EXPECT_EQ(f["dtype"], "bfloat16");
}

TEST(Ptl601Facts, AdditiveMaskNoScaleUnknownScale) {
  auto f = factsOf(
      "import torch.nn.functional as F\n"
      "def f(q, k, v, bias):\n"
      "    return F.softmax(q @ k.mT + bias, dim=-1) @ v\n");
  EXPECT_EQ(f["scale"], "none");
  EXPECT_EQ(f["mask"], "additive");
  auto g = factsOf(
      "import torch.nn.functional as F\n"
      "def f(q, k, v, t):\n"
      "    return F.softmax(q @ k.mT * t, dim=-1) @ v\n");
  EXPECT_EQ(g["scale"], "unknown");
}

TEST(Ptl601Facts, HostileInputsDoNotCrash) {
  for (std::string source : {
           std::string("softmax(@)"),
           std::string("def f(q,k,v):\n    s = s\n    s = s.softmax(-1)\n    return s @ v\n"),
           std::string("def f(q,k,v):\n    return torch.einsum('->', softmax(q), v)\n"),
           std::string("def f(a):\n    return (((a.softmax(-1)))) @ (a @ a.mT)\n"),
       }) {
    auto file = analysis::ParsedFile::parse(source);
    rules::Settings settings;
    settings.select = {"PTL601"};
    (void)rules::lintFile(file, settings);
  }
  std::string deep = "def f(q, k, v):\n    s = q @ k.mT\n";
  for (int i = 0; i < 2000; ++i) deep += "    s = s + b\n";
  deep += "    return s.softmax(-1) @ v\n";
  // Reassignments in branches multiply the paths to explore: the step budget keeps it bounded.
  std::string branchy = "def f(q, k, v, c):\n    s = q @ k.mT\n";
  for (int i = 0; i < 60; ++i) branchy += "    if c:\n        s = s * s\n    else:\n        s = s / s\n";
  branchy += "    return s.softmax(-1) @ v\n";
  rules::Settings settings;
  settings.select = {"PTL601"};
  // 10,000 chained products in a body that names a softmax: one pass, not one per product.
  std::string chained = "import torch\ny = torch.softmax(z, -1)\nx = a";
  for (int i = 0; i < 10000; ++i) chained += " @ a";
  chained += "\n";
  for (const std::string& source : {deep, branchy, chained}) {
    auto file = analysis::ParsedFile::parse(source);
    (void)rules::lintFile(file, settings);
  }
}

}  // namespace
