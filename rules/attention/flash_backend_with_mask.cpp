// PTL602 flash-backend-with-mask: `scaled_dot_product_attention(..., attn_mask=...)` where only
// FlashAttention is allowed, which takes no mask.
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/attention/sdpa_backends.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::isKind;

constexpr RuleMeta kFlashBackendWithMask{
    .code = "PTL602",
    .name = "flash-backend-with-mask",
    .summary = "`scaled_dot_product_attention` with a mask where only FlashAttention may run",
    .fix = FixAvailability::None,
    .severity = Severity::Error,
    .enabled_by_default = true,
    .since_torch = "2.3",
    .docs = R"md(
## What it does
Reports `torch.nn.functional.scaled_dot_product_attention(...)` calls (any import or alias)
that pass an `attn_mask` (keyword or fourth positional argument) other than a literal `None`,
written inside the body of a `with` statement whose innermost backend selection allows no
backend that takes a mask:

- `torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION)`, or a list/tuple of backends
  with FlashAttention and none of `EFFICIENT_ATTENTION`, `MATH` or (from 2.5)
  `CUDNN_ATTENTION`;
- the deprecated `torch.backends.cuda.sdp_kernel(...)` with `enable_math=False`,
  `enable_mem_efficient=False` and — the cuDNN backend is on by default and takes a mask from
  2.5 — `enable_cudnn=False` (with `torch-version` below 2.5 its value does not matter).

A call with `is_causal=True` and no mask is not reported: FlashAttention handles causal
masking itself. Backends the analysis cannot resolve (a variable list, a parameter) are not
reported.

## Why is this bad?
FlashAttention has no input for an arbitrary mask: in PyTorch's dispatcher
(`aten/src/ATen/native/transformers/cuda/sdp_utils.cpp`) `can_use_flash_attention` rejects any
call with a non-null `attn_mask` (`check_for_attn_mask`). When no other allowed backend can take
the call, `scaled_dot_product_attention` raises `RuntimeError: No available kernel. Aborting
execution.` at run time. The memory-efficient and math backends accept a mask, and so does cuDNN
attention from PyTorch 2.5.

## Example
```python
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask)
```

## Use instead
For a causal mask, let the kernel build it:
```python
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
```
for any other mask, allow a backend that takes one:
```python
with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=padding_mask)
```

## Fix safety
There is no fix: replacing a mask by `is_causal=True` is only right for a causal mask.

## Releases
`torch/nn/attention/__init__.py`: `sdpa_kernel` with a list of backends from 2.3 (absent from
1.13); cuDNN attention takes a mask from 2.5 — the message and the verdict follow the range's
oldest release.

## References
- [`torch.nn.attention.sdpa_kernel`](https://pytorch.org/docs/stable/generated/torch.nn.attention.sdpa_kernel.html)
- [`torch.nn.functional.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
- [`sdp_utils.cpp`: backend constraints](https://github.com/pytorch/pytorch/blob/v2.6.0/aten/src/ATen/native/transformers/cuda/sdp_utils.cpp)
)md"};

class FlashBackendWithMask final : public Rule {
 public:
  const RuleMeta& meta() const override { return kFlashBackendWithMask; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"scaled_dot_product_attention"},
            .also = {{"sdp"}, {"sdpa_kernel", "sdp_kernel"}},
            .tree_names = {{"scaled_dot_product_attention"}, {"sdpa_kernel", "sdp_kernel"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!model.refersTo(analysis::fieldOf(call, "function"), "torch.nn.functional.scaled_dot_product_attention")) return;
    TSNode mask = analysis::argumentFor(call, 3, "attn_mask", ctx.source());
    if (ts_node_is_null(mask) || isKind(analysis::resolveValue(model, mask), kind::none)) return;
    for (TSNode item : enclosingWithItems(call)) {
      TSNode selector = analysis::resolveValue(model, item);
      if (!isKind(selector, kind::call)) continue;
      auto backends = attention::allowedBackends(model, selector);
      if (!backends) {
        auto callee = model.calleeName(selector);
        // An unresolved selection is the innermost one: it decides, and it is unknown.
        if (callee && (*callee == "torch.nn.attention.sdpa_kernel" || *callee == "torch.backends.cuda.sdp_kernel"))
          return;
        continue;
      }
      bool cudnn_takes_mask = ctx.torchAtLeast(2, 5);
      bool masked_backend = backends->count("EFFICIENT_ATTENTION") || backends->count("MATH") ||
                            backends->count("OVERRIDEABLE") || (cudnn_takes_mask && backends->count("CUDNN_ATTENTION"));
      if (masked_backend || !backends->count("FLASH_ATTENTION")) return;
      Diagnostic& d = ctx.report(call,
                                 "FlashAttention alone rejects `attn_mask`; use `is_causal=True` or allow `EFFICIENT_ATTENTION`" +
                                     versions::judgedFor(ctx.settings()));
      d.help = "With only `SDPBackend.FLASH_ATTENTION` allowed, a call with `attn_mask` raises.";
      d.related.push_back({analysis::startOf(item), analysis::endOf(item), "the backends are restricted here"});
      return;
    }
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL602, FlashBackendWithMask)

}  // namespace ptlint::rules
