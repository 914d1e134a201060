// CompiledRegions: which functions of a file torch.compile reaches, and why.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/compiled_regions.h"
#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "analysis/syntax.h"

using namespace ptlint::analysis;

namespace {

struct Analysed {
  ParsedFile file;
  std::unique_ptr<SemanticModel> model;
  const CompiledRegions* regions = nullptr;
};

Analysed analyse(std::string source, std::vector<std::string> decorators = {}) {
  Analysed a{ParsedFile::parse(std::move(source)), nullptr, nullptr};
  a.model = std::make_unique<SemanticModel>(a.file);
  a.regions = &CompiledRegions::of(*a.model, decorators);
  return a;
}

std::set<std::string> compiledNames(const Analysed& a) {
  std::set<std::string> names;
  for (const auto& fn : a.regions->functions()) names.emplace(fn->name);
  return names;
}

// The node starting at the first occurrence of `needle` (the smallest named node there).
TSNode nodeAt(const Analysed& a, std::string_view needle) {
  size_t pos = a.file.text().find(needle);
  EXPECT_NE(pos, std::string_view::npos) << needle;
  auto offset = static_cast<uint32_t>(pos);
  return ts_node_named_descendant_for_byte_range(a.file.root(), offset, offset + 1);
}

TEST(CompiledRegionsTest, DecoratorsInEveryForm) {
  auto a = analyse(R"py(
import torch
import torch as T
from torch import compile as tc

@torch.compile
def a(x): return x

@T.compile(mode="max-autotune")
def b(x): return x

@tc
def c(x): return x

@torch.compiler.compile
def d(x): return x

def plain(x): return x
)py");
  EXPECT_EQ(compiledNames(a), (std::set<std::string>{"a", "b", "c", "d"}));
  for (const auto& fn : a.regions->functions()) {
    EXPECT_EQ(fn->caller, nullptr);
    EXPECT_EQ(fn->root, fn.get());
    EXPECT_TRUE(isKind(fn->site, ptlint::kind::attribute) || isKind(fn->site, ptlint::kind::call) || isKind(fn->site, ptlint::kind::identifier))
        << kindName(fn->site);
  }
}

TEST(CompiledRegionsTest, CallFormsBoundMethodsAndModuleInstances) {
  auto a = analyse(R"py(
import torch
import torch.nn as nn

def fn(x): return x
fn = torch.compile(fn)

def opt(x): return x
fast = torch.compile(backend="inductor")(opt)

class Trainer:
    def __init__(self):
        self.step = torch.compile(self.train_step)
    def train_step(self, b): return b
    def other(self, b): return b

class Model(nn.Module):
    def forward(self, x): return x
    def unused(self, x): return x

class Other(nn.Module):
    def forward(self, x): return x

class Third(nn.Module):
    def forward(self, x): return x

m = Model()
m = torch.compile(m)
o = torch.compile(Other().to("cuda"))

def build():
    t = Third()
    return torch.compile(model=t)
)py");
  auto names = compiledNames(a);
  EXPECT_EQ(names, (std::set<std::string>{"fn", "opt", "train_step", "forward"}));
  int forwards = 0;
  for (const auto& fn : a.regions->functions()) forwards += fn->name == "forward";
  EXPECT_EQ(forwards, 3);  // Model, Other, Third; never `unused` or `other`
}

TEST(CompiledRegionsTest, TransitiveCallsRecordTheirPath) {
  auto a = analyse(R"py(
import torch

def leaf(x): return x.item()
def middle(x): return leaf(x)
def unrelated(x): return x.item()

class Block:
    def forward(self, x): return self.helper(x)
    def helper(self, x): return middle(x)

class Net:
    def __init__(self):
        self.block = Block()
    def forward(self, x): return self.block(x)

net = torch.compile(Net())
)py");
  auto names = compiledNames(a);
  EXPECT_TRUE(names.count("leaf") && names.count("middle") && names.count("helper"));
  EXPECT_FALSE(names.count("unrelated"));
  const auto* leaf = a.regions->functionAt(nodeAt(a, "x.item()"));
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->name, "leaf");
  ASSERT_NE(leaf->caller, nullptr);
  EXPECT_EQ(leaf->caller->name, "middle");
  EXPECT_EQ(leaf->root->name, "forward");
  EXPECT_TRUE(isKind(leaf->site, ptlint::kind::call));  // the call in `middle` that reaches `leaf`
  std::vector<std::string_view> path;
  for (const auto* f = leaf; f != nullptr; f = f->caller) path.push_back(f->name);
  EXPECT_EQ(path, (std::vector<std::string_view>{"leaf", "middle", "helper", "forward", "forward"}));
}

TEST(CompiledRegionsTest, DisabledFunctionsStopTheRegion) {
  auto a = analyse(R"py(
import torch

@torch.compiler.disable
def off(x): return only_off(x)

@torch._dynamo.disable(recursive=False)
def off2(x): return x

def only_off(x): return x
def shared(x): return x

def later(x): return x
later = torch.compiler.disable(later)

@torch.compile
def step(x):
    off(x); off2(x); shared(x)
    return x

@torch.compile
@torch.compiler.disable
def both(x): return x
)py");
  EXPECT_EQ(compiledNames(a), (std::set<std::string>{"step", "shared"}));
}

TEST(CompiledRegionsTest, LookAlikesCompileNothing) {
  auto a = analyse(R"py(
import re
import torch

def f(x): return x
code = compile(f, "<f>", "exec")
pat = re.compile("x")

def compile(fn): return fn

@compile
def g(x): return x

@torch.jit.script
def h(x): return x

def k(x): return x
k2 = torch.compile(k, disable=True)

def param(model):
    return torch.compile(model)
)py");
  EXPECT_TRUE(a.regions->functions().empty()) << *compiledNames(a).begin();
}

