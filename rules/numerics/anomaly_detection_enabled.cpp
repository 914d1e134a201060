// PTL701 anomaly-detection-enabled: autograd anomaly detection switched on unconditionally.
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kAnomalyDetectionEnabled{
    .code = "PTL701",
    .name = "anomaly-detection-enabled",
    .summary = "Autograd anomaly detection enabled unconditionally",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.autograd.set_detect_anomaly(True)` (also `mode=True`, or a name bound once to
`True`) and `torch.autograd.detect_anomaly()` (as a context manager, a decorator or a call),
through any import or alias, when the call is not lexically under an `if`/`elif`/`else`, a
`while`, a `match` case, a conditional expression, a boolean `and`/`or` operand or an `except`
handler of the function it is in. `set_detect_anomaly(args.debug)` and `set_detect_anomaly(False)`
are not reported, nor is `with detect_anomaly():` under `if args.debug:`.

## Why is this bad?
Anomaly detection makes autograd record the Python traceback of every forward operation and
check every backward result for NaN. PyTorch warns when it is enabled: "Anomaly Detection has
been enabled. This mode will increase the runtime and should only be enabled for debugging."
(`torch/autograd/anomaly_mode.py`), and the documentation of `detect_anomaly`: "This mode should
be enabled only for debugging as the different tests will slow down your program execution."
Left on in a training script, every step pays for it.

## Example
```python
import torch

torch.autograd.set_detect_anomaly(True)
for batch in loader:
    loss = model(batch).sum()
    loss.backward()
```

## Use instead
```python
import torch

torch.autograd.set_detect_anomaly(args.debug)
```
or turn it on only while investigating, under a flag.

## Fix safety
There is no fix: whether and how to gate debugging is the author's choice.

## Releases
`torch/autograd/anomaly_mode.py`: `set_detect_anomaly` / `detect_anomaly` in 1.13, 2.6 and 2.14;
the premise holds 1.13–2.14.

## References
- [`torch.autograd.detect_anomaly` / `set_detect_anomaly`](https://pytorch.org/docs/stable/autograd.html#anomaly-detection)
- [`torch/autograd/anomaly_mode.py`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/autograd/anomaly_mode.py)
)md"};

class AnomalyDetectionEnabled final : public Rule {
 public:
  const RuleMeta& meta() const override { return kAnomalyDetectionEnabled; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // `set_detect_anomaly` contains it: one search for both.
  // The same before parsing, on the code without strings and comments.
  Prefilter prefilter() const override {
    return {.words = {"detect_anomaly"},
            .code_names = {{"detect_anomaly", "set_detect_anomaly"}},
            .tree_names = {{"detect_anomaly", "set_detect_anomaly"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    auto callee = model.calleeName(call);
    if (!callee) return;
    bool set = *callee == "torch.autograd.set_detect_anomaly" || *callee == "torch.autograd.anomaly_mode.set_detect_anomaly";
    bool ctxmgr = *callee == "torch.autograd.detect_anomaly" || *callee == "torch.autograd.anomaly_mode.detect_anomaly";
    if (!set && !ctxmgr) return;
    if (set) {
      TSNode mode = analysis::argumentFor(call, 0, "mode", ctx.source());
      if (boolValue(model, mode) != true) return;
    }
    if (isUnderCondition(call)) return;
    ctx.report(call, fmt::format("`{}` slows every step; enable it only under a debug flag",
                                 ctx.text(fieldOf(call, "function"))));
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL701, AnomalyDetectionEnabled)

}  // namespace ptlint::rules
