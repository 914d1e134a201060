// The semantic model: every import form, aliases, scopes and shadowing, fallbacks. Each test
// names a piece of source text; the node under test is the smallest one covering it.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"

using namespace ptlint::analysis;

namespace {

class Model {
 public:
  explicit Model(std::string source) : file_(ParsedFile::parse(std::move(source))), model_(file_) {}

  // The smallest named node spanning the `occurrence`-th (0-based) match of `needle`.
  TSNode node(std::string_view needle, int occurrence = 0) const {
    std::string_view text = file_.text();
    size_t pos = text.find(needle);
    for (int i = 0; i < occurrence && pos != std::string_view::npos; ++i) pos = text.find(needle, pos + 1);
    EXPECT_NE(pos, std::string_view::npos) << "no occurrence " << occurrence << " of " << needle;
    if (pos == std::string_view::npos) return ts_node_named_descendant_for_byte_range(file_.root(), 0, 0);
    return ts_node_named_descendant_for_byte_range(file_.root(), static_cast<uint32_t>(pos),
                                                   static_cast<uint32_t>(pos + needle.size()));
  }

  std::string qualified(std::string_view needle, int occurrence = 0) const {
    TSNode n = node(needle, occurrence);
    EXPECT_EQ(model_.text(n), needle) << "the node is " << ts_node_type(n);
    return model_.qualifiedName(n).value_or("<none>");
  }

  const SemanticModel& model() const { return model_; }
  const ParsedFile& file() const { return file_; }

