// PTL605 sdpa-dropout-in-eval: `scaled_dot_product_attention(..., dropout_p=p)` in a module's
// method with `p` fixed for the module's life, so that dropout stays on in `eval()`.
#include <string>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/common/dropout_values.h"
#include "rules/common/module_methods.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kSdpaDropoutInEval{
    .code = "PTL605",
    .name = "sdpa-dropout-in-eval",
    .summary = "`scaled_dot_product_attention` with a `dropout_p` that stays on in `eval()`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports `torch.nn.functional.scaled_dot_product_attention(...)` (any import or alias) called in
a method of an `nn.Module` subclass with a `dropout_p` (keyword or fifth positional argument)
that does not depend on the module's mode: a non-zero number, the module's own attribute
(`self.dropout`, `self.config.attn_pdrop`, `self.attn_drop.p`) or a local name bound once to one
of these. It is not reported when the method reads `training` anywhere
(`dropout_p=self.p if self.training else 0.0`, a call under `if self.training:`, an early
`if not self.training: return`), when the class overrides `train()` or `eval()`, when the
attribute is a property or bound more than once, or when the probability is a parameter of the
method (the caller decides).

## Why is this bad?
Unlike `nn.Dropout`, `scaled_dot_product_attention` is a function: it does not know whether the
module calling it is in training or evaluation mode. Its documentation
(`torch/nn/functional.py`, PyTorch 2.0 to 2.14) says so: "This function always applies dropout
according to the specified `dropout_p` argument. To disable dropout during evaluation, be sure
to pass a value of `0.0` when the module that makes the function call is not in training mode."
After `model.eval()`, attention weights are still dropped at random: validation metrics are
noisy and worse than the model's, and inference is not deterministic.

## Example
```python
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dropout=0.1):
        super().__init__()
        self.dropout = dropout

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout)
```

## Use instead
```python
class Attention(nn.Module):
    def __init__(self, dropout=0.1):
        super().__init__()
        self.dropout = dropout

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0)
```

## Fix safety
The fix makes the probability `<p> if self.training else 0.0`. It is unsafe: it changes what the
module computes in evaluation mode (which is the point), and code that relied on attention
dropout at inference (Monte Carlo dropout) would lose it.

## Releases
`torch/nn/functional.py`: public `scaled_dot_product_attention` with `dropout_p` in 2.6 and 2.14
(2.0's; 1.13 has only a private one); its dropout ignores `eval()` at every release that has it.

## References
- [`torch.nn.functional.scaled_dot_product_attention`](https://docs.pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
- [`torch/nn/functional.py` (2.6), the docstring of `scaled_dot_product_attention`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/nn/functional.py)
)md"};

// Kinds that read as one operand before `if` without parentheses.
bool isAtom(TSNode node) {
  analysis::NodeKind kind = analysis::kindOf(node);
  return kind == kind::identifier || kind == kind::attribute || kind == kind::integer || kind == kind::float_ || kind == kind::call ||
         kind == kind::subscript || kind == kind::parenthesized_expression;
}

class SdpaDropoutInEval final : public Rule {
 public:
  const RuleMeta& meta() const override { return kSdpaDropoutInEval; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"scaled_dot_product_attention"},
            .whole_words = true,
            .words_in_code = true,
            .tree_names = {{"scaled_dot_product_attention"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    TSNode callee = fieldOf(call, "function");
    if (analysis::isKind(callee, kind::attribute) && ctx.text(fieldOf(callee, "attribute")) != "scaled_dot_product_attention")
      return;
    if (!model.refersTo(callee, "torch.nn.functional.scaled_dot_product_attention")) return;
    TSNode value = analysis::argumentFor(call, 4, "dropout_p", ctx.source());
    if (ts_node_is_null(value)) return;  // the default, 0.0 (or hidden in **kwargs)
    ModeBlindMethod method;
    if (!modeBlindModuleMethod(model, call, method)) return;
    if (!isModeBlindProbability(model, value, method.cls, method.self)) return;

    Diagnostic& d = ctx.report(
        value, fmt::format("`dropout_p` also applies in `eval()`; pass `{} if {}.training else 0.0`",
                           ctx.text(value), method.self));
    std::string operand(ctx.text(value));
    if (!isAtom(analysis::unparenthesize(value))) operand = "(" + operand + ")";
    std::string gated = fmt::format("{} if {}.training else 0.0", operand, method.self);
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, fmt::format("Replace `dropout_p` with `{}`", gated),
                          {{analysis::startOf(value), analysis::endOf(value), gated}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL605, SdpaDropoutInEval)

}  // namespace ptlint::rules
