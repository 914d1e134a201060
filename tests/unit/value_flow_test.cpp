// The value-flow layer: for a use, the set of values it may hold. Each test writes the values as
// their source texts (sorted, `?` when some path is unknown; `for:` / `part:` / `enter:` mark
// loop targets, unpacked elements and `with ... as` values).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "analysis/value_flow.h"

using namespace ptlint::analysis;

namespace {

class Flow {
 public:
  explicit Flow(std::string source, std::shared_ptr<const ProjectFunctions> project = nullptr)
      : file_(ParsedFile::parse(std::move(source))), model_(file_) {
    if (project) useProjectFunctions(model_, std::move(project));
  }

  // The values of the `occurrence`-th (0-based) whole-word match of `needle`, as text.
  std::string values(std::string_view needle, int occurrence = 0) const {
    std::string_view text = file_.text();
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    auto next = [&](size_t from) {
      for (size_t at = text.find(needle, from); at != std::string_view::npos; at = text.find(needle, at + 1)) {
        bool open = at == 0 || !word(text[at - 1]) || !word(needle.front());
        size_t end = at + needle.size();
        bool close = end >= text.size() || !word(text[end]) || !word(needle.back());
        if (open && close) return at;
      }
      return std::string_view::npos;
    };
    size_t pos = next(0);
    for (int i = 0; i < occurrence && pos != std::string_view::npos; ++i) pos = next(pos + 1);
    if (pos == std::string_view::npos) return "<no such text>";
    TSNode node = ts_node_named_descendant_for_byte_range(file_.root(), static_cast<uint32_t>(pos),
                                                          static_cast<uint32_t>(pos + needle.size()));
    if (model_.text(node) != needle) return "<node is " + std::string(ts_node_type(node)) + ">";
    return render(valuesOf(model_, node));
  }

  std::string render(const ValueSet& set) const {
    std::vector<std::string> parts;
    for (const FlowValue& v : set.values) {
      std::string prefix;
      if (v.kind == FlowValue::Kind::LoopTarget) {
        parts.push_back("for:" + std::string(model_.text(fieldOf(v.node, "right"))));
        continue;
      }
      if (v.kind == FlowValue::Kind::Part) prefix = "part:";
      if (v.kind == FlowValue::Kind::Entered) prefix = "enter:";
      if (v.model != nullptr) prefix += "there:";
      parts.push_back(prefix + std::string(v.in(model_).text(v.node)));
    }
    std::sort(parts.begin(), parts.end());
    parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
    if (set.unknown) parts.push_back("?");
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : " | ") + p;
    return out;
  }

 private:
  ParsedFile file_;
  SemanticModel model_;
};

TEST(ValueFlow, BranchesReachTheUse) {
  Flow f(R"(import torch
ctx = nullcontext()
if amp:
    ctx = torch.autocast("cuda")
with ctx:
    pass
)");
  EXPECT_EQ(f.values("ctx", 2), "nullcontext() | torch.autocast(\"cuda\")");
}

TEST(ValueFlow, IfElseAndElif) {
  Flow f(R"(def f(a, b):
    if a:
        d = "cuda"
    elif b:
        d = "mps"
    else:
        d = "cpu"
    return d
)");
  EXPECT_EQ(f.values("d", 3), "\"cpu\" | \"cuda\" | \"mps\"");
}

TEST(ValueFlow, ADominatingBindingHidesEarlierOnes) {
  Flow f(R"(def f(device):
    x = "cpu"
    if c:
        x = "meta"
    x = "cuda"
    use(x)
    device = "cuda:1"
    use(device)
)");
  EXPECT_EQ(f.values("x", 3), "\"cuda\"");
  EXPECT_EQ(f.values("device", 2), "\"cuda:1\"");
}

TEST(ValueFlow, ConditionalExpressionsAndOr) {
  Flow f(R"(import torch
device = "cuda" if torch.cuda.is_available() else "cpu"
use(device)
d2 = args_device or "cuda"
use(d2)
)");
  EXPECT_EQ(f.values("device", 1), "\"cpu\" | \"cuda\"");
  EXPECT_EQ(f.values("d2", 1), "\"cuda\" | args_device");
}

