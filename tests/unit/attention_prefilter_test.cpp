// PTL601's pre-parse test (`attention::codeMayHoldCandidates`) must never hide a candidate the
// attention index finds after parsing: on every fixture and on each form below, a file whose
// index has a candidate passes the test. And it must reject what only mentions a softmax.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_files.h"
#include "analysis/code_text.h"
#include "analysis/parse.h"
#include "rules/attention/attention_flow.h"

using namespace ptlint;

namespace {

// The index as the rule builds it (its words looked for in the code view), which must agree with
// one that looks for them in the whole text.
bool indexHasCandidates(const std::string& text) {
  auto file = analysis::ParsedFile::parse(text);
  bool in_code = rules::attention::AttentionIndex(file.root(), file.text(), analysis::codeOrText(file)).hasCandidates();
  bool in_text = rules::attention::AttentionIndex(file.root(), file.text(), file.text()).hasCandidates();
  EXPECT_EQ(in_code, in_text) << text;
  return in_code;
}

bool prefilterPasses(const std::string& text) {
  auto code = analysis::blankStringsAndComments(text);
  return !code || rules::attention::codeMayHoldCandidates(*code);
}

TEST(AttentionPrefilter, EveryProductFormPasses) {
  const char* forms[] = {
      "def f(q, k, v):\n    return (q @ k.transpose(-2, -1)).softmax(-1) @ v\n",
      "def f(q, k, v):\n    a = torch.matmul(q, k.transpose(-2, -1))\n    return F.softmax(a, -1)\n",
      "def f(q, k, v):\n    a = q.bmm (k)\n    return a.softmax(-1)\n",
      "def f(q, k, v):\n    a = torch.einsum\\\n('bhid,bhjd->bhij', q, k)\n    return a.softmax(-1)\n",
      // black puts a broken line's operator first, with a space after it
      "def f(q, k, v):\n    s = (\n        q\n        @ k.transpose(-2, -1)\n    )\n    return s.softmax(-1)\n",
      // a line-start `@name` inside brackets, and after a `\\` continuation
      "def f(q, k, v):\n    s = (q\n@k)\n    return s.softmax(-1)\n",
      "def f(q, k, v):\n    s = q \\\n@k\n    return s.softmax(-1)\n",
      "def f(q, k, v):\n    s = q\n    s @= k\n    return torch.softmax(s, -1) @ v\n",
      // a class naming `Softmax` in `__init__` (one string in two lines)
      ("class A(nn.Module):\n    def __init__(self):\n        self.attend = nn.Softmax(dim=-1)\n"
       "    @property\n    def x(self): return 1\n    def forward(self, q, k):\n        return self.attend(q @ k)\n"),
  };
  for (const char* form : forms) {
    EXPECT_TRUE(indexHasCandidates(form)) << form;
    EXPECT_TRUE(prefilterPasses(form)) << form;
  }
  // A product after a lambda's body, or in an f-string, still counts.
  const char* after_lambda[] = {
      "def f(q, k):\n    g = lambda x: x\n    return F.softmax(q @ k, -1)\n",
      "def f(q, k):\n    g = (lambda x: x), q @ k\n    return F.softmax(g, -1)\n",
      "def f(q, k):\n    g = [lambda: x for x in q] + [q @ k]\n    return F.softmax(g, -1)\n",
      "def f(q, k):\n    g = {1: lambda: 1, 2: torch.matmul(q, k)}\n    return F.softmax(g, -1)\n",
      "def f(q, k):\n    s = f\"{q @ k}\"\n    return F.softmax(q @ k, -1)\n",
      // the function's own text, its nested ones', its class's `Softmax`, the module's products
      "def f(q, k):\n    def g(x):\n        return x.softmax(-1)\n    return g(q @ k)\n",
      "def f(q, k):\n    s = (q @\n  k)\n    return s.softmax(-1)\n",
      "def f(q, k):\n    s = q @ k\n    \\\nx = 1\n    return s.softmax(-1)\n",
      "class A:\n    m = nn.Softmax(-1)\n    def f(self, q, k):\n        return self.m(q @ k)\n",
      "def f(x):\n    return x.softmax(-1)\ny = torch.bmm(a, b)\n",
      "def f(x):\n\treturn x @ y\ndef g(x):\n    return x.softmax(-1)\n",
      // ... unless a lambda, a class or an f-string may hold the name
      "def f(q, k):\n    g = lambda: F.scaled_dot_product_attention\n    return (q @ k).softmax(-1)\n",
      "def f(q, k):\n    s = f\"F.scaled_dot_product_attention\"\n    return (q @ k).softmax(-1)\n",
  };
  for (const char* form : after_lambda) EXPECT_TRUE(prefilterPasses(form)) << form;
}

TEST(AttentionPrefilter, MentionsWithoutProductsAreRejected) {
  const char* forms[] = {
      // decorators and a softmax, no product
      "@torch.no_grad()\ndef f(x):\n    return x.softmax(-1)\n",
      "class A:\n    @staticmethod\n    def f(x):\n        return F.softmax(x, -1)\n",
      // product words that are not calls
      "ops = [torch.matmul, torch.bmm, torch.softmax]\n",
      "def bmm(g, a, b):\n    return g.op('MatMul', a, b)\ndef softmax(g, x):\n    return x\n",
      // the softmax only in strings and comments
      "def f(q, k):\n    \"\"\"softmax(q @ k)\"\"\"\n    return q @ k  # no softmax here\n",
      "names = {'softmax': 1}\nx = a @ b\n",
      // products in lambdas, which own no candidate; an f-string's brackets do not count
      "y = F.softmax(x, -1)\nops = dict(op=lambda a, b, **kw: torch.svd_lowrank(a @ b.mT, **kw),\n"
      "           ref=lambda a, b: np.add(a,\n                                   np.matmul(a, b)))\n",
      "def f(x, lo):\n    err = rf\"got {lo}\\)\"\n    return F.softmax(x, -1)\n@dec\ndef g(): pass\n",
      // products in functions that name no softmax
      "def bmm(g, a, b):\n    return g.op('MatMul', a, b)\ndef mm(g, a, b):\n    return bmm(g, a, b)\n"
      "def softmax(g, x, dim):\n    return g.op('Softmax', x)\n",
      "class A:\n    def f(self, a, b):\n        return a @ b\n\n    def g(self, x):\n        return x.softmax(-1)\n",
      "async def f(a, b):\n    return torch.matmul(a,\nb)\ndef g(x):\n    return F.softmax(x, -1)\n",
      // a function that names scaled_dot_product_attention has it already
      "def _scaled_dot_product_attention(q, k, v):\n    a = torch.bmm(q, k)\n    a = softmax(a, dim=-1)\n"
      "    return torch.bmm(a, v)\n",
      "def mha(q, k, v, need_weights):\n    if need_weights:\n        assert q, f\"got {q.shape}\"\n"
      "        return softmax(torch.bmm(q, k), dim=-1)\n    return F.scaled_dot_product_attention(q, k, v)\n",
  };
  for (const char* form : forms) {
    EXPECT_FALSE(indexHasCandidates(form)) << form;
    EXPECT_FALSE(prefilterPasses(form)) << form;
  }
}

TEST(AttentionPrefilter, NeverHidesAFixtureCandidate) {
  int with_candidates = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(PTLINT_FIXTURES_DIR)) {
    if (entry.path().extension() != ".py") continue;
    std::string text = test_files::readFile(entry.path());
    if (!indexHasCandidates(text)) continue;
    ++with_candidates;
    EXPECT_TRUE(prefilterPasses(text)) << entry.path();
  }
  EXPECT_GT(with_candidates, 5);  // the PTL601 fixtures do have candidates
}

}  // namespace
