// PTL504 data-dependent-branch-in-compiled-region: `if`/`while`/conditional expressions in
// compiled code whose test reads a tensor's value.
#include <array>
#include <string>

#include "analysis/compiled_regions.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/tensor_values.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/compile/compiled_region_rule.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kDataDependentBranch{
    .code = "PTL504",
    .name = "data-dependent-branch-in-compiled-region",
    .summary = "Branch on a tensor's value inside compiled code",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports `if` and `elif` statements, `while` loops and conditional expressions (`a if c else b`)
inside code that `torch.compile` traces (the same compiled regions as PTL501, compile sites in
other files of the project included) whose test calls
`.item()`, `.any()`, `.all()`, `torch.any`, `torch.all`, `torch.equal`, `torch.allclose`,
`torch.is_nonzero`, or `bool(...)` of a tensor-valued `torch` call (`bool(torch.isnan(x))`),
through any import or alias, and tests that use a value known to be a tensor as a `bool`:
`if x.sum() > 0:`, `while x.max() > 1:`, `if bool(x.sum()):`, `if (x > 0).sum():`. A value is
known to be a tensor when it comes from a tensor-returning `torch` call, a reduction method of
any value (`x.sum()`, `x.mean()`, `x.max()` without a dimension: Python numbers and lists have
none, and Dynamo traces a NumPy array as a tensor, so `if x.sum() > 0:` breaks for an
unannotated parameter `x` too), a tensor method on a tensor, arithmetic or a comparison with
one, or a parameter annotated `torch.Tensor` (every rebinding included); a bare parameter
without annotation (`if items:`) is not. Sizes are not values:
`x.shape[0] > 1`, `x.size(0)`, `x.ndim`, `x.dim()`, `x.numel()` and `len(x)` are static under
the default dynamic-shape settings (Dynamo guards on them) and are not reported; on PyTorch 2.6
and 2.14 each reported form is a graph break ("Dynamic control flow is not supported" on 2.6,
"Data-dependent branching" on 2.14). `assert` statements are not reported: Dynamo rewrites an assert on
a tensor to `torch._assert_async` (`torch._dynamo.config.rewrite_assert_with_torch_assert`,
on by default). Code guarded by `torch.compiler.is_compiling()` and functions under
`torch.compiler.disable` are not compiled and not reported.

## Why is this bad?
A Python branch needs a Python `bool`, and a tensor's value only exists on the device at run
time. Dynamo cannot trace through it: it ends the graph before the test, runs the test eagerly
(copying the value to the host, which waits for all queued device work), and starts a new graph
in the branch taken. The PyTorch documentation lists data-dependent control flow among the
common graph breaks and points to `torch.cond` for branches that must stay in the graph. Every
step then pays a device synchronisation and loses the fusion across the break; under
`fullgraph=True` it is an error.

## Example
```python
import torch

@torch.compile
def step(x):
    if x.sum() > 0 and (x > 1).any():   # graph break + sync every call
        return x * 2
    return x
```

## Use instead
Keep the choice on the device:
```python
import torch

@torch.compile
def step(x):
    return torch.where((x > 1).any(), x * 2, x)
```
or `torch.cond(pred, true_fn, false_fn, (x,))` when both branches are functions.

## Fix safety
There is no fix: which tensor formulation is right depends on the branch.

## Releases
`torch.compile` exists from 2.0 (`torch/__init__.py` of 2.6 and 2.14; absent from 1.13).