TEST(ValueFlow, TryExceptAndWith) {
  Flow f(R"(def f():
    try:
        dev = get()
    except RuntimeError:
        dev = "cpu"
    use(dev)
    with open(p) as fh:
        mode = "r"
    use(mode, fh)
)");
  EXPECT_EQ(f.values("dev", 2), "\"cpu\" | get()");
  EXPECT_EQ(f.values("mode", 1), "\"r\"");
  EXPECT_EQ(f.values("fh", 1), "enter:open(p)");
}

TEST(ValueFlow, LoopsCarryLaterBindings) {
  Flow f(R"(def f(loader):
    x = 0
    for batch in loader:
        use(x)
        x = step(x)
        use(batch)
        batch = batch.cuda()
        use(batch)
)");
  EXPECT_EQ(f.values("x", 1), "0 | step(x)");
  EXPECT_EQ(f.values("batch", 1), "for:loader");
  EXPECT_EQ(f.values("batch", 4), "batch.cuda()");
}

TEST(ValueFlow, UnpackingAndComprehensions) {
  Flow f(R"(def f(loader):
    a, b = "cuda", "cpu"
    use(a, b)
    for data in loader:
        x, y = data
        use(x)
    return [v for k, v in table.items()]
)");
  EXPECT_EQ(f.values("a", 1), "\"cuda\"");
  EXPECT_EQ(f.values("b", 1), "\"cpu\"");
  EXPECT_EQ(f.values("x", 1), "part:data");
  EXPECT_EQ(f.values("v", 0), "for:table.items()");
}

TEST(ValueFlow, ParametersAndAugmentedAssignmentsAreUnknown) {
  Flow f(R"(def f(device, n):
    use(device)
    n += 1
    use(n)
)");
  EXPECT_EQ(f.values("device", 1), "?");
  EXPECT_EQ(f.values("n", 2), "?");
}

TEST(ValueFlow, ParametersTakeTheArgumentsOfTheFilesCalls) {
  Flow f(R"(import torch
from torch.utils.data import DataLoader
def get_loaders():
    train = DataLoader(ds, pin_memory=True)
    return train, DataLoader(ds)
def fit(model, loader, device="cuda", *, steps=1):
    use(loader, device, steps)
def main():
    train_loader, val_loader = get_loaders()
    fit(model, train_loader)
    fit(model, loader=val_loader, device="cpu", steps=2)
class C:
    def method(self, loader):
        use(loader)
C().method(DataLoader(ds))
)");
  EXPECT_EQ(f.values("loader", 1), "DataLoader(ds) | DataLoader(ds, pin_memory=True) | ?");
  EXPECT_EQ(f.values("device", 1), "\"cpu\" | \"cuda\" | ?");
  EXPECT_EQ(f.values("steps", 1), "1 | 2 | ?");
  EXPECT_EQ(f.values("loader", 4), "?");
}

TEST(ValueFlow, ModuleNamesReadInAFunctionTakeEveryBinding) {
  Flow f(R"(import torch
DEV = "cpu"
DEV = "cuda"
def f():
    return DEV
)");
  EXPECT_EQ(f.values("DEV", 2), "\"cpu\" | \"cuda\"");
  EXPECT_EQ(f.values("torch", 0), "torch");
}

TEST(ValueFlow, SameFileFunctionReturns) {
  Flow f(R"(import torch
def infer_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")
def maybe():
    if x:
        return "cuda"
def wrapped():
    return "cuda"
@decorate
def decorated():
    return "cuda"
d = infer_device()
e = maybe()
g = decorated()
use(d, e, g)
)");
  EXPECT_EQ(f.values("d", 1), "torch.device(\"cpu\") | torch.device(\"cuda\")");
  EXPECT_EQ(f.values("e", 1), "\"cuda\" | ?");
  EXPECT_EQ(f.values("g", 1), "?");
}

