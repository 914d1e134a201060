// PTL502 graph-break-call-in-compiled-region: `print`, `breakpoint()`, `pdb.set_trace()`,
// `input()`, `.backward()` and `torch.autograd.grad()` inside code that torch.compile traces.
#include <array>
#include <string>

#include "analysis/compiled_regions.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/compile/compiled_region_rule.h"
#include "rules/common/blocks.h"
#include "rules/common/training_loops.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kGraphBreakCall{
    .code = "PTL502",
    .name = "graph-break-call-in-compiled-region",
    .summary = "`print`, `breakpoint()`, `pdb.set_trace()`, `input()`, `.backward()` or `optimizer.step()` inside compiled code",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports calls of the builtins `print`, `breakpoint` and `input`, and of `pdb.set_trace()`
(any import form: `import pdb`, `from pdb import set_trace`), and the backward calls
`loss.backward()`, `torch.autograd.backward(...)` and `torch.autograd.grad(...)`, and
`optimizer.step()` (a name or `self.<attr>` bound to a `torch.optim` optimizer, or spelling
`optim`/`opt`), inside code that `torch.compile`
traces — the same compiled regions as PTL501 (`item-in-compiled-region`): functions decorated
with or passed to `torch.compile`, the `forward` of a compiled module, and what they call —
across the files of the project too (`model = torch.compile(Net())` in `train.py` compiles
`Net.forward` in `net.py`) — except under `torch.compiler.disable` or a
`torch.compiler.is_compiling()` guard.
A local function or import named `print` is not the builtin and is not reported. `.numpy()` is
not reported: Dynamo traces it since 2.1. In a file that configures
`torch._dynamo.config.reorderable_logging_functions`, `print` is not reported; in one that sets
`torch._dynamo.config.trace_autograd_ops`, the backward calls are not.

## Why is this bad?
Dynamo cannot put a Python side effect such as writing to the terminal, reading from stdin or
entering a debugger into an FX graph. It stops the graph before the call, runs the call in
Python, and resumes in a new graph: every step pays the break, loses the fusions across it and
often recompiles; under `fullgraph=True` it is an error. PyTorch's Dynamo configuration
(`torch/_dynamo/config.py`) keeps `reorderable_logging_functions` — "a set of logging functions
which will be reordered to the end of graph breaks, allowing dynamo to construct large graph" —
empty by default, so a `print` is a graph break. A debugger breakpoint in compiled code does
not stop where the author expects either: it runs in the eager fragment between graphs.

