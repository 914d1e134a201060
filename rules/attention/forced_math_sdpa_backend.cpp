// PTL604 forced-math-sdpa-backend: `sdpa_kernel(SDPBackend.MATH)` alone.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/attention/sdpa_backends.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kForcedMathSdpaBackend{
    .code = "PTL604",
    .name = "forced-math-sdpa-backend",
    .summary = "`sdpa_kernel(SDPBackend.MATH)` forces the slow reference attention",
    .fix = FixAvailability::None,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "2.3",
    .docs = R"md(
## What it does
Reports `torch.nn.attention.sdpa_kernel(...)` calls (any import or alias) whose only allowed
backend is `SDPBackend.MATH` (alone or as a one-element list), and the deprecated
`torch.backends.cuda.sdp_kernel(...)` with every flag but `enable_math` literally `False`.
Off by default: tests and numerical comparisons select the math backend on purpose.

## Why is this bad?
The math backend is PyTorch's reference implementation of `scaled_dot_product_attention`:
plain matrix products and a softmax in separate kernels, materialising the whole
`(L, S)` attention matrix for every head. The fused backends (FlashAttention, memory-efficient,
cuDNN) compute the same result without storing that matrix, faster and in far less memory.
Forcing math in production code gives all of that up.

## Example
```python
from torch.nn.attention import SDPBackend, sdpa_kernel

with sdpa_kernel(SDPBackend.MATH):
    out = model(x)
```

## Use instead
Let PyTorch choose, or list the fused backends you want to allow:
```python
with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
    out = model(x)
```

## Fix safety
There is no fix.

## Releases
`torch/nn/attention/__init__.py`: `sdpa_kernel` in 2.6 and 2.14, not in 1.13 (the list form is
2.3's).

## References
- [`torch.nn.attention.sdpa_kernel`](https://pytorch.org/docs/stable/generated/torch.nn.attention.sdpa_kernel.html)
- [`torch.nn.functional.scaled_dot_product_attention` (the backends)](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
)md"};

class ForcedMathSdpaBackend final : public Rule {
 public:
  const RuleMeta& meta() const override { return kForcedMathSdpaBackend; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"sdpa_kernel", "sdp_kernel"}}; }

  void check(TSNode call, Context& ctx) const override {
    auto backends = attention::allowedBackends(ctx.model(), call);
    if (!backends || backends->size() != 1 || !backends->count("MATH")) return;
    ctx.report(call, "Only the unfused math attention backend is allowed; allow the fused backends too");
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL604, ForcedMathSdpaBackend)

}  // namespace ptlint::rules