TEST(ValueFlow, RecursionEnds) {
  Flow f(R"(def f(n):
    if n:
        return f(n - 1)
    return "done"
r = f(3)
a = b
b = a
use(r, a)
)");
  EXPECT_EQ(f.values("r", 1), "\"done\"");
  EXPECT_EQ(f.values("a", 2), "?");
}

TEST(ValueFlow, SelfAttributesAcrossMethods) {
  Flow f(R"(import torch
class Trainer:
    amp_dtype = torch.float32
    def __init__(self, bf16):
        self.ctx = nullcontext()
        if bf16:
            self.ctx = torch.autocast("cuda", dtype=torch.bfloat16)
        self.device = "cuda"
    def step(self):
        with self.ctx:
            pass
        use(self.device, self.amp_dtype)
        self.device = "cpu"
        use(self.device)
    def helper(self):
        return torch.autocast("cuda")
    def run(self):
        with self.helper():
            pass
)");
  EXPECT_EQ(f.values("self.ctx", 2), "nullcontext() | torch.autocast(\"cuda\", dtype=torch.bfloat16)");
  EXPECT_EQ(f.values("self.device", 1), "\"cpu\" | \"cuda\"");
  EXPECT_EQ(f.values("self.device", 3), "\"cpu\"");
  EXPECT_EQ(f.values("self.amp_dtype", 0), "torch.float32");
  EXPECT_EQ(f.values("self.helper()", 0), "torch.autocast(\"cuda\")");
}

TEST(ValueFlow, DictLiteralConfiguration) {
  Flow f(R"(import torch
cfg = {"dtype": torch.bfloat16, "device": "cuda"}
use(cfg["dtype"])
key = "device"
use(cfg[key])
other = {"dtype": torch.float16}
other["dtype"] = torch.bfloat16
use(other["dtype"])
spread = {**base, "dtype": torch.float16}
use(spread["dtype"])
)");
  EXPECT_EQ(f.values("cfg[\"dtype\"]", 0), "torch.bfloat16");
  EXPECT_EQ(f.values("cfg[key]", 0), "\"cuda\"");
  EXPECT_EQ(f.values("other[\"dtype\"]", 1), "torch.bfloat16 | torch.float16");
  EXPECT_EQ(f.values("spread[\"dtype\"]", 0), "torch.float16 | ?");
}

TEST(ValueFlow, DataclassFields) {
  Flow f(R"(import torch
from dataclasses import dataclass, field
@dataclass
class Config:
    lr: float = 1e-3
    dtype: str = "bfloat16"
    device: str = field(default="cuda")
    tags: list = field(default_factory=list)
cfg = Config(1e-4)
use(cfg.dtype, cfg.device, cfg.tags, cfg.lr)
fp16 = Config(dtype="float16")
use(fp16.dtype)
)");
  EXPECT_EQ(f.values("cfg.dtype", 0), "\"bfloat16\"");
  EXPECT_EQ(f.values("cfg.device", 0), "\"cuda\"");
  EXPECT_EQ(f.values("cfg.tags", 0), "cfg.tags");  // nothing known: the expression itself
  EXPECT_EQ(f.values("cfg.lr", 0), "1e-4");
  EXPECT_EQ(f.values("fp16.dtype", 0), "\"float16\"");
}

TEST(ValueFlow, ArgparseDefaults) {
  Flow f(R"(import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
parser.add_argument("--amp-dtype", choices=["float16", "bfloat16"], default="bfloat16")
args = parser.parse_args()
use(args.device, args.amp_dtype, args.missing)
def main(args):
    use(args.amp_dtype)
)");
  EXPECT_EQ(f.values("args.device", 0), "\"cuda\" | ?");
  EXPECT_EQ(f.values("args.amp_dtype", 0), "\"bfloat16\" | \"float16\"");
  EXPECT_EQ(f.values("args.missing", 0), "args.missing");
  EXPECT_EQ(f.values("args.amp_dtype", 1), "\"bfloat16\" | \"float16\" | ?");
}

