// The byte-level prefilter: exact (never hides a finding) and whole-word where a rule says so.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/module_summary.h"
#include "rules/linter.h"
#include "rules/registry.h"

using namespace ptlint;

namespace {

rules::Settings only(std::string code) {
  rules::Settings s;
  s.select = {std::move(code)};
  return s;
}

TEST(Prefilter, WholeWordTriggersIgnoreLookalikeSubstrings) {
  auto ptl101 = only("PTL101");
  EXPECT_TRUE(rules::cannotMatch("example = sample_rate * 2  # ample\n", ptl101));
  EXPECT_TRUE(rules::cannotMatch("ampé = 1\n", ptl101));
  EXPECT_FALSE(rules::cannotMatch("import torch\nwith torch.cuda.amp.autocast(): pass\n", ptl101));
  EXPECT_FALSE(rules::cannotMatch("from torch.cuda import amp\n", ptl101));
  EXPECT_FALSE(rules::cannotMatch("amp", ptl101));
}

TEST(Prefilter, SubstringTriggersStaySubstrings) {
  // PTL201 also reports FSDP's ShardedGradScaler: its trigger is a substring.
  EXPECT_FALSE(rules::cannotMatch("s = ShardedGradScaler()\n", only("PTL201")));
}

TEST(Prefilter, SkippedFilesReallyHaveNoFindings) {
  const char* source = "import torch\nexample = torch.zeros(3)\n";
  rules::Settings all = only("ALL");
  all.ignore = {"PTL000"};
  ASSERT_TRUE(rules::cannotMatch(source, all));
  EXPECT_TRUE(rules::lintFile(analysis::ParsedFile::parse(source), all).diagnostics.empty());
}

TEST(Prefilter, SyntaxErrorRuleNeedsEveryFile) {
  EXPECT_FALSE(rules::cannotMatch("x = 1\n", only("PTL000")));
}

// The declared conditions on the bytes: a word the rule cannot bear (PTL406 is answered by any
// `set_epoch`), a group of which one must occur (PTL202's `backward`), the torch range (PTL606
// from 2.0 on), words the settings choose (PTL801 from 2.6 on) and words that must be code.
TEST(Prefilter, DeclaredConditionsScreenBeforeParsing) {
  auto mayMatch = [](const char* source, const rules::Settings& settings) {
    return !rules::rulesThatMayMatch(source, settings).empty();
  };
  auto ptl406 = only("PTL406");
  const char* sampler = "from torch.utils.data import DistributedSampler\ns = DistributedSampler(ds)\n";
  EXPECT_TRUE(mayMatch(sampler, ptl406));
  EXPECT_FALSE(mayMatch((std::string(sampler) + "s.set_epoch(0)\n").c_str(), ptl406));
  EXPECT_FALSE(mayMatch("# DistributedSampler(ds)\nx = 1\n", ptl406));

  auto ptl202 = only("PTL202");
  const char* autocast = "import torch\nwith torch.autocast('cuda', dtype=torch.float16):\n    y = m(x)\n";
  EXPECT_FALSE(mayMatch(autocast, ptl202));
  EXPECT_TRUE(mayMatch((std::string(autocast) + "y.backward()\n").c_str(), ptl202));
  EXPECT_FALSE(mayMatch((std::string(autocast) + "y.backward()\ns = torch.amp.GradScaler()\n").c_str(), ptl202));

  auto ptl606 = only("PTL606");
  const char* mha = "import torch\nm = torch.nn.MultiheadAttention(8, 2)\ny = m(q, k, v)[0]\n";
  ptl606.torch_version = {2, 0};
  EXPECT_TRUE(mayMatch(mha, ptl606));
  ptl606.torch_version = {1, 13};
  EXPECT_FALSE(mayMatch(mha, ptl606));

  auto ptl801 = only("PTL801");
  const char* load = "import torch\nsd = torch.load(path)\n";
  ptl801.torch_version = {2, 4};
  EXPECT_TRUE(mayMatch(load, ptl801));
  ptl801.torch_version = {2, 6};
  EXPECT_FALSE(mayMatch(load, ptl801));
  EXPECT_TRUE(mayMatch("import torch\nsd = torch.load(path, weights_only=False)\n", ptl801));
}

// The declared conditions on the tree: PTL204 needs identifiers `autocast` and `backward`; the
// bytes let an f-string's text through (the code view keeps f-strings whole), the tree does not.
TEST(Prefilter, WordsInAnFStringPassTheBytesNotTheTree) {
  auto ptl204 = only("PTL204");
  const char* spelled = "import torch\nwith open(p) as f:\n    f.write(f\"autocast backward {x}\")\n";
  auto file = analysis::ParsedFile::parse(spelled);
  EXPECT_FALSE(rules::rulesThatMayMatch(file, ptl204).empty());
  EXPECT_TRUE(rules::lintFile(file, ptl204).diagnostics.empty());
}

// The prefilter of a selection is looked up by the rules' codes plus the words of the rules that
// declare settings-dependent words, so the declaration must say so whenever its words vary, or a
// file would be screened with another file's words.
TEST(Prefilter, RulesWhoseWordsFollowTheSettingsSaySo) {
  std::vector<rules::Settings> variants(5);
  variants[1].compile_decorators = {"my_lib.compiled"};
  variants[2].torch_version = {1, 13};
  variants[3].torch_version = {2, 9};
  auto facts = std::make_shared<analysis::ProjectFacts>();
  facts->compiled.emplace_back();
  variants[4].project = facts;
  int varying = 0;
  for (const rules::Rule* rule : rules::allRules()) {
    rules::Prefilter pre = rule->prefilter();
    bool varies = false;
    for (const auto& settings : variants) varies = varies || pre.wordsFor(settings) != pre.words;
    EXPECT_EQ(varies, pre.wordsDependOnSettings()) << rule->meta().code;
    varying += varies;
  }
  EXPECT_GE(varying, 4);  // PTL501, PTL502, PTL504, PTL801
  // And the screening follows them: PTL501 under a configured decorator passes a file that only
  // spells the decorator.
  auto ptl501 = only("PTL501");
  const char* source = "from my_lib import compiled\n\n@compiled\ndef f(x):\n    return x.item()\n";
  EXPECT_TRUE(rules::rulesThatMayMatch(source, ptl501).empty());
  ptl501.compile_decorators = {"my_lib.compiled"};
  EXPECT_FALSE(rules::rulesThatMayMatch(source, ptl501).empty());
}

// Rules whose trigger words are everywhere in PyTorch's own code let a file through only for the
// shape a finding has.
TEST(Prefilter, CommonWordsPassOnlyInTheShapeAFindingHas) {
  auto mayMatch = [](const char* source, const rules::Settings& settings) {
    return !rules::rulesThatMayMatch(source, settings).empty();
  };
  auto ptl113 = only("PTL113");
  EXPECT_FALSE(mayMatch("import functools\nimport torch\ny = functools.reduce(f, xs)\nz = x.softmax\n", ptl113));
  EXPECT_FALSE(mayMatch("import torch\ndef softmax(x, dim=None):\n    return x\n", ptl113));
  EXPECT_FALSE(mayMatch("import torch\nif x.size_average == 1: pass\n", ptl113));
  EXPECT_FALSE(mayMatch("import torch\nclass L:\n    def __init__(self, size_average=None,\n                 reduce=None): pass\n",
                        ptl113));
  EXPECT_TRUE(mayMatch("import torch\ndef f(x, y):\n    return F.nll_loss(g(x), y, reduce=False)\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch.nn.functional as F\ny = F.softmax (x)\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch.nn as nn\nm = nn.Softmax\\\n()\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch.nn as nn\nl = nn.MSELoss(reduce =False)\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch\nwith torch.profiler.profile(use_cuda\n=True): pass\n", ptl113));
  // A keyword only in a call that can be a loss's or a profiler's, not a statement `reduce = ...`.
  EXPECT_FALSE(mayMatch("import torch\nclass L(M):\n    def f(self):\n        super().__init__(size_average=None, reduce=None)\n",
                        ptl113));
  EXPECT_FALSE(mayMatch("import torch\nreduce = op.__name__\ny = x.scatter_reduce_(0, i, v, reduce=reduce)\n", ptl113));
  EXPECT_FALSE(mayMatch("import torch\nself.use_cuda = False\nf()(use_cuda=True)\n", ptl113));
  EXPECT_TRUE(mayMatch("from torch.nn import MSELoss as L\nl = L(\n    reduce=False)\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch\nl = torch.nn.modules.loss.L1Loss(x, size_average=[(1)])\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch.nn.functional as F\ny = F.kl_div(a, b, reduce=False)\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch\nwith torch.autograd.profiler.profile(\n  use_cuda=True): pass\n", ptl113));
  // Brackets that do not balance tell nothing: the file goes through.
  EXPECT_TRUE(mayMatch("import torch\ny = x.scatter_reduce_(0, i, v, reduce=reduce))\n", ptl113));
  // Brackets in an f-string's text are not the code's own; a keyword inside its `{...}` counts.
  EXPECT_FALSE(mayMatch("import torch\nreduce = op.name\nerr = rf\"\\[{lo}, {hi}\\)\"\n", ptl113));
  EXPECT_FALSE(mayMatch("import torch\nerr = f'got ({lo}'\nreduce = op.name\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch.nn as nn\nerr = f'({nn.MSELoss(reduce=False)}'\n", ptl113));
  EXPECT_TRUE(mayMatch("import torch.nn as nn\nerr = f'(' + str(nn.MSELoss(reduce=False))\n", ptl113));

  auto ptl112 = only("PTL112");
  EXPECT_FALSE(mayMatch("import torch\nif torch.jit.is_scripting(): torch.save(x, f)\n", ptl112));
  EXPECT_TRUE(mayMatch("import torch\nm = torch.jit.script(f)\n", ptl112));
  EXPECT_TRUE(mayMatch("import torch\nm = torch.jit._script.script(f)\n", ptl112));
  EXPECT_TRUE(mayMatch("import torch.jit as J\nm = J.trace(f, x)\n", ptl112));
  EXPECT_TRUE(mayMatch("from torch.jit import load as jl\nm = jl(p)\ntorch.jit.is_scripting()\n", ptl112));
  EXPECT_TRUE(mayMatch("from ._script import script\ntorch.jit.is_scripting()\nscript(f)\n", ptl112));

  // PTL111 is silent below the release that has `fp32_precision`: nothing to parse for it there.
  auto ptl111 = only("PTL111");
  ptl111.torch_version = {2, 9};
  EXPECT_FALSE(mayMatch("import torch\ndef conv(x, allow_tf32=True): pass\n", ptl111));
  EXPECT_TRUE(mayMatch("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", ptl111));
  EXPECT_TRUE(mayMatch("import torch\ntorch.set_float32_matmul_precision(\"high\")\n", ptl111));
  ptl111.torch_version = {2, 6};
  EXPECT_FALSE(mayMatch("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", ptl111));

  // PTL106 reports a reference only as a call or an assigned value: a table of operators, a dict
  // key or an attribute's object runs nothing.
  auto ptl106 = only("PTL106");
  EXPECT_FALSE(mayMatch("import torch\nops = [OpInfo('qr', op=torch.qr), {torch.ger: 1}]\nd = torch.lu.__doc__\n", ptl106));
  EXPECT_FALSE(mayMatch("import torch\nops = [OpInfo('norm', op=torch.norm, ref=x.norm)]\n", ptl106));
  EXPECT_TRUE(mayMatch("import torch\nf = torch.qr\n", ptl106));
  EXPECT_TRUE(mayMatch("import torch\nf = torch.qr; g = 1\n", ptl106));
  EXPECT_TRUE(mayMatch("import torch\ny = torch.qr (a)\n", ptl106));
  EXPECT_TRUE(mayMatch("import torch\ny = f(torch.qr\n      (a))\n", ptl106));
  EXPECT_TRUE(mayMatch("import torch\ny = torch.norm(a)\n", ptl106));
  EXPECT_TRUE(mayMatch("from torch import (qr,\n    lu)\n", ptl106));

  // PTL401, PTL402, PTL404: DataLoader named only in docstrings and comments.
  for (const char* code : {"PTL401", "PTL402", "PTL404"}) {
    auto settings = only(code);
    EXPECT_FALSE(mayMatch("import torch\ndef f(x, pin_memory=True):\n    \"\"\"As DataLoader(ds, num_workers=2, "
                          "prefetch_factor=2).\"\"\"\n    return x.to(d)  # DataLoader\n", settings)) << code;
    EXPECT_TRUE(mayMatch("from torch.utils.data import DataLoader as L\nl = L(ds, num_workers=2, pin_memory=True, "
                         "prefetch_factor=2)\nfor b in l: b.to(d)\n", settings)) << code;
  }

  // PTL704: another module's `log(...)` / `exp(...) - 1` is neither torch's function nor a tensor
  // method (the rule's methods take no argument); torch's, or a name bound to it, is.
  auto ptl704 = only("PTL704");
  EXPECT_FALSE(mayMatch("import numpy as np\ny = np.log(1 + np.exp(b * x)) / b\n", ptl704));
  EXPECT_FALSE(mayMatch("import numpy as np\ny = a * (np.exp(x / a) - 1)\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\ny = torch.log(1 + x)\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch as np\ny = np.log(1 + x)\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\nnp = torch\ny = np.exp(x) - 1\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\ny = (1 + x).log()\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\ny = x.exp() - 1\n", ptl704));
  EXPECT_TRUE(mayMatch("import numpy as np\ny = np.exp(x).exp() - 1\n", ptl704));
  // `1 + x` must be the operand itself, parentheses around it aside.
  EXPECT_FALSE(mayMatch("import torch\ny = ((1 + t) / (1 - t)).log() / 2\n", ptl704));
  EXPECT_FALSE(mayMatch("import torch\ny = torch.log(f(1 + x))\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\ny = torch.log(((1 + x)))\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\ny = ((x + 1.0)).log()\n", ptl704));
  EXPECT_TRUE(mayMatch("import torch\ny = torch.log(1 + x[0] * (y + 2))\n", ptl704));
}

}  // namespace

