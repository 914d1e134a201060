// PTL703 cudnn-benchmark-with-determinism: `cudnn.benchmark = True` next to a request for
// deterministic results.
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kCudnnBenchmarkWithDeterminism{
    .code = "PTL703",
    .name = "cudnn-benchmark-with-determinism",
    .summary = "`cudnn.benchmark = True` where determinism is also requested",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.backends.cudnn.benchmark = True` (any import or alias, e.g.
`from torch.backends import cudnn`; a value bound once to `True` counts) when the same function
— or, at module level, the module's own top-level code — also asks for determinism with
`torch.backends.cudnn.deterministic = True` or `torch.use_deterministic_algorithms(True)`.
Settings in different branches of one `if`/`else` (`if deterministic: ... else:
cudnn.benchmark = True`) are not reported, nor are values the analysis cannot resolve
(`cudnn.benchmark = not args.deterministic`). The determinism request is given as related
information.

## Why is this bad?
With `benchmark = True`, cuDNN times several convolution algorithms on the first call for
each input shape and keeps the fastest; which one wins depends on timing noise, so two runs
can pick different algorithms and produce different results. PyTorch's reproducibility notes:
"Disabling the benchmarking feature with `torch.backends.cudnn.benchmark = False` causes cuDNN
to deterministically select an algorithm, possibly at the cost of reduced performance." The
two settings pull in opposite directions; asking for both means the run is not reproducible
in the way the author intended.

## Example
```python
import torch

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = True
```

## Use instead
```python
import torch

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
```

## Fix safety
The fix replaces a literal `True` with `False`. It is unsafe: convolutions may get slower, and
the author may have wanted speed rather than determinism (then drop the determinism request
instead).

## Releases
`torch/backends/cudnn/__init__.py`: `benchmark` and `deterministic` in 1.13, 2.6 and 2.14; the
premise holds 1.13–2.14.

## References
- [Reproducibility: cuDNN (PyTorch notes)](https://pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-benchmarking)
- [`torch.backends.cudnn`](https://pytorch.org/docs/stable/backends.html#torch-backends-cudnn)
)md"};

// A determinism request in `scope` (not inside nested defs or classes) that can run together with
// `setting`: `cudnn.deterministic = True` or `use_deterministic_algorithms(True)`. Null if none.
TSNode determinismRequest(const analysis::SemanticModel& model, TSNode scope, TSNode setting) {
  std::string_view source = model.file().text();
  TSNode found{};
  analysis::walkTree(
      scope,
      [&](TSNode node) {
        if (!ts_node_is_null(found)) return false;
        if (!analysis::sameNode(node, scope) && isCodeBoundary(node)) return false;
        if (isKind(node, kind::string) || isKind(node, kind::comment)) return false;
        if (isKind(node, kind::assignment)) {
          if (model.refersTo(fieldOf(node, "left"), "torch.backends.cudnn.deterministic") &&
              boolValue(model, fieldOf(node, "right")) == true && !inExclusiveBranches(node, setting))
            found = node;
          return true;
        }
        if (isKind(node, kind::call)) {
          auto callee = model.calleeName(node);
          if (callee && *callee == "torch.use_deterministic_algorithms") {
            TSNode mode = analysis::argumentFor(node, 0, "mode", source);
            if (boolValue(model, mode) == true && !inExclusiveBranches(node, setting)) found = node;
          }
        }
        return true;
      },
      [](TSNode) {});
  return found;
}

class CudnnBenchmarkWithDeterminism final : public Rule {
 public:
  const RuleMeta& meta() const override { return kCudnnBenchmarkWithDeterminism; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::assignment}; }
  // Before parsing, on the code without strings and comments: the same names, and `cudnn`, which
  // every chain or import reaching `torch.backends.cudnn.benchmark` spells (parameters named
  // `benchmark` and `deterministic` do not make a finding).
  // `cudnn.benchmark` and a determinism request (`deterministic` / `use_deterministic_algorithms`).
  Prefilter prefilter() const override {
    return {.words = {"benchmark"},
            .whole_words = true,
            .also = {{"cudnn"}, {"deterministic"}},
            .code_names = {{"benchmark"}, {"cudnn"}, {"deterministic", "use_deterministic_algorithms"}},
            .tree_names = {{"benchmark"}, {"deterministic", "use_deterministic_algorithms"}}};
  }

  void check(TSNode assignment, Context& ctx) const override {
    const auto& model = ctx.model();
    TSNode left = fieldOf(assignment, "left");
    if (!isKind(left, kind::attribute) || ctx.text(fieldOf(left, "attribute")) != "benchmark") return;
    if (!model.refersTo(left, "torch.backends.cudnn.benchmark")) return;
    TSNode right = fieldOf(assignment, "right");
    if (boolValue(model, right) != true) return;
    TSNode scope = enclosingFunctionOrModule(assignment);
    TSNode request = determinismRequest(model, scope, assignment);
    if (ts_node_is_null(request)) return;
    Diagnostic& d = ctx.report(assignment,
                               "`cudnn.benchmark = True` defeats the determinism requested here; set it to `False`");
    d.related.push_back({analysis::startOf(request), analysis::endOf(request), "determinism is requested here"});
    if (!isKind(analysis::unparenthesize(right), kind::true_)) return;
    TSNode literal = analysis::unparenthesize(right);
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Set `cudnn.benchmark = False`";
    fix.edits.push_back({analysis::startOf(literal), analysis::endOf(literal), "False"});
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL703, CudnnBenchmarkWithDeterminism)

}  // namespace ptlint::rules
