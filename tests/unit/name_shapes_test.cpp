// The byte-level name questions the prefilters ask (analysis/name_shapes.h): each answer may err
// towards "it may", never the other way.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "analysis/code_text.h"
#include "analysis/compiled_regions.h"
#include "analysis/name_shapes.h"

using namespace ptlint::analysis;

namespace {

TEST(NameShapes, ReboundOnlyByAliasesThatCanBeTorchs) {
  EXPECT_FALSE(mayBeRebound("import re\np = re.compile('x')\n", "re"));
  EXPECT_FALSE(mayBeRebound("import numpy as np\nnp.meshgrid(a, b)\n", "np"));
  EXPECT_FALSE(mayBeRebound("t = make_tensor(shape)\nt.softmax(-1)\n", "t"));
  EXPECT_FALSE(mayBeRebound("f(group=group)\ndef g(group: ProcessGroup = None): pass\n", "group"));
  EXPECT_FALSE(mayBeRebound("key = lambda t: t.size(dim=1)\n", "t"));
  // A constant is no name: `group=None` closing a line of a signature, `t = None`.
  EXPECT_FALSE(mayBeRebound("def f(x,\n      group=None\n):\n    group._reduce_scatter_base(x)\n", "group"));
  EXPECT_FALSE(mayBeRebound("t = None\nu = True\n", "t"));
  EXPECT_TRUE(mayBeRebound("t = None\nt = torch\n", "t"));
  EXPECT_TRUE(mayBeRebound("t = Nonesuch\n", "t"));
  EXPECT_TRUE(mayBeRebound("import torch as re\n", "re"));
  EXPECT_TRUE(mayBeRebound("from torch.nn import functional as np\n", "np"));
  EXPECT_TRUE(mayBeRebound("import os, torch.nn.functional as F\n", "F"));
  EXPECT_TRUE(mayBeRebound("re = torch\n", "re"));
  EXPECT_TRUE(mayBeRebound("a = re = torch.nn\n", "re"));
  EXPECT_TRUE(mayBeRebound("re: Any = torch\n", "re"));
  EXPECT_TRUE(mayBeRebound("if (re := torch):\n    pass\n", "re"));
  EXPECT_TRUE(mayBeRebound("re = (torch)\n", "re"));
  EXPECT_TRUE(mayBeRebound("re = torch.\\\n    nn\n", "re"));
  EXPECT_TRUE(mayBeRebound("with open(p) as re:\n    pass\n", "re"));
  // Any import alias counts when asked so.
  EXPECT_TRUE(mayBeRebound("import numpy as np\n", "np", /*torch_imports_only=*/false));
}

TEST(NameShapes, Receivers) {
  auto at = [](std::string_view code, std::string_view word) { return receiverOf(code, code.find(word)); };
  EXPECT_EQ(at("F.softmax(x)", "softmax").kind, Receiver::Kind::Name);
  EXPECT_EQ(at("F . softmax(x)", "softmax").name, "F");
  EXPECT_EQ(at("softmax(x)", "softmax").kind, Receiver::Kind::None);
  EXPECT_EQ(at("torch.nn.functional.softmax(x)", "softmax").kind, Receiver::Kind::Other);
  EXPECT_EQ(at("(F).softmax(x)", "softmax").kind, Receiver::Kind::Other);
  EXPECT_EQ(at("(-x).softmax(1)", "softmax").kind, Receiver::Kind::Unresolved);
  EXPECT_EQ(at("f(x).softmax(1)", "softmax").kind, Receiver::Kind::Unresolved);
  EXPECT_EQ(at("x[0].softmax(1)", "softmax").kind, Receiver::Kind::Unresolved);
}

TEST(NameShapes, CallArguments) {
  auto args = [](std::string_view code, std::string_view keyword) { return callArguments(code, code.find('('), keyword); };
  EXPECT_TRUE(args("F.softmax(x, dim=-1)", "dim").has_keyword);
  EXPECT_EQ(args("F.softmax(x, -1)", "dim").positional, 2u);
  EXPECT_EQ(args("F.softmax(g(x, y))", "dim").positional, 1u);
  EXPECT_EQ(args("F.softmax(x, dtype=t)", "dim").positional, 1u);
  EXPECT_FALSE(args("F.softmax(x, dtype=t)", "dim").has_keyword);
  EXPECT_FALSE(args("F.softmax(x == y, -1)", "dim").has_keyword);
  EXPECT_FALSE(args("F.softmax(*xs)", "dim").complete);
  EXPECT_FALSE(args("F.softmax(f\"{a},\", 1)", "dim").complete);  // an f-string's commas
  EXPECT_FALSE(args("F.softmax(x, 1", "dim").complete);
}

bool mayCompile(std::string text, std::vector<std::string> decorators = {}) {
  PrefilterText source(text);
  std::vector<std::string_view> words{"compile", "optimize"};
  for (const auto& d : decorators) words.push_back(std::string_view(d).substr(d.rfind('.') + 1));
  return CompiledRegions::mayCompileAnythingInCode(source, words, decorators);
}

TEST(NameShapes, CompileWordsThatCanNameTorchs) {
  EXPECT_FALSE(mayCompile("import re\nPATTERN = re.compile(r'x')\n"));
  EXPECT_FALSE(mayCompile("import torchdynamo\nrun = torchdynamo.optimize('eager')(run)\n"));
  EXPECT_FALSE(mayCompile("code = compile(src, 'f', 'exec')\n"));
  EXPECT_FALSE(mayCompile("def compile(self):\n    pass\n"));
  EXPECT_TRUE(mayCompile("import torch\nmodel = torch.compile(model)\n"));
  EXPECT_TRUE(mayCompile("from torch import compile\n"));
  EXPECT_TRUE(mayCompile("import torch as re\nf = re.compile(f)\n"));
  EXPECT_TRUE(mayCompile("import torch._dynamo as dynamo\nf = dynamo.optimize('eager')(f)\n"));
  EXPECT_TRUE(mayCompile("from torch import compiler\nf = compiler.compile(f)\n"));
  EXPECT_TRUE(mayCompile("import torch\nf = torch.\\\n    compile(f)\n"));
  // A configured decorator spelled `compile` counts wherever it is named.
  EXPECT_TRUE(mayCompile("import mylib\n@mylib.compile\ndef f(x): pass\n", {"mylib.compile"}));
}

}  // namespace