Dynamo does not trace the backward pass from inside a compiled function either: `Tensor.backward`
is `unimplemented("Tensor.backward")` in `torch/_dynamo/variables/tensor.py` and
`torch.autograd.grad` a skipped function in `torch/_dynamo/trace_rules.py` (2.6), and 2.14's
graph-break registry (`torch/_dynamo/graph_break_registry.json`, GB0123 "Unsupported
Tensor.backward() call", GB9186 for `torch.autograd.grad`) breaks on both while
`torch._dynamo.config.trace_autograd_ops` is `False`, its default. The forward graph ends at the
call and the rest of the step runs in a new graph. Compile the model (or the loss computation)
and call `backward()` outside it; the backward graph is still compiled (AOTAutograd).
`Optimizer.step` is wrapped by `_use_grad_for_differentiable` (`torch/optim/optimizer.py`, 2.6
and 2.14), which calls `torch._dynamo.graph_break()` before and after the update on purpose, so
that the update is compiled as a graph of its own: a training step compiled as one function
breaks into three graphs there.

## Example
```python
import torch

@torch.compile
def step(x):
    y = x.sin()
    print("y", y.shape)      # graph break every call
    return y.cos()
```

## Use instead
Log outside the compiled function, or from a function excluded from compilation:
```python
import torch

@torch.compiler.disable
def log_shape(y):
    print("y", y.shape)

@torch.compile
def step(x):
    y = x.sin()
    log_shape(y)             # still a break, but an explicit and visible one
    return y.cos()
```
or add `print` to `torch._dynamo.config.reorderable_logging_functions` to move prints
to the end of the graph.

## Fix safety
There is no fix: removing a print or a breakpoint is the author's decision.

## Releases
`torch.compile` exists from 2.0 (`torch/__init__.py` of 2.6 and 2.14; absent from 1.13); the graph
breaks named are those 2.14's `graph_break_registry.json` lists.

## References
- [`torch/_dynamo/config.py`: `reorderable_logging_functions`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/config.py)
- [Common graph breaks (PyTorch docs)](https://docs.pytorch.org/docs/stable/compile/programming_model.common_graph_breaks.html)
- [torch.compile troubleshooting: graph breaks](https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
)md"};

// The name of a graph-breaking call, or empty.
std::string graphBreakingCall(const analysis::SemanticModel& model, TSNode call, bool prints_reorderable,
                              bool traces_autograd) {
  if (!traces_autograd) {
    if (isBackwardCall(model, call)) {
      auto callee = model.calleeName(call);
      return callee && *callee == "torch.autograd.backward" ? "torch.autograd.backward()" : ".backward()";
    }
    auto callee = model.calleeName(call);
    if (callee && *callee == "torch.autograd.grad") return "torch.autograd.grad()";
  }
  if (methodName(call, model.file().text()) == "step") {
    TSNode receiver = analysis::fieldOf(analysis::fieldOf(call, "function"), "object");
    if (looksLikeOptimizer(model, receiver)) return std::string(model.text(receiver)) + ".step()";
  }
  for (std::string_view builtin : {"print", "breakpoint", "input"}) {
    if (builtin == "print" && prints_reorderable) continue;
    if (isBuiltinCall(model, call, builtin)) return std::string(builtin) + "()";
  }
  auto callee = model.calleeName(call);
  if (callee && (*callee == "pdb.set_trace" || *callee == "ipdb.set_trace")) return *callee + "()";
  return {};
}

// The calls this rule reports: `print`, `breakpoint`, `pdb.set_trace`, `input`, `backward`,
// `torch.autograd.grad`, `optimizer.step`.
constexpr std::array<std::string_view, 7> kCalls{"print", "breakpoint", "set_trace", "input", "backward", "grad", "step"};

class GraphBreakCallInCompiledRegion final : public CompiledRegionRule {
 public:
  const RuleMeta& meta() const override { return kGraphBreakCall; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    Prefilter pre = CompiledRegionRule::prefilter();
    pre.words = {"compile"};
    return pre;
  }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = analysis::fieldOf(call, "function");
    std::string_view last = analysis::isKind(callee, kind::attribute)
                                ? ctx.text(analysis::fieldOf(callee, "attribute"))
                                : ctx.text(callee);
    if (last != "print" && last != "breakpoint" && last != "input" && last != "set_trace" && last != "backward" &&
        last != "grad" && last != "step")
      return;
    const auto& model = ctx.model();
    bool reorderable = analysis::findBytes(ctx.source(), "reorderable_logging_functions") != std::string_view::npos;
    bool traces_autograd = analysis::findBytes(ctx.source(), "trace_autograd_ops") != std::string_view::npos;
    std::string what = graphBreakingCall(model, call, reorderable, traces_autograd);
    if (what.empty()) return;
    const auto* fn = compiledFunctionAt(call, model, ctx.settings());
    if (fn == nullptr) return;

    std::string where = compiledFunctionPhrase(*fn);
    std::string message =
        what == "print()"
            ? fmt::format("`print()` in {} breaks the graph; log outside compiled code",
                          where)
        : what.ends_with(".step()")
            ? fmt::format("`{}` in {} breaks the graph twice; step outside compiled code",
                          what, where)
        : what.ends_with("backward()") || what == "torch.autograd.grad()"
            ? fmt::format("`{}` in {} breaks the graph; call it outside compiled code",
                          what, where)
            : fmt::format("`{}` in {} breaks the graph; remove it or move it out of compiled code",
                          what, where);
    Diagnostic& d = ctx.report(call, std::move(message));
    addCompilePath(d, *fn);
  }

 protected:
  // Every finding is a call spelling one of these names.
  std::vector<std::string_view> findingWords() const override { return {kCalls.begin(), kCalls.end()}; }
  bool mayHoldFinding(const analysis::ParsedFile& file) const override {
    for (std::string_view word : kCalls)
      if (namesIdentifier(file, word)) return true;
    return false;
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL502, GraphBreakCallInCompiledRegion)

}  // namespace ptlint::rules
