// PTL601 hand-rolled-attention: `softmax(Q·Kᵀ [scaled] [masked]) [dropout] · V` written by hand.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/syntax.h"
#include "rules/attention_facts.h"
#include "rules/register.h"
#include "rules/attention/attention_fix.h"
#include "rules/attention/attention_flow.h"
#include "rules/attention/attention_matcher.h"
#include "rules/helpers.h"
#include "rules/rule.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules {

namespace {

constexpr RuleMeta kHandRolledAttention{
    .code = "PTL601",
    .name = "hand-rolled-attention",
    .summary = "Attention written by hand as softmax(Q·Kᵀ)·V instead of `scaled_dot_product_attention`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports scaled dot-product attention written out by hand: attention scores from a matrix product
of queries with transposed keys (`q @ k.transpose(-2, -1)`, `k.mT`, `k.transpose(-1, -2).contiguous()`,
`torch.matmul`, `torch.bmm`, `torch.einsum` or einops' `einsum` with the subscripts spaced or not),
optionally scaled (`/ math.sqrt(d)`, `* d ** -0.5`, `* self.scale`, on the query or on the
transposed key) and masked (`masked_fill(mask == 0, float("-inf"))`, in place with `masked_fill_`,
with `-inf`, `torch.finfo(dtype).min` or a name bound to `-torch.finfo(dtype).max`; `+ mask`; a
causal `tril` buffer), a softmax over the last dimension (`F.softmax`, `torch.softmax`,
`.softmax(dim=-1)`, an `nn.Softmax` module stored under any attribute name — alone or first in an
`nn.Sequential` with a dropout — or built inline as `nn.Softmax(dim=-1)(x)`), optionally dropout,
and a matrix product with the values. The pattern is followed through the assignments of one
function; the report covers it from the first Q·Kᵀ to the final ·V.

Keys already stored as `(..., E, S)` are recognised when their layout is evident: `q @ k` where
k's last layout step is q's with the last two axes swapped (`q = x.transpose(1, 2)` beside
`k = x.permute(0, 2, 3, 1)`, `rearrange(..., "-> b h n d")` beside `"-> b h d n"`,
`t.view(B, C, -1).permute(0, 2, 1)` beside `p.view(B, C, -1)`), `q.transpose(-2, -1) @ k`
(both stored channel-first), or einsum subscripts (`"bct,bcs->bts"`). The values may come first,
`v @ attn.transpose(-2, -1)` (or an einsum `"bts,bcs->bct"`), which is `(attn @ vᵀ)ᵀ`.

A step between the product and the softmax that SDPA cannot express is still reported, without a
fix: tanh soft-capping (`cap * torch.tanh(scores / cap)`), which
`torch.nn.attention.flex_attention` expresses with a `score_mod`, and a module or function applied
to the scores alone (`attn = self.rel_pos(attn)`), whose effect the rule cannot see. A bias added
as a tensor (ALiBi, relative-position tables) is an additive `attn_mask`, which SDPA adds to the
scaled scores.

It stays silent on softmax over logits (sampling, classification), similarity softmax with no
product with values (CLIP-style logits, pointer heads), router softmax in mixture-of-experts
layers, linear attention (softmax over queries and keys separately), `q @ k` with no evidence
that k is stored transposed, scores mixed across heads before the softmax (talking heads), and
functions that already call `scaled_dot_product_attention` (typically a fallback path beside the
fused one).

## Why is this bad?
The hand-written form materialises the full `T×T` score matrix in memory, reads and writes it
several times (scale, mask, softmax, dropout), and runs the softmax in the input precision unless
upcast by hand. `torch.nn.functional.scaled_dot_product_attention` (PyTorch 2.0+) dispatches to
fused kernels — FlashAttention (default for fp16/bf16 on recent GPUs), memory-efficient
attention, cuDNN (2.5+) — that never store the score matrix and keep the softmax in fp32, and
falls back to the math reference elsewhere.

## Example
```python
import math
import torch.nn.functional as F

def attend(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    scores = scores.masked_fill(mask == 0, float("-inf"))
    probs = F.softmax(scores, dim=-1)
    probs = F.dropout(probs, p=0.1, training=self.training)
    return probs @ v
```

## Use instead
```python
import torch.nn.functional as F

def attend(q, k, v, mask):
    return F.scaled_dot_product_attention(
        q, k, v, attn_mask=mask != 0, dropout_p=0.1 if self.training else 0.0)
```
A lower-triangular (`tril`) causal mask becomes `is_causal=True`, which also lets the
FlashAttention backend run (it accepts no arbitrary `attn_mask`).

## Fix safety
The fix is unsafe, and offered only when every step of the pattern maps onto an argument:
- A boolean fill `masked_fill(c, -inf)` keeps the positions where `c` is false, so it becomes
  `attn_mask=<not c>` (`mask == 0` → `mask != 0`): SDPA's boolean `attn_mask` marks the
  positions that take part. An additive mask (`scores + mask`) becomes `attn_mask=mask`.
  A fill with a large finite value (`-1e9`) becomes `-inf`: rows with every position masked
  give NaN instead of a uniform average.
- A causal `tril(ones(...))` buffer or local becomes `is_causal=True` (top-left aligned, as the
  sliced buffer is).
- Dropout becomes `dropout_p=<p> if self.training else 0.0` (for `F.dropout`, its own `training=`
  argument); a dropout module's rate is read from its `.p`. Random numbers differ. In a method,
  `F.dropout(x, p)` without `training=` (which defaults to True, so it drops in evaluation too)
  gets no fix: its help asks for `training=self.training` first.
- The default scale of SDPA is `1/sqrt(q.size(-1))`. A scale that is not provably that one is
  passed as `scale=` (PyTorch 2.1+; with an older `torch-version` no fix is offered unless the
  scale is the conventional one); no scaling at all becomes `scale=1.0`, and so does a scale
  already applied to q (or to both q and k) before the product, which stays where it is.
- `scale=` takes a Python float, so the fix passes one there only when the scale is provably a
  number: a literal, arithmetic on numbers, `math.sqrt(...)`, `x.shape[-1]`, `x.size(-1)`, a local
  bound once to such, a parameter with a numeric default, an `int`/`float` annotation or used as a
  layer size (`nn.Linear(dim, ...)`), `qk_scale or head_dim ** -0.5` with `qk_scale=None`, and
  `self.scale` built from those in the class. A learned tensor (`nn.Parameter(torch.ones(heads, 1,
  1))`, as timm's EdgeNeXt and XCiT use) would raise there and stop learning: when its shape is
  evidently a scalar or ends in 1 (constant along the keys) it is folded into the query
  (`q * self.temperature`, `scale=1.0`), which is exact; otherwise no fix is offered.
- Operands stored transposed are passed as `x.transpose(-2, -1)`, and a result laid out
  `(..., Ev, L)` is transposed back.
- The fix is offered only when q, k and v are provably 4-D (batch, heads, length, head dim):
  `view`/`reshape` sizes, `permute`, `rearrange` outputs, `transpose(2, 3)`. Every fused kernel
  requires 4-D operands ("All fused kernels requires query, key and value to be 4 dimensional",
  `check_tensor_shapes` in `ATen/native/transformers/sdp_utils_cpp.h`); with 3-D (`bmm`) or 5-D
  ones SDPA runs its math path, which is no faster. No fix is offered either when their ranks
  visibly differ. Every finding without a fix says why in its message.
- An additive mask is passed as `attn_mask=<mask>.to(<q>.dtype)`: in the hand-written form the
  scores take the mask's dtype by promotion, while SDPA's memory-efficient kernel refuses a
  float32 mask with bfloat16 queries.
- Only `1/sqrt(q.size(-1))` (or `q.shape[-1]`, the key's) is taken for SDPA's default scale:
  `self.scale = dim ** -0.5` over a model width whose heads have `dim // heads` channels is a
  different number, and is passed as `scale=`.
- The intermediate assignments are removed only when nothing else reads them: code that also
  returns the attention weights (`return out, attn`) gets no fix, since SDPA does not return them.
- Fused kernels round differently from the hand-written form (FlashAttention keeps its softmax
  in fp32), so results agree to the dtype's tolerance, not bit for bit. `ptlint check
  --gpu-check` runs both forms on random inputs and reports the difference.

## PyTorch releases
Judged at the oldest release of `torch-version`. `torch.nn.functional.scaled_dot_product_attention`
appeared in 2.0 (absent from 1.13's `torch/nn/functional.py`): nothing is reported when the range
starts below 2.0. Its `scale=` argument appeared in 2.1 (`torch/nn/functional.py` of 2.6 and
2.14; 2.0's signature ends at `is_causal`): below 2.1 only a pattern with SDPA's default scale is
fixed. The `score_mod` form names `torch.nn.attention.flex_attention` (2.5) and is reported only
when the range starts at 2.5 or later.

## Releases
`torch/nn/functional.py`: `scaled_dot_product_attention` from 2.0 (absent from 1.13), `scale=`
from 2.1, `enable_gqa=` from 2.5; `torch/nn/attention/flex_attention.py` from 2.5. Reported where
the range's oldest release has SDPA (or flex_attention); a fix only writes what that release has.

## References
- [`torch.nn.functional.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html) (added in 2.0; `scale=` since 2.1)
- [SDPA backends and `torch.nn.attention.sdpa_kernel`](https://pytorch.org/docs/stable/backends.html)
- [`torch/nn/attention/__init__.py`](https://github.com/pytorch/pytorch/blob/main/torch/nn/attention/__init__.py)
  (`SDPBackend`: FlashAttention, memory-efficient, cuDNN and math backends)
- The reference implementation in SDPA's docstring (`torch/nn/functional.py`): a float `attn_mask`
  is added to the scaled scores, a boolean one keeps the positions that are `True`, and the
  2.0 signature has no `scale`
  ([2.0](https://pytorch.org/docs/2.0/generated/torch.nn.functional.scaled_dot_product_attention.html),
  [2.1+](https://pytorch.org/docs/2.1/generated/torch.nn.functional.scaled_dot_product_attention.html))
- [`torch.nn.attention.flex_attention`](https://pytorch.org/docs/stable/nn.attention.flex_attention.html)
  (2.5+): `score_mod` for soft-capping and other elementwise score changes
)md"};

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;
using analysis::unparenthesize;
using attention::FunctionFlow;
using hand_rolled::autocastDtype;
using hand_rolled::buildFix;
using hand_rolled::classifyScale;
using hand_rolled::Matcher;
using hand_rolled::MaskKind;
using hand_rolled::Pattern;
using hand_rolled::ScaleInfo;

AttentionFacts::Mask factOf(MaskKind kind) {
  switch (kind) {
    case MaskKind::None: return AttentionFacts::Mask::None;
    case MaskKind::Boolean: return AttentionFacts::Mask::Boolean;
    case MaskKind::Additive: return AttentionFacts::Mask::Additive;
    case MaskKind::Causal: return AttentionFacts::Mask::Causal;
  }
  return AttentionFacts::Mask::None;
}

class HandRolledAttention final : public Rule {
  // One pass per file finds each product's function and what that function mentions; the
  // checks are then constant-time until a body names a softmax. It needs only the tree, so it
  // is kept with the file: built once, for mayReport, and read again by check.
  static const attention::AttentionIndex& index(const analysis::ParsedFile& file) {
    static const char kIndexKey = 0;
    return file.treeAnalysis<attention::AttentionIndex>(&kIndexKey, [&] {
      return std::make_shared<const attention::AttentionIndex>(file.root(), file.text(), analysis::codeOrText(file));
    });
  }

 public:
  const RuleMeta& meta() const override { return kHandRolledAttention; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::binary_operator, kind::call}; }
  // Before parsing: the code (strings and comments blanked) must name a softmax and may hold a
  // product. Most files that mention a softmax do so in docstrings and op tables.
  Prefilter prefilter() const override { return {.words = {"softmax", "Softmax"}}; }
  // After parsing: the replacement must exist at the range's oldest release, and the file's
  // attention index must hold a candidate.
  bool mayReport(const PrefilterInput& input, const Settings& settings) const override {
    if (input.parsed == nullptr) {
      const std::string* code = input.source.code();
      return code == nullptr || attention::codeMayHoldCandidates(*code);
    }
    if (!releases::existsAt("torch.nn.functional.scaled_dot_product_attention", settings.torch_version)) return false;
    return index(*input.parsed).hasCandidates();
  }

  void check(TSNode node, Context& ctx) const override {
    const attention::AttentionIndex& index = this->index(ctx.file());
    const attention::AttentionIndex::Owner* owner = index.ownerOf(node);
    if (owner == nullptr || !owner->softmax || owner->sdpa) return;
    // As mayReport: the replacement must exist at the range's oldest release.
    if (!releases::existsAt("torch.nn.functional.scaled_dot_product_attention", ctx.settings().torch_version)) return;
    // The weights enter ·V as a name or a call (softmax, dropout, cast), never as a sum or product.
    TSNode weights{};
    if (isKind(node, kind::binary_operator)) {
      weights = fieldOf(node, "left");
    } else {
      auto args = positionalArguments(node);
      TSNode function = fieldOf(node, "function");
      bool method = isKind(function, kind::attribute) && analysis::textOf(fieldOf(function, "attribute"), ctx.source()) != "einsum" &&
                    !ctx.model().qualifiedName(function);
      if (method) weights = fieldOf(function, "object");
      else if (args.size() == 2) weights = args[0];
      else if (args.size() == 3) weights = args[1];
    }
    weights = unparenthesize(weights);
    if (!isKind(weights, kind::identifier) && !isKind(weights, kind::call)) return;

    const FunctionFlow& flow = index.flow(*owner);
    Matcher matcher(ctx, flow);
    auto pattern = matcher.match(node);
    if (!pattern) return;
    const Pattern& p = *pattern;

    ScaleInfo scale = classifyScale(p, matcher, ctx.source());
    uint32_t start = std::min(startOf(p.qk_node), startOf(node));
    std::string why;
    auto fix = buildFix(p, scale, flow, matcher, ctx, why);
    std::string message;
    if (!p.score_mod.empty() && !p.opaque_mod) {
      message = "Hand-rolled attention with " + p.score_mod + "; use `flex_attention` with a `score_mod`" +
                versions::judgedFor(ctx.settings());
    } else {
      std::string detail;
      if (p.mask == MaskKind::Causal) detail = " with a causal mask";
      else if (p.mask != MaskKind::None) detail = " with a mask";
      message = "Hand-rolled attention" + detail + "; use `scaled_dot_product_attention`" +
                versions::judgedFor(ctx.settings());
    }
    if (!p.score_mod.empty() && !p.opaque_mod &&
        !releases::existsAt("torch.nn.attention.flex_attention", ctx.settings().torch_version))
      return;  // flex_attention is newer than the range's oldest release
    Diagnostic& d = ctx.report(start, endOf(node), message);
    // Why no fix is offered: one sentence.
    if (!fix && !why.empty() && (p.score_mod.empty() || p.opaque_mod)) d.help = "No fix: " + why + ".";
    else if (!fix && !why.empty()) d.help = "No fix: `scaled_dot_product_attention` cannot express it.";
    AttentionFacts facts;
    facts.scale = scale.kind;
    facts.scale_value = scale.value;
    facts.mask = factOf(p.mask);
    facts.dropout = p.dropouts == 0 ? std::optional<double>(0.0) : p.dropout_rate;
    facts.layout = p.layout;
    facts.softmax_float32 = p.upcast;
    facts.dtype = autocastDtype(node, ctx);
    d.data = makeFindingData(facts);
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL601, HandRolledAttention)

}  // namespace ptlint::rules