TEST(NameShapes, MayCallWithPositional) {
  using ptlint::analysis::mayCallWithPositional;
  EXPECT_TRUE(mayCallWithPositional("torch.load(f, None, pickle)", "load", 3));
  // The code view: a plain string's contents are blanks.
  EXPECT_FALSE(mayCallWithPositional("torch.load(f, map_location='   ', mmap=True)", "load", 3));
  EXPECT_FALSE(mayCallWithPositional("tl.load(p + o, mask=m, other=0.0)", "load", 3));
  EXPECT_FALSE(mayCallWithPositional("json.load(f)\ndef load(a, b, c):\n    pass\n", "load", 3));
  EXPECT_TRUE(mayCallWithPositional("torch.load(\n    f,\n    None,\n    pickle,\n)", "load", 3));
  // Brackets and keywords inside an argument are its own.
  EXPECT_FALSE(mayCallWithPositional("torch.load(g(a, b, c=1), x[1, 2])", "load", 3));
  // Positional arguments unpacked after a keyword count.
  EXPECT_TRUE(mayCallWithPositional("torch.load(f, None, map_location=m, *rest)", "load", 3));
  // A lambda's commas and defaults, a prefixed string, a call left open: not counted, let through.
  EXPECT_TRUE(mayCallWithPositional("torch.load(f, lambda s, loc=None: s)", "load", 3));
  EXPECT_TRUE(mayCallWithPositional("torch.load(f'{a}(')", "load", 3));
  EXPECT_TRUE(mayCallWithPositional("torch.load(f, a", "load", 3));
  // Bound to another name: an import, an alias.
  EXPECT_TRUE(mayCallWithPositional("from torch import load as L\n", "load", 3));
  EXPECT_TRUE(mayCallWithPositional("from torch import nn, load\n", "load", 3));
  EXPECT_TRUE(mayCallWithPositional("L = torch.load\n", "load", 3));
  EXPECT_FALSE(mayCallWithPositional("x.loader(a, b, c)\n", "load", 3));
  EXPECT_TRUE(mayCallWithPositional("F.scaled_dot_product_attention(q, k, v, None, 0.1)", "scaled_dot_product_attention", 5));
  EXPECT_FALSE(mayCallWithPositional("F.scaled_dot_product_attention(q, k, v, is_causal=True)", "scaled_dot_product_attention", 5));
}
