// PTL505 dynamo-suppress-errors: `torch._dynamo.config.suppress_errors = True`.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kDynamoSuppressErrors{
    .code = "PTL505",
    .name = "dynamo-suppress-errors",
    .summary = "`torch._dynamo.config.suppress_errors = True` hides compile failures",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports assignments of `True` (or a name bound once to `True`) to
`torch._dynamo.config.suppress_errors`, through any import or alias
(`import torch._dynamo as dynamo; dynamo.config.suppress_errors = True`,
`from torch._dynamo import config`).

## Why is this bad?
With `suppress_errors`, a failure anywhere in `torch.compile` — Dynamo, AOTAutograd, Inductor —
is logged and the frame silently runs eagerly instead. PyTorch's own comment on the option
(`torch/_dynamo/config.py`): "Suppress errors in torch._dynamo.optimize, instead forcing a
fallback to eager. This is a good way to get your model to work one way or another, but you may
lose optimization opportunities this way. Devs, if your benchmark model is failing this way,
you should figure out why instead of suppressing it." A model can then run without any
compilation while everyone believes it is compiled, and a regression in compile support shows
up only as a slowdown.

## Example
```python
import torch._dynamo

torch._dynamo.config.suppress_errors = True
model = torch.compile(model)
```

## Use instead
Let compile errors surface and fix them, or exclude the failing function explicitly:
```python
import torch

@torch.compiler.disable
def unsupported_part(x):
    ...
```

## Fix safety
There is no fix: removing the setting makes failing compilations raise.

## Releases
`torch/_dynamo/config.py`: `suppress_errors` in 2.6 and 2.14; no `torch._dynamo` in 1.13.

## References
- [`torch/_dynamo/config.py`: `suppress_errors`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/config.py)
- [torch.compile troubleshooting](https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
)md"};

class DynamoSuppressErrors final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDynamoSuppressErrors; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::assignment}; }
  Prefilter prefilter() const override {
    return {.words = {"suppress_errors"}, .whole_words = true, .words_in_code = true, .tree_names = {{"suppress_errors"}}};
  }

  void check(TSNode assignment, Context& ctx) const override {
    TSNode left = fieldOf(assignment, "left");
    if (!isKind(left, kind::attribute) || ctx.text(fieldOf(left, "attribute")) != "suppress_errors") return;
    if (!ctx.model().refersTo(left, "torch._dynamo.config.suppress_errors")) return;
    if (boolValue(ctx.model(), fieldOf(assignment, "right")) != true) return;
    Diagnostic& d = ctx.report(assignment, "`suppress_errors = True` hides compile failures; remove it");
    d.help = "To run code that fails to compile eagerly, apply `torch.compiler.disable` to it.";
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL505, DynamoSuppressErrors)

}  // namespace ptlint::rules