namespace {

// Debian's libtree-sitter 0.20 corrupts its heap freeing unclosed brackets ~50,000 deep: such a
// file becomes one syntax error instead of a tree, for parse and reparse alike.
TEST(Parse, AbsurdBracketDepthIsASyntaxErrorNotACrash) {
  std::string unclosed = "x = " + std::string(50000, '(');
  auto file = analysis::ParsedFile::parse(unclosed);
  ASSERT_TRUE(file.hasSyntaxErrors());
  EXPECT_EQ(file.text(), unclosed);
  TSInputEdit edit{4, 4, 5, {0, 4}, {0, 4}, {0, 5}};
  auto again = file.reparse("x = 1" + unclosed.substr(4), edit);
  EXPECT_TRUE(again.hasSyntaxErrors());
  auto fine = analysis::ParsedFile::parse("x = " + std::string(20000, '(') + "1" + std::string(20000, ')') + "\n");
  EXPECT_FALSE(fine.hasSyntaxErrors());
}

// A re-parse measures the depth again only when the brackets an edit typed or deleted could take
// it past the limit: typing one more opening bracket, or deleting a closing one, still does.
TEST(Parse, ReparseNoticesAnEditThatNestsTooDeep) {
  auto tooDeep = [](const analysis::ParsedFile& file) {
    return file.hasSyntaxErrors() && file.syntaxErrors().front().message.find("nested more than") != std::string::npos;
  };
  std::string at_limit = "x = " + std::string(30000, '(') + "1" + std::string(30000, ')') + "\n";
  auto file = analysis::ParsedFile::parse(at_limit);
  EXPECT_FALSE(file.hasSyntaxErrors());
  TSInputEdit typed{4, 4, 5, {0, 4}, {0, 4}, {0, 5}};
  auto deeper = file.reparse("x = (" + at_limit.substr(4), typed);
  EXPECT_TRUE(tooDeep(deeper));
  // Below the limit, one closing bracket between two runs of opening ones: deleting it joins them.
  std::string split = "x = " + std::string(20001, '(') + ")" + std::string(10000, '(') + "1" + std::string(30000, ')') + "\n";
  auto below = analysis::ParsedFile::parse(split);
  EXPECT_FALSE(tooDeep(below));
  uint32_t closer = 4 + 20001;
  TSInputEdit deleted{closer, closer + 1, closer, {0, closer}, {0, closer + 1}, {0, closer}};
  std::string joined = split;
  joined.erase(closer, 1);
  EXPECT_TRUE(tooDeep(below.reparse(joined, deleted)));
  // An edit far from the brackets keeps the file as it was.
  TSInputEdit renamed{0, 1, 1, {0, 0}, {0, 1}, {0, 1}};
  EXPECT_FALSE(tooDeep(below.reparse("y" + split.substr(1), renamed)));
}

}  // namespace