 private:
  ParsedFile file_;
  SemanticModel model_;
};

TEST(SemanticModel, PlainImportBindsTopPackage) {
  Model m("import torch.cuda.amp\ntorch.cuda.amp.autocast()\ntorch.nn.Linear\n");
  EXPECT_EQ(m.qualified("torch.cuda.amp.autocast"), "torch.cuda.amp.autocast");
  EXPECT_EQ(m.qualified("torch.nn.Linear"), "torch.nn.Linear");
}

TEST(SemanticModel, ImportAsAlias) {
  Model m("import torch as T\nT.cuda.amp.autocast()\n");
  EXPECT_EQ(m.qualified("T.cuda.amp.autocast"), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, ImportSubmoduleAsAlias) {
  Model m("import torch.cuda.amp as A\nA.GradScaler()\n");
  EXPECT_EQ(m.qualified("A.GradScaler"), "torch.cuda.amp.GradScaler");
}

TEST(SemanticModel, FromImportModule) {
  Model m("from torch.cuda import amp\namp.custom_fwd\n");
  EXPECT_EQ(m.qualified("amp.custom_fwd"), "torch.cuda.amp.custom_fwd");
}

TEST(SemanticModel, FromImportMemberWithAlias) {
  Model m("from torch.cuda.amp import autocast as ac, GradScaler\nac()\nGradScaler()\n");
  EXPECT_EQ(m.qualified("ac", 1), "torch.cuda.amp.autocast");
  EXPECT_EQ(m.qualified("GradScaler", 1), "torch.cuda.amp.GradScaler");
}

TEST(SemanticModel, ParenthesizedMultiLineFromImport) {
  Model m("from torch.cuda.amp import (\n    autocast,\n    GradScaler as S,\n)\nS(autocast)\n");
  EXPECT_EQ(m.qualified("S", 1), "torch.cuda.amp.GradScaler");
  EXPECT_EQ(m.qualified("autocast", 1), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, ReexportsAreCanonicalised) {
  Model m(
      "import torch\nfrom torch.cuda.amp.grad_scaler import GradScaler\n"
      "from torch.amp.autocast_mode import autocast\ntorch.autocast\nGradScaler\nautocast\n");
  EXPECT_EQ(m.qualified("torch.autocast"), "torch.amp.autocast");
  EXPECT_EQ(m.qualified("GradScaler", 1), "torch.cuda.amp.GradScaler");
  EXPECT_EQ(m.qualified("autocast", 3), "torch.amp.autocast");
  EXPECT_EQ(canonicalQualifiedName("torch.cuda.amp.autocast_mode.autocast"), "torch.cuda.amp.autocast");
  // Whole segments only: `torch.autocast_mode_x` is not `torch.autocast`.
  EXPECT_EQ(canonicalQualifiedName("torch.autocastx"), "torch.autocastx");
}

TEST(SemanticModel, RelativeImportsStayRelative) {
  Model m("from . import amp\nfrom .amp import autocast\namp.autocast\nautocast\n");
  EXPECT_EQ(m.qualified("amp.autocast"), ".amp.autocast");
  EXPECT_EQ(m.qualified("autocast", 2), ".amp.autocast");
}

TEST(SemanticModel, ImportInsideFunctionIsLocal) {
  Model m(
      "def f():\n    from torch.cuda import amp\n    return amp.autocast()\n"
      "def g():\n    return amp.autocast()\n");
  EXPECT_EQ(m.qualified("amp.autocast", 0), "torch.cuda.amp.autocast");
  EXPECT_EQ(m.qualified("amp.autocast", 1), "<none>");
}

TEST(SemanticModel, ParameterShadowsModuleImport) {
  Model m("from torch.cuda import amp\ndef f(amp):\n    return amp.autocast()\namp.autocast()\n");
  EXPECT_EQ(m.qualified("amp.autocast", 0), "<none>");
  EXPECT_EQ(m.qualified("amp.autocast", 1), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, DefaultAndTypedParametersShadow) {
  Model m(
      "import torch\n"
      "def f(torch=None, *, amp: int = 0, **autocast):\n    return torch.cuda, amp.x, autocast\n"
      "lambda torch: torch.cuda\n");
  EXPECT_EQ(m.qualified("torch.cuda", 0), "<none>");
  EXPECT_EQ(m.qualified("amp.x"), "<none>");
  EXPECT_EQ(m.qualified("torch.cuda", 1), "<none>");
}

// Python evaluates default values and annotations in the enclosing scope, where a parameter of
// the same name does not exist yet; the body sees the parameter.
TEST(SemanticModel, DefaultValuesResolveInEnclosingScope) {
  Model m(
      "from torch.cuda import amp\n"
      "def f(amp=amp.autocast, *rest: amp.GradScaler, k: amp.custom_fwd = None) -> amp.custom_bwd:\n"
      "    return amp.autocast\n");
  EXPECT_EQ(m.qualified("amp.autocast", 0), "torch.cuda.amp.autocast");
  EXPECT_EQ(m.qualified("amp.GradScaler"), "torch.cuda.amp.GradScaler");
  EXPECT_EQ(m.qualified("amp.custom_fwd"), "torch.cuda.amp.custom_fwd");
  EXPECT_EQ(m.qualified("amp.custom_bwd"), "torch.cuda.amp.custom_bwd");
  EXPECT_EQ(m.qualified("amp.autocast", 1), "<none>");  // the body: the parameter
}

TEST(SemanticModel, LambdaDefaultsAndLambdasInDefaultsResolveOutside) {
  Model m(
      "import torch\n"
      "def f(torch=None, g=lambda: torch.cuda, h=[torch.cuda for _ in ()]):\n"
      "    return torch.cuda\n"
      "k = lambda torch=torch.cuda: torch.cuda\n");
  EXPECT_EQ(m.qualified("torch.cuda", 0), "torch.cuda");  // a lambda in a default value
  EXPECT_EQ(m.qualified("torch.cuda", 1), "torch.cuda");  // a comprehension in a default value
  EXPECT_EQ(m.qualified("torch.cuda", 2), "<none>");      // the body: the parameter
  EXPECT_EQ(m.qualified("torch.cuda", 3), "torch.cuda");  // a lambda's default value
  EXPECT_EQ(m.qualified("torch.cuda", 4), "<none>");      // that lambda's body: its parameter
}

TEST(SemanticModel, MethodDefaultsSeeTheClassBody) {
  Model m(
      "import torch\n"
      "class C:\n"
      "    amp = torch.cuda.amp\n"
      "    def m(self, ctx=amp.autocast):\n"
      "        return amp\n");
  EXPECT_EQ(m.qualified("amp.autocast"), "torch.cuda.amp.autocast");  // evaluated in the class body
  EXPECT_EQ(m.qualified("amp", 3), "<none>");                          // methods do not see it
}

TEST(SemanticModel, LocalAssignmentShadows) {
  Model m("import torch\ndef f():\n    torch = make()\n    return torch.cuda.amp.autocast\n");
  EXPECT_EQ(m.qualified("torch.cuda.amp.autocast"), "<none>");
}

TEST(SemanticModel, ClassBodyIsInvisibleToMethods) {
  Model m(
      "from torch.cuda import amp\nclass C:\n    amp = None\n    x = amp\n"
      "    def m(self):\n        return amp.autocast\n");
  EXPECT_EQ(m.qualified("amp", 2), "<none>");  // `x = amp` in the class body: the class's own amp
  EXPECT_EQ(m.qualified("amp.autocast"), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, ComprehensionVariableShadows) {
  Model m("import torch\nxs = [torch.cuda for torch in range(3)]\ny = torch.cuda\n");
  EXPECT_EQ(m.qualified("torch.cuda", 0), "<none>");
  EXPECT_EQ(m.qualified("torch.cuda", 1), "torch.cuda");
}

TEST(SemanticModel, ForAndWithTargetsShadow) {
  Model m(
      "import torch\ndef f(xs):\n    for amp in xs:\n        amp.autocast()\n"
      "    with open('x') as torch:\n        torch.cuda\n");
  EXPECT_EQ(m.qualified("amp.autocast"), "<none>");
  EXPECT_EQ(m.qualified("torch.cuda"), "<none>");
}

TEST(SemanticModel, GlobalDeclarationBindsAtModuleLevel) {
  Model m(
      "def setup():\n    global amp\n    from torch.cuda import amp\n"
      "def use():\n    return amp.autocast\n");
  EXPECT_EQ(m.qualified("amp.autocast"), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, ApexAmpIsNotTorch) {
  Model m("from apex import amp\nimport torch\namp.autocast()\namp.initialize\n");
  EXPECT_EQ(m.qualified("amp.autocast"), "apex.amp.autocast");
}

TEST(SemanticModel, AliasThroughSingleAssignment) {
  Model m(
      "import torch\nac = torch.cuda.amp.autocast\nac()\n"
      "m = torch.cuda.amp\nm.GradScaler\n"
      "chain = ac\nchain\n");
  EXPECT_EQ(m.qualified("ac", 1), "torch.cuda.amp.autocast");
  EXPECT_EQ(m.qualified("m.GradScaler"), "torch.cuda.amp.GradScaler");
  EXPECT_EQ(m.qualified("chain", 1), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, ReboundAliasIsUnknown) {
  Model m("import torch\nac = torch.cuda.amp.autocast\nif x:\n    ac = other\nac()\n");
  EXPECT_EQ(m.qualified("ac", 2), "<none>");
}

TEST(SemanticModel, SelfReferentialAssignmentTerminates) {
  Model m("a = b\nb = a\na.x\n");
  EXPECT_EQ(m.qualified("a.x"), "<none>");
}

TEST(SemanticModel, AnnotatedAssignmentIsAnAlias) {
  Model m("import torch\nfrom typing import Any\nac: Any = torch.cuda.amp.autocast\nac\n");
  EXPECT_EQ(m.qualified("ac", 1), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, CallResultsAndSubscriptsDoNotResolve) {
  Model m("import torch\ntorch.cuda.amp.GradScaler().scale\nmods[0].autocast\n");
  EXPECT_EQ(m.qualified("torch.cuda.amp.GradScaler().scale"), "<none>");
  EXPECT_EQ(m.qualified("mods[0].autocast"), "<none>");
}

TEST(SemanticModel, ImportErrorFallbackLosesToTry) {
  Model m(
      "try:\n    from torch.amp import autocast\nexcept ImportError:\n    from torch.cuda.amp import autocast\n"
      "autocast()\n");
  EXPECT_EQ(m.qualified("autocast", 2), "torch.amp.autocast");
  const Binding* b = m.model().resolve("autocast", m.node("autocast", 2));
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->is_fallback);
}

TEST(SemanticModel, FallbackAloneStillResolves) {
  Model m(
      "try:\n    import apex\nexcept ModuleNotFoundError as e:\n    from torch.cuda import amp\n"
      "amp.autocast()\n");
  EXPECT_EQ(m.qualified("amp.autocast"), "torch.cuda.amp.autocast");
  const Binding* b = m.model().resolve("amp", m.node("amp.autocast"));
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->is_fallback);
}

TEST(SemanticModel, TupleOfExceptionsIsAFallback) {
  Model m("try:\n    import a\nexcept (ImportError, AttributeError):\n    import b\n");
  const auto* bs = m.model().bindingsOf(m.model().moduleScope(), "b");
  ASSERT_NE(bs, nullptr);
  EXPECT_TRUE(bs->front()->is_fallback);
}

TEST(SemanticModel, ValueErrorHandlerIsNotAFallback) {
  Model m("try:\n    import a\nexcept ValueError:\n    import b\n");
  const auto* bs = m.model().bindingsOf(m.model().moduleScope(), "b");
  ASSERT_NE(bs, nullptr);
  EXPECT_FALSE(bs->front()->is_fallback);
}

TEST(SemanticModel, LaterBindingWinsAfterRebinding) {
  Model m("from torch.cuda import amp\namp.autocast\nfrom apex import amp\namp.autocast\n");
  EXPECT_EQ(m.qualified("amp.autocast", 0), "torch.cuda.amp.autocast");
  EXPECT_EQ(m.qualified("amp.autocast", 1), "apex.amp.autocast");
}

TEST(SemanticModel, StringsAndCommentsHoldNoNames) {
  Model m("import torch\n# torch.cuda.amp.autocast()\ns = 'torch.cuda.amp.autocast'\n");
  for (const auto& b : m.model().bindings()) EXPECT_NE(b->name, "autocast");
}

TEST(SemanticModel, ImportsModuleMatchesWholeSegments) {
  Model m("import numpy as np\nfrom torch.utils.data import random_split\n");
  EXPECT_TRUE(m.model().importsModule("numpy"));
  EXPECT_FALSE(m.model().importsModule("random"));
  EXPECT_FALSE(m.model().importsModule("torch.utils.data.random"));
  EXPECT_TRUE(m.model().importsModule("torch.utils"));
}

TEST(SemanticModel, VisibleNameForTorch) {
  Model m("import torch as T\ndef f(T):\n    return T\nx = 1\n");
  EXPECT_EQ(m.model().visibleNameFor("torch", m.node("x")).value_or("<none>"), "T");
  EXPECT_FALSE(m.model().visibleNameFor("torch", m.node("T", 2)).has_value());
}

TEST(SemanticModel, ScopeAtNestedFunctions) {
  Model m("def outer():\n    def inner():\n        a = 1\n    b = 2\nc = 3\n");
  EXPECT_EQ(m.model().scopeAt(m.node("a")).kind, Scope::Kind::Function);
  EXPECT_TRUE(sameNode(m.model().scopeAt(m.node("b")).node, m.node("def outer():\n    def inner():\n        a = 1\n    b = 2")));
  EXPECT_EQ(m.model().scopeAt(m.node("c")).kind, Scope::Kind::Module);
}

TEST(SemanticModel, DeepNestingDoesNotOverflow) {
  std::string source = "import torch\nx = ";
  for (int i = 0; i < 20000; ++i) source += "(";
  source += "torch.cuda.amp.autocast";
  for (int i = 0; i < 20000; ++i) source += ")";
  source += "\n";
  Model m(source);
  EXPECT_EQ(m.model().qualifiedName(m.node("torch.cuda.amp.autocast")).value_or("<none>"), "torch.cuda.amp.autocast");
}

TEST(SemanticModel, BrokenSourceStillBuilds) {
  Model m("from torch.cuda import (amp\ndef f(:\n    amp.autocast(\n");
  SUCCEED();  // no crash; some bindings may exist
}

}  // namespace