TEST(ValueFlow, AttributesOfUnknownObjectsAreLeaves) {
  Flow f(R"(import torch
from accelerate import Accelerator
accelerator = Accelerator()
use(accelerator.device, torch.bfloat16)
)");
  EXPECT_EQ(f.values("accelerator.device", 0), "accelerator.device");
  EXPECT_EQ(f.values("torch.bfloat16", 0), "torch.bfloat16");
}

TEST(ValueFlow, DeepChainsStayBounded) {
  std::string source = "x0 = 'cuda'\n";
  for (int i = 1; i < 200; ++i) source += "x" + std::to_string(i) + " = x" + std::to_string(i - 1) + "\n";
  source += "use(x199)\n";
  Flow f(source);
  std::string got = f.values("x199", 1);
  EXPECT_TRUE(got == "?" || got == "'cuda'") << got;
}

TEST(ValueFlow, ThousandsOfRebindingsAndDeepExpressionsStayBounded) {
  std::string source = "def f(x):\n";
  for (int i = 0; i < 5000; ++i) source += "    d = 'cuda:" + std::to_string(i) + "'\n    use(d)\n";
  source += "    y = 'a' if x else ";
  for (int i = 0; i < 3000; ++i) source += "('b' if x else ";
  source += "'c'" + std::string(3000, ')') + "\n    use(y)\n";
  Flow f(source);
  EXPECT_EQ(f.values("d", 1), "?");  // too many sites to follow
  EXPECT_EQ(f.values("y", 1), "'a' | 'b' | ?");
}

// Another file of the project: its top-level functions by the names an import may spell.
class HelperFile final : public ProjectFunctions {
 public:
  explicit HelperFile(std::string source) : file_(ParsedFile::parse(std::move(source))), model_(file_) {}
  std::optional<Definition> definition(std::string_view qualified) const override {
    size_t dot = qualified.rfind('.');
    if (dot == std::string_view::npos || qualified.substr(0, dot).find("utils") == std::string_view::npos) return std::nullopt;
    std::string_view name = qualified.substr(dot + 1);
    const auto* bindings = model_.bindingsOf(model_.moduleScope(), name);
    if (bindings == nullptr || bindings->size() != 1 || bindings->front()->kind != BindingKind::Function) return std::nullopt;
    return Definition{&model_, bindings->front()->statement, "/project/utils.py"};
  }
  std::vector<FileRead> filesRead() const override { return {}; }

 private:
  ParsedFile file_;
  SemanticModel model_;
};

const char* const kHelpers = R"(import torch
DEVICE = "cuda"
def get_device():
    return "cuda" if torch.cuda.is_available() else "cpu"
def default_device():
    return DEVICE
def low():
    return torch.bfloat16
def given(x):
    return x
)";

TEST(ValueFlow, HelperReturnsInAnotherFile) {
  auto helpers = std::make_shared<const HelperFile>(kHelpers);
  Flow f(R"(import utils
from utils import get_device, default_device as dd
from .utils import low
from .utils import given
a = get_device()
b = utils.default_device()
c = dd()
d = low()
e = given(1)
f = utils.missing()
a, b, c, d, e, f
)",
         helpers);
  EXPECT_EQ(f.values("a", 1), "there:\"cpu\" | there:\"cuda\"");
  EXPECT_EQ(f.values("b", 1), "there:\"cuda\"");
  EXPECT_EQ(f.values("c", 1), "there:\"cuda\"");
  EXPECT_EQ(f.values("d", 1), "there:torch.bfloat16");
  EXPECT_EQ(f.values("e", 1), "?");  // a parameter there: unknown
  EXPECT_EQ(f.values("f", 1), "utils.missing()");
}

// Without the project's functions (a file checked alone), a call of an imported helper stays
// the call itself; a name rebound after the import is not followed either.
TEST(ValueFlow, HelperReturnsNeedTheProject) {
  Flow alone(R"(from utils import get_device
a = get_device()
a
)");
  EXPECT_EQ(alone.values("a", 1), "get_device()");
  Flow rebound(R"(from utils import get_device
if cond:
    from other import get_device
a = get_device()
a
)",
               std::make_shared<const HelperFile>(kHelpers));
  EXPECT_EQ(rebound.values("a", 1), "get_device()");
}

}  // namespace