## References
- [Common graph breaks: data-dependent operations (PyTorch docs)](https://docs.pytorch.org/docs/stable/compile/programming_model.common_graph_breaks.html)
- [`torch.cond`](https://docs.pytorch.org/docs/stable/generated/torch.cond.html)
- [`torch/_dynamo/config.py`: `rewrite_assert_with_torch_assert`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/config.py)
)md"};

bool isTensorReadingFunction(std::string_view qualified) {
  static constexpr std::array<std::string_view, 5> kFunctions{"torch.any", "torch.all", "torch.equal",
                                                              "torch.allclose", "torch.is_nonzero"};
  for (auto f : kFunctions)
    if (qualified == f) return true;
  return false;
}

// `torch` functions that return a tensor, for `bool(torch.isnan(x))`.
bool isTensorValuedFunction(std::string_view qualified) {
  static constexpr std::array<std::string_view, 17> kFunctions{
      "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isclose", "torch.eq", "torch.ne",
      "torch.gt", "torch.lt", "torch.ge", "torch.le", "torch.logical_and", "torch.logical_or",
      "torch.logical_not", "torch.count_nonzero", "torch.sum", "torch.max", "torch.min"};
  for (auto f : kFunctions)
    if (qualified == f) return true;
  return false;
}

// What in `test` reads a tensor's value, as the user wrote it; empty when nothing does.
std::string valueRead(const analysis::SemanticModel& model, TSNode test) {
  std::string_view source = model.file().text();
  std::string found;
  analysis::walkTree(
      test,
      [&](TSNode node) {
        if (!found.empty() || isKind(node, kind::lambda) || isKind(node, kind::string)) return false;
        if (!isKind(node, kind::call)) return true;
        std::string_view method = methodName(node, source);
        if ((method == "item" || method == "any" || method == "all") && analysis::hasNoArguments(node)) {
          found = std::string(analysis::textOf(node, source));
          return false;
        }
        auto callee = model.calleeName(node);
        if (callee && isTensorReadingFunction(*callee)) {
          found = std::string(analysis::textOf(node, source));
          return false;
        }
        if (isBuiltinCall(model, node, "bool")) {
          auto args = positionalArguments(node);
          // `bool(torch.isnan(x))`, `bool(torch.isnan(x).sum())`: a method chain on a tensor.
          TSNode inner = args.size() == 1 ? analysis::unparenthesize(args[0]) : TSNode{};
          for (int hops = 0; hops < 8 && isKind(inner, kind::call); ++hops) {
            auto name = model.calleeName(inner);
            if (name && isTensorValuedFunction(*name)) {
              found = std::string(analysis::textOf(node, source));
              return false;
            }
            TSNode callee = fieldOf(inner, "function");
            if (!isKind(callee, kind::attribute)) break;
            inner = analysis::unparenthesize(fieldOf(callee, "object"));
          }
        }
        return true;
      },
      [](TSNode) {});
  // `x.sum() > 0`, `bool(x.max())`, `x.mean()`: a value known to be a tensor used as a `bool`.
  if (found.empty()) {
    TSNode read = analysis::tensorTruthRead(model, test);
    if (!ts_node_is_null(read)) found = std::string(analysis::textOf(read, source));
  }
  if (found.size() > 60) found = found.substr(0, 57) + "...";
  return found;
}

// The calls through which every finding reads a tensor's value (`x.item()`, `(x > 0).any()`).
// Also the words of what `tensorTruthRead` knows to be a tensor: a reduction compared
// (`x.sum() > 0`), a `torch` call, a parameter annotated `Tensor`.
constexpr std::array<std::string_view, 19> kReads{"item", "any",  "all",  "equal", "allclose", "is_nonzero", "bool",
                                                  "sum",  "mean", "max",  "min",   "amax",     "amin",       "norm",
                                                  "prod", "std",  "var",  "abs",   "count_nonzero"};
// Words whose mere presence may make a value a tensor (`x: Tensor`, `t = torch.zeros(...)`).
constexpr std::array<std::string_view, 2> kTensorWords{"Tensor", "torch"};

// Does the text call one of them (the name, then `(`)?
bool callsARead(std::string_view text) {
  for (std::string_view word : kReads) {
    bool called = analysis::forEachWholeWord(text, word, [&](size_t at) {
      size_t after = at + word.size();
      while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
      return after < text.size() && text[after] == '(';
    });
    if (called) return true;
  }
  for (std::string_view word : kTensorWords)
    if (analysis::forEachWholeWord(text, word, [](size_t) { return true; })) return true;
  return false;
}

class DataDependentBranchInCompiledRegion final : public CompiledRegionRule {
 public:
  const RuleMeta& meta() const override { return kDataDependentBranch; }
  std::vector<analysis::NodeKind> nodeKinds() const override {
    return {kind::if_statement, kind::elif_clause, kind::while_statement, kind::conditional_expression};
  }
  Prefilter prefilter() const override {
    Prefilter pre = CompiledRegionRule::prefilter();
    pre.project_words.push_back("Tensor");
    return pre;
  }

  void check(TSNode node, Context& ctx) const override {
    TSNode test = isKind(node, kind::conditional_expression) ? ts_node_named_child(node, 1) : fieldOf(node, "condition");
    if (ts_node_is_null(test)) return;
    const auto& model = ctx.model();
    std::string read = valueRead(model, test);
    if (read.empty()) return;
    const auto* fn = compiledFunctionAt(node, model, ctx.settings());
    if (fn == nullptr) return;

    std::string_view construct = isKind(node, kind::if_statement)     ? "`if`"
                                 : isKind(node, kind::elif_clause)    ? "`elif`"
                                 : isKind(node, kind::while_statement) ? "`while`"
                                                                   : "conditional expression";
    std::string where = compiledFunctionPhrase(*fn);
    Diagnostic& d = ctx.report(
        test, fmt::format("{} on tensor `{}` in {} breaks the graph; use `torch.where`/`torch.cond`", construct, read, where));
    d.help = "Or move the branch out of the compiled code.";
    addCompilePath(d, *fn);
  }

 protected:
  // Every finding reads a value through one of these calls, anywhere in its compiled function.
  std::vector<std::string_view> findingWords() const override { return {kReads.begin(), kReads.end()}; }
  bool mayHoldFinding(const analysis::ParsedFile& file) const override { return callsARead(file.text()); }
  bool findingsSpellWords() const override { return false; }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL504, DataDependentBranchInCompiledRegion)

}  // namespace ptlint::rules