TEST(CompiledRegionsTest, OnlyTheBodyIsCompiled) {
  auto a = analyse(R"py(
import torch

@torch.compile
def step(x, n=torch.ones(1).item()):
    ys = [t.item() for t in x]
    def inner(t): return t.tolist()
    return ys, inner

class C:
    v = torch.ones(1).item()
)py");
  EXPECT_EQ(a.regions->functionAt(nodeAt(a, "torch.ones(1).item()")), nullptr);  // default value
  ASSERT_NE(a.regions->functionAt(nodeAt(a, "t.item()")), nullptr);           // comprehension
  EXPECT_EQ(a.regions->functionAt(nodeAt(a, "t.tolist()")), nullptr);         // never called
  EXPECT_EQ(a.regions->functionAt(nodeAt(a, "v = ")), nullptr);               // class body
}

TEST(CompiledRegionsTest, ConfiguredDecorators) {
  auto a = analyse(R"py(
from mylib.compiling import compiled
from .utils import jit_step

def maybe_compile(fn): return fn

@compiled
def a(x): return x

@jit_step(mode="x")
def b(x): return x

@maybe_compile
def c(x): return x

@other
def d(x): return x
)py",
                   {"mylib.compiling.compiled", "pkg.utils.jit_step", "maybe_compile"});
  EXPECT_EQ(compiledNames(a), (std::set<std::string>{"a", "b", "c"}));
}

TEST(CompiledRegionsTest, CaptureScalarOutputsIsNoticed) {
  EXPECT_TRUE(analyse("import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n").regions->capturesScalarOutputs());
  EXPECT_TRUE(analyse("import torch\n@torch._dynamo.config.patch(capture_scalar_outputs=True)\ndef f(x): return g(x)\n")
                  .regions->capturesScalarOutputs());
  EXPECT_TRUE(analyse("import torch\ndef f(m, x):\n    with torch._dynamo.config.patch(capture_scalar_outputs=True):\n"
                      "        return m(x)\n")
                  .regions->capturesScalarOutputs());
  // A patch whose code calls only torch's functions and builtins runs no compiled code.
  EXPECT_FALSE(analyse("import torch\n@torch._dynamo.config.patch(capture_scalar_outputs=True)\ndef f(): pass\n")
                   .regions->capturesScalarOutputs());
  EXPECT_FALSE(analyse("import torch\ndef f():\n    with torch._dynamo.config.patch(capture_scalar_outputs=True):\n"
                       "        print(torch.ones(2))\n")
                   .regions->capturesScalarOutputs());
  EXPECT_FALSE(analyse("import torch\ntorch._dynamo.config.capture_scalar_outputs = False\n").regions->capturesScalarOutputs());
}

TEST(CompiledRegionsTest, BuiltOncePerModel) {
  auto a = analyse("import torch\n@torch.compile\ndef f(x): return x\n");
  const CompiledRegions& again = CompiledRegions::of(*a.model, {});
  EXPECT_EQ(&again, a.regions);
  const CompiledRegions& other = CompiledRegions::of(*a.model, {"x.y"});
  EXPECT_NE(&other, a.regions);
  EXPECT_EQ(&CompiledRegions::of(*a.model, {"x.y"}), &other);
}

TEST(CompiledRegionsTest, RecursionAndCyclesTerminate) {
  auto a = analyse(R"py(
import torch

class A:
    def __init__(self):
        self.a = self.a
        self.b = B()
    def forward(self, x): return self.b(x)

class B(A):
    def forward(self, x): return self.ping(x)
    def ping(self, x): return self.pong(x)
    def pong(self, x): return self.ping(x)

class C(C): pass

f = g
g = f

@torch.compile
def step(x):
    step(x)
    f(x)
    return A()(x)
)py");
  auto names = compiledNames(a);
  EXPECT_TRUE(names.count("step") && names.count("forward") && names.count("ping") && names.count("pong"));
}

TEST(CompiledRegionsTest, BrokenAndDeepInputsDoNotCrash) {
  auto broken = analyse("import torch\n@torch.compile\ndef f(x:\n    return x.item(\n@torch.compile(\nclass");
  (void)broken.regions->functions();
  std::string deep = "import torch\n@torch.compile\ndef f(x):\n    return " + std::string(20000, '(') + "x.item()" +
                     std::string(20000, ')') + "\n";
  auto nested = analyse(deep);
  EXPECT_EQ(compiledNames(nested), (std::set<std::string>{"f"}));
  EXPECT_EQ(analyse("").regions->functions().size(), 0u);
}

}  // namespace

#include "rules/linter.h"

namespace {

// PTL501's trigger words follow the configured decorators: a file that never says "compile" is
// still linted when it uses one.
TEST(CompiledRegionsTest, TriggersFollowConfiguredDecorators) {
  ptlint::rules::Settings settings;
  settings.select = {"PTL501"};
  std::string source = "from pkg import jit_step\n@jit_step\ndef f(x):\n    return x.item()\n";
  EXPECT_TRUE(ptlint::rules::cannotMatch(source, settings));
  settings.compile_decorators = {"pkg.jit_step"};
  EXPECT_FALSE(ptlint::rules::cannotMatch(source, settings));
  auto file = ParsedFile::parse(source);
  auto result = ptlint::rules::lintFile(file, settings);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].code, "PTL501");
  ASSERT_EQ(result.diagnostics[0].related.size(), 1u);  // where `f` is compiled
  EXPECT_EQ(source.substr(result.diagnostics[0].related[0].start, 8), "jit_step");
}

}  // namespace
