// PTL601 hand-rolled-attention: `softmax(Q·Kᵀ [scaled] [masked]) [dropout] · V` written by hand.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/syntax.h"
#include "rules/attention_facts.h"
#include "rules/register.h"
#include "rules/attention/attention_flow.h"
#include "quickfix/imports.h"
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
  gets no fix: the message asks for `training=self.training` first.
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
using analysis::kindOf;
using analysis::startOf;
using analysis::unparenthesize;
using attention::Definition;
using attention::FunctionFlow;

constexpr int kMaxDepth = 40;
// Backtracking over branches and operand orders is bounded by a step budget per ·V product, so
// hostile inputs (deeply branched reassignments) stay linear.
constexpr int kMaxSteps = 4000;

enum class MaskKind { None, Boolean, Additive, Causal };

// What the matcher recognised, step by step, from the ·V product backwards.
struct Pattern {
  TSNode final_node{};  // P · V
  TSNode qk_node{};     // Q · Kᵀ
  TSNode q{}, k{}, v{};
  AttentionFacts::Layout layout = AttentionFacts::Layout::BHTD;
  int rank = 0;  // of the scores, when known (bmm: 3, transpose(2, 3): 4, einsum)
  std::optional<long long> softmax_dim;

  int scales = 0;
  TSNode scale_factor{};
  bool scale_divides = false;
  bool scale_seen_outside = false;  // a scale step outside (after) the current position
  bool scale_after_additive = false;

  int masks = 0;
  MaskKind mask = MaskKind::None;
  std::string attn_mask;
  TSNode mask_node{};

  bool upcast = false;

  int dropouts = 0;
  std::string dropout_p;  // argument text; empty when none
  TSNode dropout_p_node{};
  std::optional<double> dropout_rate = 0.0;  // nullopt: an nn.Dropout of unknown rate
  TSNode dropout_without_training{};  // `F.dropout(x, p)`: `training` defaults to True

  std::vector<const Definition*> consumed;  // assignments the pattern runs through
  bool conditional = false;                 // followed a definition made in another block

  // Operands stored transposed relative to SDPA's (..., L, E) / (..., S, E) / (..., S, Ev):
  // the fix passes `x.transpose(-2, -1)` for them (`q @ k` with k laid out (..., E, S), a
  // channel-first einsum, `v @ attn.transpose(-2, -1)`), and transposes the result back.
  bool q_transposed = false, k_transposed = false, v_transposed = false, out_transposed = false;
  // A step SDPA cannot express (tanh soft-capping, a scale on both operands): reported, no fix.
  std::string score_mod;
  bool opaque_mod = false;  // a call the rule cannot see into (`self.rel_pos(attn)`)
  std::string no_fix;
};

bool isIntValue(TSNode node, std::string_view source, long long& out) {
  node = unparenthesize(node);
  bool negative = false;
  if (isKind(node, kind::unary_operator) && analysis::textOf(fieldOf(node, "operator"), source) == "-") {
    negative = true;
    node = unparenthesize(fieldOf(node, "argument"));
  }
  auto value = integerLiteral(node, source);
  if (!value) return false;
  out = negative ? -*value : *value;
  return true;
}

std::optional<double> numberValue(TSNode node, std::string_view source) {
  node = unparenthesize(node);
  bool negative = false;
  if (isKind(node, kind::unary_operator) && analysis::textOf(fieldOf(node, "operator"), source) == "-") {
    negative = true;
    node = unparenthesize(fieldOf(node, "argument"));
  }
  if (!isKind(node, kind::integer) && !isKind(node, kind::float_)) return std::nullopt;
  std::string text(analysis::textOf(node, source));
  std::erase(text, '_');
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return negative ? -value : value;
}

// The text of an expression as an argument: conditional expressions and lambdas get parentheses.
std::string argumentText(TSNode node, std::string_view source) {
  std::string text(analysis::textOf(node, source));
  analysis::NodeKind kind = kindOf(unparenthesize(node));
  if (kind == kind::conditional_expression || kind == kind::lambda) return "(" + text + ")";
  return text;
}

// Text of an operand that is safe next to a binary operator / unary `~`.
bool isAtomic(TSNode node) {
  analysis::NodeKind kind = kindOf(node);
  return kind == kind::identifier || kind == kind::attribute || kind == kind::subscript || kind == kind::call ||
         kind == kind::parenthesized_expression || kind == kind::integer || kind == kind::float_;
}

struct Einsum {
  std::string a, b, out;  // operand and output subscripts, spaces removed
};

std::optional<Einsum> parseEinsum(TSNode string, std::string_view source) {
  string = unparenthesize(string);
  if (!isKind(string, kind::string)) return std::nullopt;
  std::string content;
  bool interpolated = false;
  analysis::forEachNamedChild(string, [&](TSNode child) {
    if (isKind(child, kind::string_content)) content += analysis::textOf(child, source);
    if (isKind(child, kind::interpolation) || isKind(child, kind::escape_sequence)) interpolated = true;
  });
  if (interpolated) return std::nullopt;
  std::string_view text = analysis::textOf(string, source);
  if (!text.empty() && (text.front() == 'f' || text.front() == 'F' || text.front() == 'b' || text.front() == 'B'))
    return std::nullopt;
  std::erase_if(content, [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
  size_t arrow = content.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  std::string inputs = content.substr(0, arrow);
  size_t comma = inputs.find(',');
  if (comma == std::string::npos || inputs.find(',', comma + 1) != std::string::npos) return std::nullopt;
  Einsum e{inputs.substr(0, comma), inputs.substr(comma + 1), content.substr(arrow + 2)};
  auto valid = [](const std::string& s) {
    std::string_view rest = s;
    if (rest.starts_with("...")) rest.remove_prefix(3);
    return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  };
  if (!valid(e.a) || !valid(e.b) || !valid(e.out)) return std::nullopt;
  return e;
}

// The operands of an einsum split into a shared batch prefix (letters, or `...`) and their two
// last letters; nullopt when the prefixes differ or a letter repeats.
struct EinsumParts {
  size_t batch = 0;  // letters in the prefix (`...` counts none)
  bool ellipsis = false;
  char a1, a2, b1, b2, o1, o2;
};

// `shared` is set when the second operand lacks one batch letter of the first and of the output:
// keys or values shared across heads (multi-query attention, `"b h i d, b j d -> b h i j"`).
std::optional<EinsumParts> einsumParts(const Einsum& e, bool* shared = nullptr) {
  auto strip = [](std::string s, bool& dots) {
    dots = s.starts_with("...");
    return dots ? s.substr(3) : s;
  };
  bool da = false, db = false, dout = false;
  std::string a = strip(e.a, da), b = strip(e.b, db), o = strip(e.out, dout);
  if (da != db || da != dout) return std::nullopt;
  if (a.size() < 2 || b.size() < 2 || a.size() != o.size()) return std::nullopt;
  size_t n = a.size() - 2;
  if (a.substr(0, n) != o.substr(0, n)) return std::nullopt;
  if (shared != nullptr) *shared = false;
  if (b.size() + 1 == a.size() && shared != nullptr && n >= 2) {
    // b's prefix is a's with one letter left out.
    std::string bp = b.substr(0, n - 1);
    bool found = false;
    for (size_t skip = 0; skip < n && !found; ++skip) {
      std::string reduced = a.substr(0, n);
      reduced.erase(skip, 1);
      found = reduced == bp;
    }
    if (!found) return std::nullopt;
    *shared = true;
    b = a.substr(0, n) + b.substr(n - 1);  // compare the last two letters as if b had every batch letter
  }
  if (a.size() != b.size() || a.substr(0, n) != b.substr(0, n)) return std::nullopt;
  for (const std::string* s : {&a, &b, &o}) {
    std::string sorted = *s;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return std::nullopt;
  }
  std::string prefix = a.substr(0, n);
  EinsumParts parts{n, da, a[n], a[n + 1], b[n], b[n + 1], o[n], o[n + 1]};
  for (char c : {parts.a1, parts.a2, parts.b1, parts.b2, parts.o1, parts.o2})
    if (prefix.find(c) != std::string::npos) return std::nullopt;
  return parts;
}

// Q·Kᵀ: one letter `d` contracted, the query's other letter `i` and the key's `j` kept, the
// output ending in `i j` (the softmax over the last dimension runs over keys). Either operand may
// hold `d` first: `"bct,bcs->bts"` stores q and k channel-first.
struct ScoresShape {
  int rank = 0;  // 0 with `...`
  bool q_transposed = false, k_transposed = false;
  bool shared = false;  // keys shared across heads
};

std::optional<ScoresShape> scoresEinsum(const Einsum& e) {
  bool shared = false;
  auto parts = einsumParts(e, &shared);
  if (!parts) return std::nullopt;
  const EinsumParts& x = *parts;
  char i = x.o1, j = x.o2;
  if (i == j) return std::nullopt;
  bool q_t = false, k_t = false;
  char d = 0;
  if (x.a1 == i) { d = x.a2; } else if (x.a2 == i) { d = x.a1; q_t = true; } else { return std::nullopt; }
  if (x.b1 == j && x.b2 == d) { k_t = false; } else if (x.b2 == j && x.b1 == d) { k_t = true; } else { return std::nullopt; }
  if (d == i || d == j) return std::nullopt;
  return ScoresShape{x.ellipsis ? 0 : static_cast<int>(x.batch) + 2, q_t, k_t, shared};
}

// P·V: the weights `i j` with `j` contracted against the values' `j e`, the output `i e`; the
// values and the output may hold `e` first (`"bts,bcs->bct"`).
struct ValuesShape {
  bool v_transposed = false, out_transposed = false;
  bool shared = false;  // values shared across heads
};

std::optional<ValuesShape> valuesEinsum(const Einsum& e) {
  bool shared = false;
  auto parts = einsumParts(e, &shared);
  if (!parts) return std::nullopt;
  const EinsumParts& x = *parts;
  char i = x.a1, j = x.a2;
  if (i == j) return std::nullopt;
  char ev = 0;
  bool v_t = false, o_t = false;
  if (x.b1 == j) { ev = x.b2; } else if (x.b2 == j) { ev = x.b1; v_t = true; } else { return std::nullopt; }
  if (x.o1 == i && x.o2 == ev) { o_t = false; } else if (x.o2 == i && x.o1 == ev) { o_t = true; } else { return std::nullopt; }
  if (ev == i || ev == j) return std::nullopt;
  return ValuesShape{v_t, o_t, shared};
}

constexpr const char* kSharedAcrossHeads =
    "the keys or values have no head axis (shared across heads): SDPA needs them with one "
    "(`k.unsqueeze(1)`; `enable_gqa=True` in PyTorch 2.5+)";

struct Matmul {
  TSNode left{}, right{};
  bool bmm = false;
  std::optional<Einsum> einsum;
};

class Matcher {
 public:
  Matcher(Context& ctx, const FunctionFlow& flow) : ctx_(ctx), flow_(flow), source_(ctx.source()) {}

  std::optional<Pattern> match(TSNode final_node) {
    auto mm = asMatmul(final_node);
    if (!mm) return std::nullopt;
    Pattern p;
    p.final_node = final_node;
    if (mm->einsum) {
      auto shape = valuesEinsum(*mm->einsum);
      if (!shape) return std::nullopt;
      p.v = mm->right;
      p.v_transposed = shape->v_transposed;
      p.out_transposed = shape->out_transposed;
      if (shape->shared) p.no_fix = kSharedAcrossHeads;
      if (!traceProbs(mm->left, p, 0, /*after_softmax=*/false)) return std::nullopt;
      return p;
    }
    p.v = mm->right;
    Pattern attempt = p;
    if (traceProbs(mm->left, attempt, 0, /*after_softmax=*/false)) return attempt;
    // `v @ attn.transpose(-2, -1)`: values laid out (..., Ev, S), the output (..., Ev, L); the
    // same as `(attn @ vᵀ)ᵀ`.
    int rank = 0;
    // (`w_ = w_.permute(0, 2, 1)` on a line of its own, then `torch.bmm(v, w_)`.)
    TSNode weights = untransposed(followAssigned(mm->right, p), mm->bmm, rank);
    if (ts_node_is_null(weights)) return std::nullopt;
    weights = unparenthesize(weights);
    if (!isKind(weights, kind::identifier) && !isKind(weights, kind::call)) return std::nullopt;
    steps_ = 0;
    p.v = mm->left;
    p.v_transposed = true;
    p.out_transposed = true;
    if (!traceProbs(weights, p, 0, /*after_softmax=*/false)) return std::nullopt;
    return p;
  }

  std::string_view text(TSNode node) const { return analysis::textOf(node, source_); }

  // ---- structure -------------------------------------------------------------------------

  // The method called on a tensor (`x.softmax(...)`), when the callee is not an import.
  std::string_view tensorMethod(TSNode call, TSNode* object = nullptr) const {
    if (!isKind(call, kind::call)) return {};
    TSNode function = fieldOf(call, "function");
    if (!isKind(function, kind::attribute)) return {};
    if (ctx_.model().qualifiedName(function)) return {};
    if (object != nullptr) *object = fieldOf(function, "object");
    return text(fieldOf(function, "attribute"));
  }

  std::string callee(TSNode call) const {
    if (!isKind(call, kind::call)) return {};
    auto name = ctx_.model().calleeName(call);
    return name ? *name : std::string{};
  }

  // Argument by keyword, else by position (keywords take priority, as Python binds them).
  TSNode argument(TSNode call, size_t index, std::string_view keyword) const {
    TSNode kw = keywordArgument(call, keyword, source_);
    if (!ts_node_is_null(kw)) return kw;
    auto positional = positionalArguments(call);
    return index < positional.size() ? positional[index] : TSNode{};
  }

  bool plainCall(TSNode call) const { return !hasStarArguments(call) && !hasDoubleStarArguments(call); }

  std::optional<Matmul> asMatmul(TSNode node) const {
    node = unparenthesize(node);
    if (isKind(node, kind::binary_operator)) {
      if (text(fieldOf(node, "operator")) != "@") return std::nullopt;
      return Matmul{fieldOf(node, "left"), fieldOf(node, "right")};
    }
    if (!isKind(node, kind::call) || !plainCall(node)) return std::nullopt;
    auto args = positionalArguments(node);
    std::string name = callee(node);
    if (name == "torch.matmul" || name == "torch.bmm") {
      if (args.size() != 2) return std::nullopt;
      return Matmul{args[0], args[1], name == "torch.bmm"};
    }
    if (name == "torch.einsum") {
      if (args.size() != 3) return std::nullopt;
      auto e = parseEinsum(args[0], source_);
      if (!e) return std::nullopt;
      return Matmul{args[1], args[2], false, e};
    }
    if (name == "einops.einsum") {
      // einops puts the pattern last: `einsum(q, k, "b h i d, b h j d -> b h i j")`.
      if (args.size() != 3) return std::nullopt;
      auto e = parseEinsum(args[2], source_);
      if (!e) return std::nullopt;
      return Matmul{args[0], args[1], false, e};
    }
    TSNode object{};
    std::string_view method = tensorMethod(node, &object);
    if ((method == "matmul" || method == "bmm") && args.size() == 1)
      return Matmul{object, args[0], method == "bmm"};
    return std::nullopt;
  }

  // `self.<attr>` built in the class: the value of its only `self.<attr> = ...` or
  // `self.register_buffer("<attr>", ...)`; null when absent or ambiguous.
  TSNode classMember(TSNode attribute) const {
    if (!isKind(attribute, kind::attribute)) return {};
    TSNode object = unparenthesize(fieldOf(attribute, "object"));
    if (!isKind(object, kind::identifier)) return {};
    TSNode function = attention::enclosingFunctionOrModule(attribute);
    if (!isKind(function, kind::function_definition)) return {};
    TSNode params = fieldOf(function, "parameters");
    TSNode first = ts_node_named_child_count(params) > 0 ? ts_node_named_child(params, 0) : TSNode{};
    if (!isKind(first, kind::identifier) || text(first) != text(object)) return {};
    TSNode cls = ts_node_parent(function);
    if (isKind(cls, kind::decorated_definition)) cls = ts_node_parent(cls);
    if (isKind(cls, kind::block)) cls = ts_node_parent(cls);
    if (!isKind(cls, kind::class_definition)) return {};
    std::string_view member = text(fieldOf(attribute, "attribute"));
    TSNode found{};
    int count = 0;
    analysis::walkTree(
        fieldOf(cls, "body"),
        [&](TSNode node) {
          if (isKind(node, kind::class_definition) || isKind(node, kind::lambda)) return false;
          if (isKind(node, kind::assignment)) {
            TSNode left = fieldOf(node, "left");
            if (isKind(left, kind::attribute) && text(fieldOf(left, "attribute")) == member &&
                isKind(fieldOf(left, "object"), kind::identifier) && text(fieldOf(left, "object")) == text(object)) {
              found = fieldOf(node, "right");
              ++count;
            }
          } else if (isKind(node, kind::call) && tensorMethod(node) == "register_buffer") {
            auto args = positionalArguments(node);
            if (args.size() >= 2 && isKind(args[0], kind::string)) {
              std::string_view name = text(args[0]);
              if (name.size() >= 2 && name.substr(1, name.size() - 2) == member) {
                found = args[1];
                ++count;
              }
            }
          }
          return true;
        },
        [](TSNode) {});
    return count == 1 ? unparenthesize(found) : TSNode{};
  }

  // ---- what a scale is ----------------------------------------------------------------------

  // The parameter `name` of `function` (a function_definition): its default value and its
  // annotation, when it has them; false when `name` is no parameter.
  static bool parameterOf(TSNode function, std::string_view name, std::string_view source, TSNode& value,
                          TSNode& type) {
    if (!isKind(function, kind::function_definition)) return false;
    TSNode params = fieldOf(function, "parameters");
    bool found = false;
    analysis::forEachNamedChild(params, [&](TSNode param) {
      if (found) return;
      TSNode id{};
      if (isKind(param, kind::identifier)) id = param;
      else if (isKind(param, kind::default_parameter) || isKind(param, kind::typed_default_parameter)) id = fieldOf(param, "name");
      else if (isKind(param, kind::typed_parameter) && ts_node_named_child_count(param) > 0) id = ts_node_named_child(param, 0);
      if (!isKind(id, kind::identifier) || analysis::textOf(id, source) != name) return;
      found = true;
      value = fieldOf(param, "value");
      type = fieldOf(param, "type");
    });
    return found;
  }

  // An annotation that admits numbers only (`int`, `float`, `Optional[float]`, `int | None`).
  bool numericAnnotation(TSNode type, bool allow_none) const {
    if (ts_node_is_null(type)) return false;
    bool numeric = false, other = false;
    analysis::walkTree(
        type,
        [&](TSNode n) {
          if (!isKind(n, kind::identifier) && !isKind(n, kind::none)) return true;
          std::string_view t = text(n);
          if (t == "int" || t == "float") numeric = true;
          else if (!(allow_none && (t == "None" || t == "Optional" || t == "Union"))) other = true;
          return false;
        },
        [](TSNode) {});
    return numeric && !other;
  }

  // Whether `expr`, read in `flow`'s function, is provably a Python number (not a tensor): a
  // literal, arithmetic on numbers, `math.*`, `int(...)`/`float(...)`/`len(...)`, `x.shape[i]`,
  // `x.size(i)`, a local bound once to a number, a parameter whose default is a number or whose
  // annotation is `int`/`float`, `self.<attr>` built from such in the class.
  bool provablyNumber(TSNode expr, const FunctionFlow& flow, int depth = 0) const {
    if (depth > 10 || ts_node_is_null(expr)) return false;
    expr = unparenthesize(expr);
    analysis::NodeKind kind = kindOf(expr);
    if (kind == kind::integer || kind == kind::float_) return true;
    if (kind == kind::unary_operator) return provablyNumber(fieldOf(expr, "argument"), flow, depth + 1);
    if (kind == kind::binary_operator) {
      std::string_view op = text(fieldOf(expr, "operator"));
      if (op != "+" && op != "-" && op != "*" && op != "/" && op != "//" && op != "**" && op != "%") return false;
      return provablyNumber(fieldOf(expr, "left"), flow, depth + 1) && provablyNumber(fieldOf(expr, "right"), flow, depth + 1);
    }
    if (kind == kind::conditional_expression) {
      // `a if c else b`: both branches.
      return ts_node_named_child_count(expr) == 3 && provablyNumber(ts_node_named_child(expr, 0), flow, depth + 1) &&
             provablyNumber(ts_node_named_child(expr, 2), flow, depth + 1);
    }
    if (kind == kind::boolean_operator) {
      // `qk_scale or head_dim ** -0.5`, with `qk_scale` a parameter that defaults to None.
      if (text(fieldOf(expr, "operator")) != "or") return false;
      TSNode left = unparenthesize(fieldOf(expr, "left"));
      if (!provablyNumber(fieldOf(expr, "right"), flow, depth + 1)) return false;
      if (provablyNumber(left, flow, depth + 1)) return true;
      TSNode value{}, type{};
      if (isKind(left, kind::identifier) && flow.reaching(text(left), startOf(left)) == nullptr &&
          parameterOf(flow.owner(), text(left), source_, value, type)) {
        bool none_default = isKind(unparenthesize(value), kind::none);
        return none_default && (ts_node_is_null(type) || numericAnnotation(type, true));
      }
      return false;
    }
    if (kind == kind::subscript) {
      // `x.shape[-1]`
      TSNode value = fieldOf(expr, "value");
      long long i = 0;
      return isKind(value, kind::attribute) && text(fieldOf(value, "attribute")) == "shape" &&
             isIntValue(fieldOf(expr, "subscript"), source_, i);
    }
    if (kind == kind::call) {
      if (!plainCall(expr)) return false;
      auto args = positionalArguments(expr);
      std::string name = callee(expr);
      if (name.starts_with("math.")) return true;  // math functions return floats (or raise)
      if (name == "numpy.sqrt" || name == "numpy.log") return args.size() == 1 && provablyNumber(args[0], flow, depth + 1);
      TSNode function = fieldOf(expr, "function");
      if (isKind(function, kind::identifier) && ctx_.model().resolve(text(function), function) == nullptr) {
        std::string_view builtin = text(function);
        if (builtin == "int" || builtin == "float" || builtin == "len") return true;
        if (builtin == "abs" || builtin == "round") return args.size() >= 1 && provablyNumber(args[0], flow, depth + 1);
        if (builtin == "max" || builtin == "min") {
          if (args.size() < 2) return false;
          for (TSNode a : args)
            if (!provablyNumber(a, flow, depth + 1)) return false;
          return true;
        }
      }
      TSNode object{};
      long long i = 0;
      if (tensorMethod(expr, &object) == "size" && args.size() == 1 && isIntValue(args[0], source_, i)) return true;
      return false;
    }
    if (kind == kind::attribute) {
      TSNode built = classMember(expr);
      if (ts_node_is_null(built)) return false;
      TSNode owner = attention::enclosingFunctionOrModule(built);
      if (!isKind(owner, kind::function_definition)) return false;
      FunctionFlow member_flow(owner, source_);
      return provablyNumber(built, member_flow, depth + 1);
    }
    if (kind == kind::identifier) {
      const Definition* def = flow.reaching(text(expr), startOf(expr));
      if (def != nullptr) {
        if (def->kind != Definition::Kind::Assign || flow.previous(def) != nullptr) return false;
        return provablyNumber(def->value, flow, depth + 1);
      }
      TSNode value{}, type{};
      if (!parameterOf(flow.owner(), text(expr), source_, value, type)) return false;
      if (!ts_node_is_null(type)) return numericAnnotation(type, false);
      if (!ts_node_is_null(value)) return provablyNumber(value, flow, depth + 1);
      return sizedInBody(flow.owner(), text(expr));
    }
    return false;
  }

  // Whether the function passes parameter `name` as a size to a `torch.nn` layer (`nn.Linear(dim,
  // dim * 3)`, `nn.LayerNorm(dim)`): a tensor there raises, so the parameter is an int.
  bool sizedInBody(TSNode function, std::string_view name) const {
    if (!isKind(function, kind::function_definition)) return false;
    bool sized = false;
    analysis::walkTree(
        fieldOf(function, "body"),
        [&](TSNode n) {
          if (sized || isKind(n, kind::function_definition) || isKind(n, kind::class_definition) || isKind(n, kind::lambda)) return false;
          if (!isKind(n, kind::call)) return true;
          std::string name_of = callee(n);
          static constexpr std::string_view kLayers[] = {"torch.nn.Linear", "torch.nn.Conv1d", "torch.nn.Conv2d",
                                                         "torch.nn.Conv3d", "torch.nn.LayerNorm", "torch.nn.Embedding"};
          if (std::find(std::begin(kLayers), std::end(kLayers), name_of) == std::end(kLayers)) return true;
          for (TSNode a : positionalArguments(n)) {
            TSNode arg = unparenthesize(a);
            // the name itself, or one operand of `dim * 3` / `dim // heads`
            while (isKind(arg, kind::binary_operator) && !isKind(unparenthesize(fieldOf(arg, "left")), kind::identifier))
              arg = unparenthesize(fieldOf(arg, "left"));
            if (isKind(arg, kind::binary_operator)) {
              std::string_view op = text(fieldOf(arg, "operator"));
              if (op == "*" || op == "//" || op == "+" || op == "-") {
                if (text(unparenthesize(fieldOf(arg, "left"))) == name || text(unparenthesize(fieldOf(arg, "right"))) == name)
                  sized = true;
              }
            } else if (isKind(arg, kind::identifier) && text(arg) == name) {
              sized = true;
            }
          }
          return true;
        },
        [](TSNode) {});
    return sized;
  }

  // Whether multiplying the query by `expr` is exactly multiplying the scores by it: a tensor
  // whose shape is evidently a scalar or ends in 1 (constant along the keys), e.g. `self.temperature
  // = nn.Parameter(torch.ones(num_heads, 1, 1))`, `torch.tensor(0.125)`, `logit_scale.exp()`.
  bool foldable(TSNode expr, const FunctionFlow& flow, int depth = 0) const {
    if (depth > 8 || ts_node_is_null(expr)) return false;
    expr = unparenthesize(expr);
    if (provablyNumber(expr, flow)) return true;
    if (isKind(expr, kind::attribute)) {
      TSNode built = classMember(expr);
      if (ts_node_is_null(built)) return false;
      TSNode owner = attention::enclosingFunctionOrModule(built);
      if (!isKind(owner, kind::function_definition)) return false;
      FunctionFlow member_flow(owner, source_);
      return foldable(built, member_flow, depth + 1);
    }
    if (isKind(expr, kind::identifier)) {
      const Definition* def = flow.reaching(text(expr), startOf(expr));
      if (def == nullptr || def->kind != Definition::Kind::Assign || flow.previous(def) != nullptr) return false;
      return foldable(def->value, flow, depth + 1);
    }
    if (isKind(expr, kind::binary_operator)) {
      std::string_view op = text(fieldOf(expr, "operator"));
      if (op != "*" && op != "/") return false;
      TSNode l = fieldOf(expr, "left"), r = fieldOf(expr, "right");
      return (foldable(l, flow, depth + 1) && provablyNumber(r, flow)) ||
             (op == "*" && provablyNumber(l, flow) && foldable(r, flow, depth + 1));
    }
    // `**factory_kwargs` (dtype, device) never changes a shape; `*sizes` hides it.
    if (!isKind(expr, kind::call) || hasStarArguments(expr)) return false;
    std::string name = callee(expr);
    auto args = positionalArguments(expr);
    if (name == "torch.nn.Parameter" || name == "torch.nn.parameter.Parameter")
      return !args.empty() && foldable(args[0], flow, depth + 1);
    if (name == "torch.tensor") return args.size() == 1 && provablyNumber(args[0], flow);
    if (name == "torch.clamp" || name == "torch.exp" || name == "torch.log" || name == "torch.sigmoid")
      return !args.empty() && foldable(args[0], flow, depth + 1);
    if (name == "torch.ones" || name == "torch.zeros" || name == "torch.full" || name == "torch.rand" ||
        name == "torch.randn" || name == "torch.empty") {
      std::vector<TSNode> sizes = args;
      if (name == "torch.full") {
        if (args.size() != 2) return false;
        sizes = {args[0]};
      }
      if (sizes.size() == 1 && (isKind(sizes[0], kind::tuple) || isKind(sizes[0], kind::list))) {
        TSNode seq = sizes[0];
        sizes.clear();
        analysis::forEachNamedChild(seq, [&](TSNode c) { sizes.push_back(c); });
      }
      if (sizes.empty()) return true;  // 0-d
      long long last = 0;
      return isIntValue(sizes.back(), source_, last) && last == 1;
    }
    TSNode object{};
    std::string_view method = tensorMethod(expr, &object);
    if ((method == "reshape" || method == "view") && !hasStarArguments(expr)) {
      // `self.logit_scale.reshape(1, heads, 1, 1)`: whatever it holds, its last axis has size 1.
      auto sizes = positionalArguments(expr);
      if (sizes.size() == 1 && (isKind(sizes[0], kind::tuple) || isKind(sizes[0], kind::list))) {
        TSNode seq = sizes[0];
        sizes.clear();
        analysis::forEachNamedChild(seq, [&](TSNode c) { sizes.push_back(c); });
      }
      long long last = 0;
      return sizes.size() >= 2 && isIntValue(sizes.back(), source_, last) && last == 1;
    }
    if (method == "exp" || method == "clamp" || method == "clamp_max" || method == "clamp_min" || method == "sigmoid" ||
        method == "abs" || method == "sqrt" || method == "rsqrt" || method == "reciprocal")
      return foldable(object, flow, depth + 1);
    return false;
  }

  // ---- following names -------------------------------------------------------------------

  // Definitions of `name` that may reach `use` (the last one; earlier ones when it was made in
  // a branch that does not enclose the use). Empty when the name is not local.
  std::vector<const Definition*> candidates(std::string_view name, uint32_t at, TSNode use) const {
    std::vector<const Definition*> out;
    const Definition* def = flow_.reaching(name, at);
    while (def != nullptr && out.size() < 4) {
      out.push_back(def);
      bool encloses = !ts_node_is_null(def->block) && analysis::contains(def->block, use);
      if (encloses) break;
      def = flow_.previous(def);
    }
    return out;
  }

  void noteFollowed(Pattern& p, const Definition* def, TSNode use) const {
    p.consumed.push_back(def);
    if (ts_node_is_null(def->block) || !analysis::contains(def->block, use)) p.conditional = true;
  }

  // Follows a local name bound by a plain assignment to its value (for operands like `kT`).
  TSNode followAssigned(TSNode node, Pattern& p) const {
    node = unparenthesize(node);
    if (!isKind(node, kind::identifier)) return node;
    const Definition* def = flow_.reaching(text(node), startOf(node));
    if (def == nullptr || def->kind != Definition::Kind::Assign) return node;
    if (ts_node_is_null(def->block) || !analysis::contains(def->block, node)) return node;
    p.consumed.push_back(def);
    return unparenthesize(def->value);
  }

  // ---- after the softmax: casts and dropout ------------------------------------------------

  bool spend() { return ++steps_ <= kMaxSteps; }

  bool traceProbs(TSNode expr, Pattern& p, int depth, bool) {
    if (depth > kMaxDepth || !spend()) return false;
    expr = unparenthesize(expr);
    if (isKind(expr, kind::identifier)) {
      for (const Definition* def : candidates(text(expr), startOf(expr), expr)) {
        if (def->kind != Definition::Kind::Assign) return false;
        Pattern attempt = p;
        noteFollowed(attempt, def, expr);
        if (traceProbs(def->value, attempt, depth + 1, false)) {
          p = std::move(attempt);
          return true;
        }
      }
      return false;
    }
    if (!isKind(expr, kind::call) || !plainCall(expr)) return false;

    // Casts back to the input dtype after an upcast softmax.
    TSNode object{};
    std::string_view method = tensorMethod(expr, &object);
    if (method == "to" || method == "type_as" || method == "type" || method == "half" || method == "bfloat16")
      return traceProbs(object, p, depth + 1, false);

    if (TSNode input = dropoutInput(expr, p); !ts_node_is_null(input)) return traceProbs(input, p, depth + 1, false);

    TSNode scores = softmaxInput(expr, p);
    if (ts_node_is_null(scores)) return false;
    if (!traceScores(scores, p, depth + 1)) return false;
    if (!p.softmax_dim) return false;
    long long dim = *p.softmax_dim;
    return dim == -1 || (p.rank > 0 && dim == p.rank - 1);
  }

  TSNode dropoutInput(TSNode call, Pattern& p) const {
    std::string name = callee(call);
    TSNode input{}, rate{}, training{};
    std::string owner;
    if (name == "torch.nn.functional.dropout") {
      input = argument(call, 0, "input");
      rate = argument(call, 1, "p");
      training = argument(call, 2, "training");
    } else if (name == "torch.dropout") {
      input = argument(call, 0, "input");
      rate = argument(call, 1, "p");
      training = argument(call, 2, "train");
      if (ts_node_is_null(training)) return {};
    } else if (name.empty()) {
      TSNode function = fieldOf(call, "function");
      TSNode built = classMember(function);
      if (!isKind(built, kind::call) || callee(built) != "torch.nn.Dropout") return {};
      auto args = positionalArguments(call);
      if (args.size() != 1) return {};
      input = args[0];
      TSNode module_rate = argument(built, 0, "p");
      std::string self(text(fieldOf(function, "object")));
      p.dropouts += 1;
      p.dropout_p = std::string(text(function)) + ".p if " + self + ".training else 0.0";
      auto literal = ts_node_is_null(module_rate) ? std::optional<double>(0.5) : numberValue(module_rate, source_);
      p.dropout_rate = literal;
      return input;
    } else {
      return {};
    }
    if (ts_node_is_null(input)) return {};
    p.dropouts += 1;
    auto literal = ts_node_is_null(rate) ? std::optional<double>(0.5) : numberValue(rate, source_);
    std::string rate_text = ts_node_is_null(rate) ? "0.5" : argumentText(rate, source_);
    if (!ts_node_is_null(training) && isFalseLiteral(training)) return input;  // never applied
    p.dropout_p_node = rate;
    p.dropout_rate = literal;
    if (ts_node_is_null(training) && name == "torch.nn.functional.dropout") p.dropout_without_training = call;
    if (ts_node_is_null(training) || isTrueLiteral(training))
      p.dropout_p = rate_text;
    else
      p.dropout_p = rate_text + " if " + argumentText(training, source_) + " else 0.0";
    return input;
  }

  // The softmax's input, recording its dim and dtype; null when `call` is no softmax.
  TSNode softmaxInput(TSNode call, Pattern& p) const {
    std::string name = callee(call);
    TSNode input{}, dim{}, dtype{};
    if (name == "torch.nn.functional.softmax" || name == "torch.softmax" || name == "torch.special.softmax") {
      input = argument(call, 0, "input");
      dim = argument(call, 1, "dim");
      dtype = keywordArgument(call, "dtype", source_);
      if (ts_node_is_null(dtype) && name != "torch.nn.functional.softmax") {
        auto args = positionalArguments(call);
        if (args.size() > 2) dtype = args[2];
      }
    } else if (!name.empty()) {
      return {};
    } else if (TSNode module = unparenthesize(fieldOf(call, "function"));
               isKind(module, kind::call) && plainCall(module) && callee(module) == "torch.nn.Softmax") {
      // `nn.Softmax(dim=-1)(x)`: the module built and called at once.
      auto args = positionalArguments(call);
      if (args.size() != 1 || !plainCall(call)) return {};
      input = args[0];
      dim = argument(module, 0, "dim");
    } else if (TSNode built = classMember(fieldOf(call, "function")); !ts_node_is_null(built)) {
      // `self.softmax(x)` with `self.softmax = nn.Softmax(dim=-1)` in the class, or
      // `self.attend = nn.Sequential(nn.Softmax(dim=-1), nn.Dropout(dropout))` (vit-pytorch).
      if (!isKind(built, kind::call) || !plainCall(built)) return {};
      auto args = positionalArguments(call);
      if (args.size() != 1 || !plainCall(call)) return {};
      TSNode softmax = built;
      if (callee(built) == "torch.nn.Sequential") {
        auto layers = positionalArguments(built);
        if (layers.empty() || layers.size() > 2 || ts_node_named_child_count(argumentList(built)) != layers.size()) return {};
        softmax = unparenthesize(layers[0]);
        if (layers.size() == 2) {
          TSNode drop = unparenthesize(layers[1]);
          if (!isKind(drop, kind::call) || !plainCall(drop) || callee(drop) != "torch.nn.Dropout") return {};
          TSNode function = fieldOf(call, "function");
          TSNode rate = argument(drop, 0, "p");
          auto literal = ts_node_is_null(rate) ? std::optional<double>(0.5) : numberValue(rate, source_);
          p.dropouts += 1;
          p.dropout_p = std::string(text(function)) + "[1].p if " + std::string(text(fieldOf(function, "object"))) +
                        ".training else 0.0";
          p.dropout_rate = literal;
        }
      }
      if (!isKind(softmax, kind::call) || callee(softmax) != "torch.nn.Softmax") return {};
      input = args[0];
      dim = argument(softmax, 0, "dim");
    } else if (TSNode object{}; tensorMethod(call, &object) == "softmax") {
      input = object;
      dim = argument(call, 0, "dim");
      dtype = argument(call, 1, "dtype");
    } else {
      return {};
    }
    long long value = 0;
    if (ts_node_is_null(input) || ts_node_is_null(dim) || !isIntValue(dim, source_, value)) return {};
    p.softmax_dim = value;
    if (!ts_node_is_null(dtype)) {
      auto q = ctx_.model().qualifiedName(dtype);
      if (!q || (*q != "torch.float32" && *q != "torch.float")) return {};
      p.upcast = true;
    }
    return input;
  }

  // ---- before the softmax: mask, scale, upcast, then Q·Kᵀ --------------------------------

  bool traceScores(TSNode expr, Pattern& p, int depth) {
    if (depth > kMaxDepth || !spend()) return false;
    expr = unparenthesize(expr);
    if (isKind(expr, kind::identifier)) return traceScoresName(text(expr), startOf(expr), expr, p, depth + 1);

    if (qkProduct(expr, p)) return true;

    if (TSNode capped = softCapped(expr); !ts_node_is_null(capped)) {
      Pattern attempt = p;
      attempt.score_mod = "tanh soft-capping";
      if (!traceScores(capped, attempt, depth + 1)) return false;
      p = std::move(attempt);
      return true;
    }
    if (isKind(expr, kind::binary_operator)) {
      std::string_view op = text(fieldOf(expr, "operator"));
      TSNode left = fieldOf(expr, "left"), right = fieldOf(expr, "right");
      if (op == "/") return scaleStep(left, right, true, p, depth);
      if (op == "*") return scaleStep(left, right, false, p, depth) || scaleStep(right, left, false, p, depth);
      if (op == "+") return additiveStep(left, right, p, depth) || additiveStep(right, left, p, depth);
      if (op == "-" && isMaxOf(right, left)) return traceScores(left, p, depth + 1);
      return false;
    }
    if (!isKind(expr, kind::call) || !plainCall(expr)) return false;
    TSNode object{};
    std::string_view method = tensorMethod(expr, &object);
    auto args = positionalArguments(expr);
    if (method == "masked_fill" && args.size() == 2) return maskStep(object, args[0], args[1], p, depth);
    // `attn = self.rel_pos(attn)` (timm gcvit): a module or local function applied to the scores
    // alone, whose effect the rule cannot see; reported without a fix.
    if (TSNode function = fieldOf(expr, "function");
        args.size() == 1 && ts_node_named_child_count(argumentList(expr)) == 1 && p.score_mod.empty() &&
        !ctx_.model().qualifiedName(function) &&
        (isKind(function, kind::identifier) ||
         (isKind(function, kind::attribute) && isKind(unparenthesize(fieldOf(function, "object")), kind::identifier) &&
          text(unparenthesize(fieldOf(function, "object"))) == "self"))) {
      TSNode inner = unparenthesize(args[0]);
      if (isKind(inner, kind::identifier) || asMatmul(inner)) {
        Pattern attempt = p;
        attempt.score_mod = "`" + std::string(text(function)) + "(...)`";
        attempt.opaque_mod = true;
        if (!traceScores(inner, attempt, depth + 1)) return false;
        p = std::move(attempt);
        return true;
      }
    }
    if ((method == "div" || method == "mul") && args.size() == 1 && ts_node_named_child_count(argumentList(expr)) == 1)
      return scaleStep(object, args[0], method == "div", p, depth);
    if (method == "add" && args.size() == 1 && ts_node_named_child_count(argumentList(expr)) == 1)
      return additiveStep(object, args[0], p, depth);
    if (method == "float" && args.empty()) {
      p.upcast = true;
      return traceScores(object, p, depth + 1);
    }
    if (method == "to" && args.size() == 1) {
      auto q = ctx_.model().qualifiedName(args[0]);
      if (q && (*q == "torch.float32" || *q == "torch.float")) {
        p.upcast = true;
        return traceScores(object, p, depth + 1);
      }
    }
    return false;
  }

  bool traceScoresName(std::string_view name, uint32_t at, TSNode use, Pattern& p, int depth) {
    if (depth > kMaxDepth || !spend()) return false;
    for (const Definition* def : candidates(name, at, use)) {
      Pattern attempt = p;
      noteFollowed(attempt, def, use);
      bool ok = false;
      if (def->kind == Definition::Kind::Assign) {
        ok = traceScores(def->value, attempt, depth + 1);
      } else if (def->kind == Definition::Kind::AugAssign) {
        std::string_view op = text(fieldOf(def->node, "operator"));
        TSNode operand = def->value;
        uint32_t before = startOf(def->node);
        TSNode left = fieldOf(def->node, "left");
        if (op == "/=" || op == "*=") ok = scaleName(name, before, left, operand, op == "/=", attempt, depth);
        else if (op == "+=") ok = additiveName(name, before, left, operand, attempt, depth);
      } else if (def->kind == Definition::Kind::InPlace) {
        TSNode call = def->value;
        TSNode object{};
        std::string_view method = tensorMethod(call, &object);
        auto args = positionalArguments(call);
        uint32_t before = startOf(call);
        if (!plainCall(call)) {
          ok = false;
        } else if (method == "masked_fill_" && args.size() == 2) {
          ok = maskFill(args[0], args[1], attempt) && traceScoresName(name, before, object, attempt, depth + 1);
        } else if ((method == "div_" || method == "mul_") && args.size() == 1) {
          ok = scaleName(name, before, object, args[0], method == "div_", attempt, depth);
        } else if (method == "add_" && args.size() == 1) {
          ok = additiveName(name, before, object, args[0], attempt, depth);
        }
      }
      if (ok) {
        p = std::move(attempt);
        return true;
      }
      if (def->kind != Definition::Kind::Assign) return false;
    }
    return false;
  }

  void recordScale(TSNode factor, bool divides, Pattern& p) const {
    p.scales += 1;
    p.scale_factor = factor;
    p.scale_divides = divides;
  }

  bool scaleStep(TSNode scores, TSNode factor, bool divides, Pattern& p, int depth) {
    if (looksLikeScores(factor)) return false;
    Pattern attempt = p;
    recordScale(factor, divides, attempt);
    bool outside = attempt.scale_seen_outside;
    attempt.scale_seen_outside = true;
    if (!traceScores(scores, attempt, depth + 1)) return false;
    attempt.scale_seen_outside = outside || attempt.scale_seen_outside;
    p = std::move(attempt);
    return true;
  }

  bool scaleName(std::string_view name, uint32_t before, TSNode use, TSNode factor, bool divides, Pattern& p,
                 int depth) {
    recordScale(factor, divides, p);
    p.scale_seen_outside = true;
    return traceScoresName(name, before, use, p, depth + 1);
  }

  void recordAdditive(TSNode mask, Pattern& p) const {
    p.masks += 1;
    p.mask = MaskKind::Additive;
    p.mask_node = mask;
    p.attn_mask = argumentText(mask, source_);
    if (p.scale_seen_outside) p.scale_after_additive = true;
  }

  bool additiveStep(TSNode scores, TSNode mask, Pattern& p, int depth) {
    if (looksLikeScores(mask)) return false;
    Pattern attempt = p;
    recordAdditive(mask, attempt);
    if (!traceScores(scores, attempt, depth + 1)) return false;
    p = std::move(attempt);
    return true;
  }

  bool additiveName(std::string_view name, uint32_t before, TSNode use, TSNode mask, Pattern& p, int depth) {
    recordAdditive(mask, p);
    return traceScoresName(name, before, use, p, depth + 1);
  }

  bool maskStep(TSNode scores, TSNode condition, TSNode fill, Pattern& p, int depth) {
    Pattern attempt = p;
    if (!maskFill(condition, fill, attempt)) return false;
    if (!traceScores(scores, attempt, depth + 1)) return false;
    p = std::move(attempt);
    return true;
  }

  // `cap * torch.tanh(scores / cap)` (Gemma-2, Grok soft-capping; either operand order, `.tanh()`
  // as a method): the scores inside; null for anything else.
  TSNode softCapped(TSNode expr) const {
    expr = unparenthesize(expr);
    if (!isKind(expr, kind::binary_operator) || text(fieldOf(expr, "operator")) != "*") return {};
    for (int side = 0; side < 2; ++side) {
      TSNode cap = unparenthesize(fieldOf(expr, side == 0 ? "left" : "right"));
      TSNode tanh = unparenthesize(fieldOf(expr, side == 0 ? "right" : "left"));
      if (!isKind(tanh, kind::call) || !plainCall(tanh)) continue;
      TSNode inner{};
      std::string name = callee(tanh);
      auto args = positionalArguments(tanh);
      if ((name == "torch.tanh" || name == "torch.nn.functional.tanh") && args.size() == 1) inner = args[0];
      else if (TSNode object{}; tensorMethod(tanh, &object) == "tanh" && args.empty()) inner = object;
      inner = unparenthesize(inner);
      if (!isKind(inner, kind::binary_operator) || text(fieldOf(inner, "operator")) != "/") continue;
      if (text(unparenthesize(fieldOf(inner, "right"))) != text(cap)) continue;
      return fieldOf(inner, "left");
    }
    return {};
  }

  // A product that is itself Q·Kᵀ is never a scale factor or a mask.
  bool looksLikeScores(TSNode node) const {
    auto mm = asMatmul(node);
    return mm.has_value();
  }

  // `scores - scores.max(-1, keepdim=True)[0]` / `.amax(...)`: softmax-invariant.
  bool isMaxOf(TSNode maximum, TSNode scores) const {
    maximum = unparenthesize(maximum);
    for (int i = 0; i < 4; ++i) {
      if (isKind(maximum, kind::subscript)) maximum = unparenthesize(fieldOf(maximum, "value"));
      else if (isKind(maximum, kind::attribute) && text(fieldOf(maximum, "attribute")) == "values")
        maximum = unparenthesize(fieldOf(maximum, "object"));
      else break;
    }
    TSNode object{};
    std::string_view method = tensorMethod(maximum, &object);
    if (method == "detach") method = tensorMethod(unparenthesize(object), &object);
    if (method != "max" && method != "amax") return false;
    object = unparenthesize(object);
    if (isKind(object, kind::call) && tensorMethod(object) == "detach") object = unparenthesize(fieldOf(fieldOf(object, "function"), "object"));
    return text(object) == text(unparenthesize(scores));
  }

  // ---- masks -------------------------------------------------------------------------------

  // `float(...)` and friends: the builtin, not shadowed by a local or an import.
  bool isBuiltinCall(TSNode node, std::string_view name) const {
    if (!isKind(node, kind::call)) return false;
    TSNode function = fieldOf(node, "function");
    return isKind(function, kind::identifier) && text(function) == name &&
           ctx_.model().resolve(name, function) == nullptr;
  }

  bool isLargeNegative(TSNode fill, int depth = 0) const {
    fill = unparenthesize(fill);
    if (isKind(fill, kind::identifier) && depth < 4) {
      // `max_neg_value = -torch.finfo(sim.dtype).max` then `masked_fill_(~mask, max_neg_value)`.
      const Definition* def = flow_.reaching(text(fill), startOf(fill));
      if (def == nullptr || def->kind != Definition::Kind::Assign) return false;
      if (flow_.previous(def) != nullptr) return false;  // bound more than once
      return isLargeNegative(def->value, depth + 1);
    }
    if (auto value = numberValue(fill, source_)) return *value <= -1e4;
    if (isBuiltinCall(fill, "float")) {
      auto args = positionalArguments(fill);
      if (args.size() == 1 && isKind(args[0], kind::string)) {
        std::string s(text(args[0]));
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        return s == "\"-inf\"" || s == "'-inf'" || s == "\"-infinity\"" || s == "'-infinity'";
      }
      return false;
    }
    if (isKind(fill, kind::unary_operator) && text(fieldOf(fill, "operator")) == "-") {
      TSNode inner = unparenthesize(fieldOf(fill, "argument"));
      auto q = ctx_.model().qualifiedName(inner);
      if (q && (*q == "math.inf" || *q == "torch.inf" || *q == "numpy.inf")) return true;
      if (isBuiltinCall(inner, "float")) {
        auto args = positionalArguments(inner);
        return args.size() == 1 && (text(args[0]) == "\"inf\"" || text(args[0]) == "'inf'");
      }
      // -torch.finfo(x.dtype).max
      if (isKind(inner, kind::attribute) && text(fieldOf(inner, "attribute")) == "max") {
        TSNode base = fieldOf(inner, "object");
        return isKind(base, kind::call) && callee(base) == "torch.finfo";
      }
      return false;
    }
    // torch.finfo(x.dtype).min
    if (isKind(fill, kind::attribute) && text(fieldOf(fill, "attribute")) == "min") {
      TSNode base = fieldOf(fill, "object");
      return isKind(base, kind::call) && callee(base) == "torch.finfo";
    }
    return false;
  }

  // Is `node` (after slicing and dtype casts) a lower-triangular ones matrix, i.e. `torch.tril(
  // torch.ones(...))`, bound locally or registered as a buffer?
  bool isTrilOnes(TSNode node, int depth = 0) const {
    if (depth > 8) return false;
    node = unparenthesize(node);
    if (isKind(node, kind::subscript)) {
      // Only slices that keep a top-left corner: `[:, :, :T, :T]`, `[..., :T, :S]`.
      bool plain = true;
      analysis::forEachFieldChild(node, "subscript", [&](TSNode index) {
        if (isKind(index, kind::ellipsis)) return;
        if (!isKind(index, kind::slice)) { plain = false; return; }
        std::string_view t = text(index);
        if (!t.starts_with(":") || t.find(':', 1) != std::string_view::npos) plain = false;
      });
      return plain && isTrilOnes(fieldOf(node, "value"), depth + 1);
    }
    if (isKind(node, kind::identifier)) {
      const Definition* def = flow_.reaching(text(node), startOf(node));
      if (def == nullptr) return false;
      return def->kind == Definition::Kind::Assign && isTrilOnes(def->value, depth + 1);
    }
    if (isKind(node, kind::attribute)) {
      TSNode built = classMember(node);
      return !ts_node_is_null(built) && isTrilOnes(built, depth + 1);
    }
    if (!isKind(node, kind::call)) return false;
    TSNode object{};
    std::string_view method = tensorMethod(node, &object);
    if (method == "bool" || method == "to" || method == "view" || method == "unsqueeze" || method == "float" ||
        method == "int" || method == "long" || method == "byte")
      return isTrilOnes(object, depth + 1);
    TSNode base{};
    if (callee(node) == "torch.tril") {
      auto args = positionalArguments(node);
      if (args.size() != 1 || ts_node_named_child_count(argumentList(node)) != 1) return false;
      base = unparenthesize(args[0]);
    } else if (method == "tril" && positionalArguments(node).empty() &&
               ts_node_named_child_count(argumentList(node)) == 0) {
      base = unparenthesize(object);
    } else {
      return false;
    }
    std::string ones = callee(base);
    return ones == "torch.ones" || ones == "torch.ones_like";
  }

  // `scores.masked_fill(condition, -inf)`: positions where `condition` holds are excluded.
  bool maskFill(TSNode condition, TSNode fill, Pattern& p) const {
    if (!isLargeNegative(fill)) return false;
    condition = unparenthesize(condition);
    p.masks += 1;
    p.mask_node = condition;
    // `tril == 0` or `~tril`: excluded above the diagonal, i.e. causal.
    if (isKind(condition, kind::comparison_operator) && ts_node_named_child_count(condition) == 2) {
      TSNode a = ts_node_named_child(condition, 0), b = ts_node_named_child(condition, 1);
      std::string_view op = text(ts_node_child(condition, 1));
      long long zero = 1;
      bool is_zero = isIntValue(b, source_, zero) && zero == 0;
      if (op == "==" && (is_zero || isFalseLiteral(b)) && isTrilOnes(a)) {
        p.mask = MaskKind::Causal;
        return true;
      }
      if (op == "==" || op == "!=") {
        p.mask = MaskKind::Boolean;
        p.attn_mask = std::string(text(a)) + (op == "==" ? " != " : " == ") + std::string(text(b));
        return true;
      }
    }
    if (isKind(condition, kind::unary_operator) && text(fieldOf(condition, "operator")) == "~") {
      TSNode inner = unparenthesize(fieldOf(condition, "argument"));
      if (isTrilOnes(inner)) {
        p.mask = MaskKind::Causal;
        return true;
      }
      p.mask = MaskKind::Boolean;
      p.attn_mask = text(inner);
      return true;
    }
    if (TSNode object{}; tensorMethod(condition, &object) == "logical_not" && positionalArguments(condition).empty()) {
      p.mask = MaskKind::Boolean;
      p.attn_mask = text(object);
      return true;
    }
    p.mask = MaskKind::Boolean;
    p.attn_mask = isAtomic(condition) ? "~" + std::string(text(condition)) : "~(" + std::string(text(condition)) + ")";
    return true;
  }

  // ---- Q·Kᵀ --------------------------------------------------------------------------------

  // `k.transpose(-2, -1)`, `k.mT`, `torch.transpose(k, -2, -1)`, `k.permute(0, 1, 3, 2)`:
  // returns `k`; null when the operand is not a transposed key.
  TSNode untransposed(TSNode node, bool bmm, int& rank) const {
    node = unparenthesize(node);
    if (isKind(node, kind::attribute) && text(fieldOf(node, "attribute")) == "mT" &&
        !ctx_.model().qualifiedName(node))
      return fieldOf(node, "object");
    if (!isKind(node, kind::call) || !plainCall(node)) return {};
    TSNode object{};
    std::vector<TSNode> dims;
    std::string_view method = tensorMethod(node, &object);
    // `k.transpose(-2, -1).contiguous()`: same values, same layout as seen by matmul.
    if (method == "contiguous" && positionalArguments(node).empty() && ts_node_named_child_count(argumentList(node)) == 0)
      return untransposed(object, bmm, rank);
    auto args = positionalArguments(node);
    if (method == "transpose" && args.size() == 2) {
      dims = args;
    } else if (callee(node) == "torch.transpose" && args.size() == 3) {
      object = args[0];
      dims = {args[1], args[2]};
    } else if (method == "permute") {
      std::vector<long long> order;
      for (TSNode a : args) {
        long long v = 0;
        if (!isIntValue(a, source_, v)) return {};
        order.push_back(v);
      }
      if (order == std::vector<long long>{0, 1, 3, 2}) { rank = 4; return object; }
      if (bmm && order == std::vector<long long>{0, 2, 1}) { rank = 3; return object; }
      return {};
    } else {
      return {};
    }
    long long a = 0, b = 0;
    if (!isIntValue(dims[0], source_, a) || !isIntValue(dims[1], source_, b)) return {};
    if (a > b) std::swap(a, b);
    if (a == -2 && b == -1) return object;
    if (a == 2 && b == 3) { rank = 4; return object; }
    if (bmm && a == 1 && b == 2) { rank = 3; return object; }
    return {};
  }

  // A scale factor written on the query inside the product: `(q * self.scale) @ kᵀ`.
  bool scaleLike(TSNode node) const {
    node = unparenthesize(node);
    if (numberValue(node, source_)) return true;
    if (isKind(node, kind::binary_operator)) {
      std::string_view op = text(fieldOf(node, "operator"));
      return op == "**" || (op == "/" && numberValue(fieldOf(node, "left"), source_));
    }
    if (isKind(node, kind::call)) {
      std::string name = callee(node);
      return name == "math.sqrt" || name == "numpy.sqrt" || name == "math.pow";
    }
    std::string_view name = text(isKind(node, kind::attribute) ? fieldOf(node, "attribute") : node);
    if (!isKind(node, kind::attribute) && !isKind(node, kind::identifier)) return false;
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find("scal") != std::string::npos;
  }

  // The value a local name holds at `at` when it was bound by a plain assignment; else `node`.
  TSNode boundValue(TSNode node) const {
    node = unparenthesize(node);
    if (!isKind(node, kind::identifier)) return node;
    const Definition* def = flow_.reaching(text(node), startOf(node));
    if (def == nullptr || def->kind != Definition::Kind::Assign) return {};
    return unparenthesize(def->value);
  }

  // The order of axes the last layout step of `expr` produces, as names: `x.permute(0, 2, 3, 1)`
  // -> 0 2 3 1, `x.transpose(1, 2)` (given the rank) -> 0 2 1 3, `rearrange(x, "b n (h d) -> b h d
  // n")` -> b h d n. Followed through names bound once and through a scale (`q = q * s`).
  std::vector<std::string> axisOrder(TSNode expr, int rank, int depth = 0) const {
    if (depth > 4) return {};
    expr = boundValue(expr);
    if (ts_node_is_null(expr)) return {};
    if (isKind(expr, kind::binary_operator)) {
      std::string_view op = text(fieldOf(expr, "operator"));
      TSNode l = fieldOf(expr, "left"), r = fieldOf(expr, "right");
      if ((op == "*" || op == "/") && scaleLike(r)) return axisOrder(l, rank, depth + 1);
      if (op == "*" && scaleLike(l)) return axisOrder(r, rank, depth + 1);
      return {};
    }
    if (!isKind(expr, kind::call) || !plainCall(expr)) return {};
    TSNode object{};
    std::string_view method = tensorMethod(expr, &object);
    auto args = positionalArguments(expr);
    std::vector<std::string> out;
    if (method == "contiguous" && args.empty()) return axisOrder(object, rank, depth + 1);
    if (method == "view" || method == "reshape") {
      // `p.view(B, C, -1)` beside `t.view(B, C, -1).permute(0, 2, 1)`: axes in stored order.
      int n = visibleRank(expr);
      if (n < 2) return {};
      for (int i = 0; i < n; ++i) out.push_back(std::to_string(i));
      return out;
    }
    if (method == "permute") {
      for (TSNode a : args) {
        long long v = 0;
        if (!isIntValue(a, source_, v) || v < 0) return {};
        out.push_back(std::to_string(v));
      }
      return out;
    }
    if (method == "transpose" && args.size() == 2 && rank == 0) rank = visibleRank(object);
    if (method == "transpose" && args.size() == 2 && rank > 0) {
      long long a = 0, b = 0;
      if (!isIntValue(args[0], source_, a) || !isIntValue(args[1], source_, b)) return {};
      if (a < 0) a += rank;
      if (b < 0) b += rank;
      if (a < 0 || b < 0 || a >= rank || b >= rank || a == b) return {};
      for (int i = 0; i < rank; ++i) out.push_back(std::to_string(i));
      std::swap(out[static_cast<size_t>(a)], out[static_cast<size_t>(b)]);
      return out;
    }
    if (callee(expr) == "einops.rearrange" && args.size() == 2) {
      TSNode pattern = unparenthesize(args[1]);
      if (!isKind(pattern, kind::string)) return {};
      std::string content;
      analysis::forEachNamedChild(pattern, [&](TSNode child) {
        if (isKind(child, kind::string_content)) content += text(child);
      });
      size_t arrow = content.find("->");
      if (arrow == std::string::npos) return {};
      std::string rhs = content.substr(arrow + 2), token;
      int nesting = 0;
      for (char c : rhs + " ") {
        if (c == '(') ++nesting;
        if (c == ')') --nesting;
        if ((c == ' ' || c == '\t') && nesting == 0) {
          if (!token.empty()) out.push_back(token);
          token.clear();
        } else {
          token += c;
        }
      }
      return out;
    }
    return {};
  }

  // Whether the key operand of `q @ k` is evidently stored (..., E, S): its layout step is the
  // query's with the last two axes swapped (`q = x.transpose(1, 2)`, `k = x.permute(0, 2, 3,
  // 1)`; `rearrange(..., "-> b h n d")` beside `"-> b h d n"`).
  bool keyStoredTransposed(TSNode query, TSNode key) const {
    auto k = axisOrder(key, 0);
    auto q = axisOrder(query, static_cast<int>(k.size()));
    if (k.empty()) k = axisOrder(key, static_cast<int>(q.size()));
    if (q.size() < 2 || q.size() != k.size()) return false;
    std::swap(q[q.size() - 1], q[q.size() - 2]);
    return q == k && k[k.size() - 1] != k[k.size() - 2];
  }

  // The rank an operand visibly has (`view`/`reshape` with n sizes, `permute` of n axes, a
  // `rearrange` output), followed through names bound once; 0 when not visible.
  int visibleRank(TSNode expr, int depth = 0) const {
    if (depth > 6 || ts_node_is_null(expr)) return 0;
    expr = boundValue(expr);
    if (ts_node_is_null(expr)) return 0;
    if (isKind(expr, kind::binary_operator)) {
      std::string_view op = text(fieldOf(expr, "operator"));
      TSNode l = fieldOf(expr, "left"), r = fieldOf(expr, "right");
      if ((op == "*" || op == "/") && scaleLike(r)) return visibleRank(l, depth + 1);
      if (op == "*" && scaleLike(l)) return visibleRank(r, depth + 1);
      return 0;
    }
    if (isKind(expr, kind::attribute) && text(fieldOf(expr, "attribute")) == "mT") return visibleRank(fieldOf(expr, "object"), depth + 1);
    if (!isKind(expr, kind::call) || !plainCall(expr)) return 0;
    TSNode object{};
    std::string_view method = tensorMethod(expr, &object);
    auto args = positionalArguments(expr);
    if (method == "view" || method == "reshape") {
      if (args.size() == 1 && (isKind(args[0], kind::tuple) || isKind(args[0], kind::list)))
        return static_cast<int>(ts_node_named_child_count(args[0]));
      if (args.size() == 1) {
        long long v = 0;
        return isIntValue(args[0], source_, v) ? 1 : 0;  // `view(-1)`; `view(shape)` is unknown
      }
      return static_cast<int>(args.size());
    }
    if (method == "permute") return static_cast<int>(args.size());
    if (method == "transpose" || method == "contiguous" || method == "float" || method == "half" ||
        method == "to" || method == "type_as" || method == "bfloat16")
      return visibleRank(object, depth + 1);
    if (callee(expr) == "einops.rearrange") return static_cast<int>(axisOrder(expr, 0).size());
    return 0;
  }

  bool qkProduct(TSNode expr, Pattern& p) const {
    auto mm = asMatmul(expr);
    if (!mm) return false;
    Pattern attempt = p;
    TSNode query = unparenthesize(mm->left);
    TSNode key{};
    if (mm->einsum) {
      auto shape = scoresEinsum(*mm->einsum);
      if (!shape) return false;
      key = mm->right;
      attempt.q_transposed = shape->q_transposed;
      attempt.k_transposed = shape->k_transposed;
      if (shape->shared) attempt.no_fix = kSharedAcrossHeads;
      if (shape->rank > 0) {
        attempt.rank = shape->rank;
        attempt.layout = shape->rank == 3 ? AttentionFacts::Layout::BTD : AttentionFacts::Layout::BHTD;
      }
    } else {
      int rank = 0;
      TSNode right = unparenthesize(mm->right);
      // `k.transpose(-2, -1) * scale`: the scale applied to the key after the transpose.
      TSNode key_scale{};
      bool key_scale_divides = false;
      if (isKind(right, kind::binary_operator)) {
        std::string_view op = text(fieldOf(right, "operator"));
        TSNode l = fieldOf(right, "left"), r = fieldOf(right, "right");
        if ((op == "*" || op == "/") && scaleLike(r) && !scaleLike(l)) {
          key_scale = r;
          key_scale_divides = op == "/";
          right = unparenthesize(l);
        } else if (op == "*" && scaleLike(l) && !scaleLike(r)) {
          key_scale = l;
          right = unparenthesize(r);
        }
      }
      Pattern followed = attempt;
      key = untransposed(followAssigned(right, followed), mm->bmm, rank);
      if (!ts_node_is_null(key)) {
        attempt = std::move(followed);
      } else if (int unused = 0; !ts_node_is_null(untransposed(query, mm->bmm, unused)) && ts_node_is_null(key_scale)) {
        // `q.transpose(-2, -1) @ k`: queries and keys both stored (..., E, L); the query operand
        // is already (..., L, E), the key is passed transposed.
        key = right;
        attempt.k_transposed = true;
        rank = unused;
      } else if (keyStoredTransposed(query, right)) {
        // `q @ k` with k built as (..., E, S) beside q's (..., L, E).
        key = right;
        attempt.k_transposed = true;
      } else {
        return false;
      }
      if (!ts_node_is_null(key_scale)) recordScale(key_scale, key_scale_divides, attempt);
      if (mm->bmm) rank = 3;
      attempt.rank = rank;
      attempt.layout = rank == 3 ? AttentionFacts::Layout::BTD : AttentionFacts::Layout::BHTD;
    }
    // `einsum(..., q * s, k * s)` (guided-diffusion scales both by d^-1/4): both operands keep
    // their scale, and SDPA gets `scale=1.0`.
    bool key_scaled = false;
    if (mm->einsum) {
      TSNode k = unparenthesize(key);
      if (isKind(k, kind::binary_operator)) {
        std::string_view op = text(fieldOf(k, "operator"));
        TSNode left = fieldOf(k, "left"), right = fieldOf(k, "right");
        key_scaled = ((op == "*" || op == "/") && scaleLike(right) && !scaleLike(left)) ||
                     (op == "*" && scaleLike(left) && !scaleLike(right));
      }
    }
    // `(q * scale) @ kᵀ`: the scale goes to `scale=`, the query is `q`.
    if (isKind(query, kind::binary_operator) && !key_scaled) {
      std::string_view op = text(fieldOf(query, "operator"));
      TSNode left = fieldOf(query, "left"), right = fieldOf(query, "right");
      if (op == "*" && scaleLike(left) && !scaleLike(right)) {
        recordScale(left, false, attempt);
        query = right;
      } else if ((op == "*" || op == "/") && scaleLike(right) && !scaleLike(left)) {
        recordScale(right, op == "/", attempt);
        query = left;
      }
    }
    if (attempt.scales > 1 && attempt.no_fix.empty())
      attempt.no_fix = "the scores are scaled in more than one place";
    attempt.q = unparenthesize(query);
    attempt.k = unparenthesize(key);
    attempt.qk_node = expr;
    p = std::move(attempt);
    return true;
  }

  Context& ctx_;
  const FunctionFlow& flow_;
  std::string_view source_;
  int steps_ = 0;
};

// ---- facts and fix -------------------------------------------------------------------------

struct ScaleInfo {
  AttentionFacts::Scale kind = AttentionFacts::Scale::None;
  double value = 1.0;  // for AttentionFacts::Scale::Value
  bool provably_default = false;  // exactly 1/sqrt(q.size(-1))
  bool conventional = false;      // 1/sqrt(<something>): the usual head-dim scale
};

class FixBuilder;

// `q.size(-1)`, `q.shape[-1]`, `k.size(-1)`, ... of the pattern's own query or key.
bool isHeadDimOf(TSNode node, const Pattern& p, std::string_view source) {
  node = unparenthesize(node);
  TSNode object{};
  TSNode index{};
  if (isKind(node, kind::call)) {
    TSNode function = fieldOf(node, "function");
    if (!isKind(function, kind::attribute) || analysis::textOf(fieldOf(function, "attribute"), source) != "size") return false;
    auto args = positionalArguments(node);
    if (args.size() != 1) return false;
    object = fieldOf(function, "object");
    index = args[0];
  } else if (isKind(node, kind::subscript)) {
    TSNode value = fieldOf(node, "value");
    if (!isKind(value, kind::attribute) || analysis::textOf(fieldOf(value, "attribute"), source) != "shape") return false;
    object = fieldOf(value, "object");
    index = fieldOf(node, "subscript");
  } else {
    return false;
  }
  long long i = 0;
  if (!isIntValue(index, source, i)) return false;
  if (!(i == -1 || (p.rank > 0 && i == p.rank - 1))) return false;
  std::string_view t = analysis::textOf(unparenthesize(object), source);
  return t == analysis::textOf(p.q, source) || t == analysis::textOf(p.k, source);
}

ScaleInfo classifyScale(const Pattern& p, Matcher& m, std::string_view source, int depth = 0,
                        TSNode factor_override = {}, bool divides_override = false, bool use_override = false) {
  ScaleInfo info;
  if (p.scales == 0) return info;
  TSNode factor = unparenthesize(use_override ? factor_override : p.scale_factor);
  bool divides = use_override ? divides_override : p.scale_divides;
  info.kind = AttentionFacts::Scale::Expression;
  if (depth > 4) return info;
  if (auto value = numberValue(factor, source)) {
    if (*value == 0) return info;
    info.kind = AttentionFacts::Scale::Value;
    info.value = divides ? 1.0 / *value : *value;
    return info;
  }
  auto sqrtArgument = [&](TSNode node) -> TSNode {
    node = unparenthesize(node);
    if (isKind(node, kind::call)) {
      std::string name = m.callee(node);
      auto args = positionalArguments(node);
      if ((name == "math.sqrt" || name == "numpy.sqrt") && args.size() == 1) return args[0];
    }
    if (isKind(node, kind::binary_operator) && m.text(fieldOf(node, "operator")) == "**") {
      auto e = numberValue(fieldOf(node, "right"), source);
      if (e && *e == 0.5) return fieldOf(node, "left");
    }
    return {};
  };
  TSNode dim{};
  if (divides) {
    dim = sqrtArgument(factor);
  } else if (isKind(factor, kind::binary_operator)) {
    std::string_view op = m.text(fieldOf(factor, "operator"));
    if (op == "**") {
      auto e = numberValue(fieldOf(factor, "right"), source);
      if (e && *e == -0.5) dim = fieldOf(factor, "left");
    } else if (op == "/") {
      auto one = numberValue(fieldOf(factor, "left"), source);
      if (one && *one == 1.0) dim = sqrtArgument(fieldOf(factor, "right"));
    }
  } else if (isKind(factor, kind::call) && m.callee(factor) == "math.pow") {
    auto args = positionalArguments(factor);
    auto e = args.size() == 2 ? numberValue(args[1], source) : std::nullopt;
    if (e && *e == -0.5) dim = args[0];
  } else if (isKind(factor, kind::attribute)) {
    // `self.scale` built in __init__ as `head_dim ** -0.5`.
    TSNode built = m.classMember(factor);
    if (!ts_node_is_null(built)) {
      ScaleInfo inner = classifyScale(p, m, source, depth + 1, built, false, true);
      inner.provably_default = false;
      inner.conventional = false;
      return inner;
    }
    return info;
  }
  if (ts_node_is_null(dim)) return info;
  info.kind = AttentionFacts::Scale::Default;
  // Only the query's own last size is SDPA's default: `dim ** -0.5` over a model width whose
  // heads have `dim // heads` channels each is a different number.
  info.provably_default = isHeadDimOf(dim, p, source);
  info.conventional = info.provably_default;
  return info;
}

AttentionFacts::Dtype autocastDtype(TSNode node, Context& ctx) {
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    if (isKind(cur, kind::function_definition) || isKind(cur, kind::class_definition) || isKind(cur, kind::lambda)) break;
    if (!isKind(cur, kind::with_statement)) continue;
    auto found = AttentionFacts::Dtype::Unknown;
    analysis::walkTree(
        cur,
        [&](TSNode n) {
          if (isKind(n, kind::block)) return false;
          if (!isKind(n, kind::with_item)) return true;
          TSNode call = unparenthesize(fieldOf(n, "value"));
          if (isKind(call, kind::as_pattern)) call = unparenthesize(ts_node_named_child(call, 0));
          auto name = ctx.model().calleeName(call);
          if (!name) return false;
          bool amp = *name == "torch.amp.autocast";
          bool cuda = *name == "torch.cuda.amp.autocast";
          bool cpu = *name == "torch.cpu.amp.autocast";
          if (!amp && !cuda && !cpu) return false;
          TSNode dtype = keywordArgument(call, "dtype", ctx.source());
          if (ts_node_is_null(dtype) && amp) {
            auto args = positionalArguments(call);
            if (args.size() > 1) dtype = args[1];
          }
          if (ts_node_is_null(dtype)) {
            if (cuda) found = AttentionFacts::Dtype::Float16;
            if (cpu) found = AttentionFacts::Dtype::BFloat16;
            return false;
          }
          auto q = ctx.model().qualifiedName(dtype);
          if (q && *q == "torch.bfloat16") found = AttentionFacts::Dtype::BFloat16;
          if (q && (*q == "torch.float16" || *q == "torch.half")) found = AttentionFacts::Dtype::Float16;
          return false;
        },
        [](TSNode) {});
    if (found != AttentionFacts::Dtype::Unknown) return found;
  }
  return AttentionFacts::Dtype::Unknown;
}

// The statement's whole lines, when nothing else shares them; nullopt otherwise.
std::optional<quickfix::Edit> deleteLines(TSNode statement, const analysis::ParsedFile& file) {
  std::string_view source = file.text();
  uint32_t start = startOf(statement), end = endOf(statement);
  uint32_t line_start = start;
  while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
  for (uint32_t i = line_start; i < start; ++i)
    if (source[i] != ' ' && source[i] != '\t') return std::nullopt;
  uint32_t line_end = end;
  bool comment = false;
  while (line_end < source.size() && source[line_end] != '\n') {
    char c = source[line_end];
    if (c == '#') comment = true;
    if (!comment && c != ' ' && c != '\t' && c != '\r') return std::nullopt;
    ++line_end;
  }
  if (line_end < source.size()) ++line_end;  // the newline
  return quickfix::Edit{line_start, line_end, ""};
}

// Identifiers read by `node` (not attribute names or keyword names).
std::vector<TSNode> identifiersIn(TSNode node) {
  std::vector<TSNode> out;
  if (ts_node_is_null(node)) return out;
  analysis::walkTree(
      node,
      [&](TSNode n) {
        if (isKind(n, kind::identifier)) {
          TSNode parent = ts_node_parent(n);
          bool member = isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), n);
          bool keyword = isKind(parent, kind::keyword_argument) && analysis::sameNode(fieldOf(parent, "name"), n);
          if (!member && !keyword) out.push_back(n);
          return false;
        }
        return !isKind(n, kind::lambda);
      },
      [](TSNode) {});
  return out;
}

// `x.transpose(-2, -1)`, parenthesised when needed.
std::string transposedText(TSNode node, std::string_view source) {
  std::string text(analysis::textOf(node, source));
  return (isAtomic(unparenthesize(node)) ? text : "(" + text + ")") + ".transpose(-2, -1)";
}

// The rewrite, or nullopt with `why` saying (for the message) what keeps it from being faithful.
std::optional<quickfix::Fix> buildFix(const Pattern& p, const ScaleInfo& scale, const FunctionFlow& flow, Matcher& m,
                                      Context& ctx, std::string& why) {
  auto refuse = [&](std::string reason) -> std::optional<quickfix::Fix> {
    why = std::move(reason);
    return std::nullopt;
  };
  if (p.opaque_mod)
    return refuse("the scores go through " + p.score_mod +
                  " before the softmax (pass a bias as `attn_mask`, or use a `flex_attention` `score_mod`)");
  if (!p.score_mod.empty())
    return refuse("the scores go through " + p.score_mod +
                  ", which `scaled_dot_product_attention` cannot express; `torch.nn.attention.flex_attention` "
                  "(PyTorch 2.5+) with a `score_mod` does");
  if (!p.no_fix.empty()) return refuse(p.no_fix);
  if (p.conditional)
    return refuse("a step of the pattern is assigned in a branch, so one rewrite cannot replace every path");
  if (p.masks > 1) return refuse("the scores are masked more than once, and SDPA takes one `attn_mask`");
  if (p.dropouts > 1) return refuse("dropout is applied more than once");
  if (p.scale_after_additive)
    return refuse("the scale also multiplies the added mask or bias, while SDPA scales Q·Kᵀ before adding `attn_mask`");
  std::string_view source = ctx.source();
  // In a method, `F.dropout(x, p)` (`training` defaults to True) drops in evaluation too: that
  // is almost always an oversight, and `dropout_p=p` would carry it into the new call.
  if (!ts_node_is_null(p.dropout_without_training)) {
    TSNode function = attention::enclosingFunctionOrModule(p.dropout_without_training);
    TSNode params = isKind(function, kind::function_definition) ? fieldOf(function, "parameters") : TSNode{};
    TSNode first = ts_node_is_null(params) ? TSNode{} : ts_node_named_child(params, 0);
    if (!ts_node_is_null(first) && isKind(first, kind::identifier) && m.text(first) == "self")
      return refuse("`F.dropout` without `training=` also drops in evaluation mode; pass "
                    "`training=self.training` first (the rewrite then follows it)");
  }

  // The ranks SDPA's operands visibly have.
  {
    int rq = m.visibleRank(p.q), rk = m.visibleRank(p.k), rv = m.visibleRank(p.v);
    int ranks[] = {rq, rk, rv};
    int known = 0;
    bool differ = false;
    for (int r : ranks) {
      if (r == 0) continue;
      if (known != 0 && r != known) differ = true;
      known = r;
    }
    if (differ)
      return refuse("q, k and v visibly have different ranks (" + (rq ? std::to_string(rq) : std::string("?")) + ", " +
                    (rk ? std::to_string(rk) : std::string("?")) + ", " + (rv ? std::to_string(rv) : std::string("?")) +
                    "), which the rewrite would have to reconcile by hand");
    // Every fused kernel takes 4-D (batch, heads, length, head dim) operands; with any other
    // rank SDPA runs its math path, no faster than the code as written
    // (`ATen/native/transformers/sdp_utils_cpp.h`, `check_tensor_shapes`).
    int rank = known != 0 ? known : p.rank;
    if (rank != 4)
      return refuse(rank == 0 ? std::string("q, k and v are not provably 4-D (batch, heads, length, head dim); every fused "
                                            "SDPA kernel needs 4-D operands, and with others SDPA runs its math path")
                              : "q, k and v are " + std::to_string(rank) +
                                    "-D; every fused SDPA kernel needs 4-D (batch, heads, length, head dim) operands, "
                                    "and with others SDPA runs its math path");
  }

  // scale=, or the scale folded into the query.
  std::string scale_arg;
  std::string fold;  // " * factor" / " / factor" applied to the query
  if (p.scales == 0) {
    scale_arg = "1.0";
  } else if (!scale.provably_default) {
    TSNode factor = unparenthesize(p.scale_factor);
    std::string text(m.text(factor));
    std::string operand = isAtomic(factor) ? text : "(" + text + ")";
    if (m.provablyNumber(factor, flow)) {
      if (releases::existsAt("torch.nn.functional.scaled_dot_product_attention(scale=)", ctx.settings().torch_version)) {
        if (p.scale_divides)
          scale_arg = "1 / " + operand;
        else
          scale_arg = argumentText(factor, source);
      } else if (!scale.conventional) {
        return refuse("the scale is not SDPA's default `1/sqrt(E)`, and `scale=` needs PyTorch 2.1 (torch-version starts at " + ctx.torchFloorText() + ")");
      }
    } else if (m.foldable(factor, flow)) {
      if (!releases::existsAt("torch.nn.functional.scaled_dot_product_attention(scale=)", ctx.settings().torch_version))
        return refuse("the scale `" + text + "` is a tensor: it would be folded into the query with `scale=1.0`, "
                      "which needs PyTorch 2.1 (torch-version starts at " + ctx.torchFloorText() + ")");
      fold = (p.scale_divides ? " / " : " * ") + operand;
      scale_arg = "1.0";
    } else {
      return refuse("the scale `" + text + "` is not provably a Python number (SDPA's `scale=` takes a float), "
                    "and folding it into the query is not provably exact");
    }
  }

  if (!scale_arg.empty() && !releases::existsAt("torch.nn.functional.scaled_dot_product_attention(scale=)", ctx.settings().torch_version))
    return refuse("the scores are not scaled, and SDPA's `scale=1.0` needs PyTorch 2.1 (torch-version starts at " + ctx.torchFloorText() + ")");

  // The statement holding ·V stays; every followed assignment goes.
  TSNode final_statement = attention::enclosingStatement(p.final_node);
  if (ts_node_is_null(final_statement)) return refuse("the ·V product is not inside a plain statement");
  TSNode block = ts_node_parent(final_statement);
  std::vector<const Definition*> consumed = p.consumed;
  std::sort(consumed.begin(), consumed.end());
  consumed.erase(std::unique(consumed.begin(), consumed.end()), consumed.end());
  std::vector<TSNode> statements;
  for (const Definition* def : consumed) {
    if (!isKind(def->statement, kind::expression_statement) || ts_node_named_child_count(def->statement) != 1 ||
        !analysis::sameNode(ts_node_parent(def->statement), block) || endOf(def->statement) > startOf(final_statement))
      return refuse("`" + std::string(def->name) + "` is assigned in a statement the rewrite cannot remove on its own");
    bool seen = false;
    for (TSNode s : statements) seen = seen || analysis::sameNode(s, def->statement);
    if (!seen) statements.push_back(def->statement);
  }
  auto insideRemoved = [&](TSNode node) {
    if (analysis::contains(p.final_node, node)) return true;
    for (TSNode s : statements)
      if (analysis::contains(s, node)) return true;
    return false;
  };
  // Nothing else may read a value the fix removes (`return out, attn`).
  for (const Definition* def : consumed) {
    for (TSNode use : flow.uses()) {
      if (m.text(use) != def->name || startOf(use) < startOf(def->node)) continue;
      if (flow.reaching(def->name, startOf(use)) != def) continue;
      if (!insideRemoved(use))
        return refuse("`" + std::string(def->name) +
                      "` is also read outside the pattern (SDPA returns neither the scores nor the attention weights)");
    }
  }
  // What moves into the call must mean the same at the ·V product.
  std::vector<TSNode> moved{p.q, p.k, p.v};
  if (p.mask == MaskKind::Boolean || p.mask == MaskKind::Additive) moved.push_back(p.mask_node);
  if (!scale_arg.empty() && p.scales > 0) moved.push_back(p.scale_factor);
  if (!ts_node_is_null(p.dropout_p_node)) moved.push_back(p.dropout_p_node);
  for (TSNode expr : moved) {
    if (ts_node_is_null(expr)) continue;
    for (TSNode id : identifiersIn(expr)) {
      std::string_view name = m.text(id);
      const Definition* def = flow.reaching(name, startOf(id));
      // (The statement holding ·V may assign its result to the same name: that happens after.)
      if (flow.definedBetween(name, startOf(id), startOf(final_statement)) ||
          (def != nullptr && std::find(consumed.begin(), consumed.end(), def) != consumed.end()))
        return refuse("`" + std::string(name) + "` changes between the scores and the ·V product");
    }
  }

  // The function's spelling: `F`, `nn.functional`, or the torch module.
  bool needs_import = false;
  std::string function;
  if (auto f = ctx.model().visibleNameFor("torch.nn.functional", p.final_node)) {
    function = *f + ".scaled_dot_product_attention";
  } else if (auto nn = ctx.model().visibleNameFor("torch.nn", p.final_node)) {
    function = *nn + ".functional.scaled_dot_product_attention";
  } else {
    std::string torch = torchModuleName(ctx.model(), p.final_node, needs_import);
    if (torch.empty()) return refuse("no name for `torch` is visible here");
    function = torch + ".nn.functional.scaled_dot_product_attention";
  }

  std::string query = p.q_transposed ? transposedText(p.q, source) : std::string(m.text(p.q));
  if (!fold.empty()) query = (p.q_transposed || isAtomic(unparenthesize(p.q)) ? query : "(" + query + ")") + fold;
  std::string key = p.k_transposed ? transposedText(p.k, source) : std::string(m.text(p.k));
  std::string value = p.v_transposed ? transposedText(p.v, source) : argumentText(p.v, source);
  std::string call = function + "(" + query + ", " + key + ", " + value;
  if (p.mask == MaskKind::Boolean) {
    call += ", attn_mask=" + p.attn_mask;
  } else if (p.mask == MaskKind::Additive) {
    // The scores took the mask's dtype by promotion; SDPA wants it in the query's (the
    // memory-efficient kernel raises on an fp32 mask with bf16 queries).
    bool atomic = !ts_node_is_null(p.mask_node) && isAtomic(unparenthesize(p.mask_node)) &&
                  p.attn_mask == m.text(unparenthesize(p.mask_node));
    std::string q_text(m.text(p.q));
    call += ", attn_mask=" + (atomic ? p.attn_mask : "(" + p.attn_mask + ")") + ".to(" +
            (isAtomic(unparenthesize(p.q)) ? q_text : "(" + q_text + ")") + ".dtype)";
  }
  if (!p.dropout_p.empty()) call += ", dropout_p=" + p.dropout_p;
  if (p.mask == MaskKind::Causal) call += ", is_causal=True";
  if (!scale_arg.empty()) call += ", scale=" + scale_arg;
  call += ")";
  if (p.out_transposed) call += ".transpose(-2, -1)";

  quickfix::Fix fix;
  fix.applicability = quickfix::Applicability::Unsafe;
  // The title names the release the rewrite needs (SDPA 2.0, `scale=` 2.1), which the range's
  // oldest release has (checked above).
  fix.message = "Replace with `" + function + "(...)` (" +
                (scale_arg.empty() ? "PyTorch " + releases::addedIn("torch.nn.functional.scaled_dot_product_attention") + "+"
                                   : "`scale=`: PyTorch " +
                                         releases::addedIn("torch.nn.functional.scaled_dot_product_attention(scale=)") + "+") +
                "; judged for `torch-version` " + versions::rangeText(ctx.settings()) + ")";
  for (TSNode s : statements) {
    auto edit = deleteLines(s, ctx.file());
    if (!edit) return refuse("an intermediate step shares its line with other code");
    fix.edits.push_back(*edit);
  }
  fix.edits.push_back({startOf(p.final_node), endOf(p.final_node), call});
  if (needs_import) {
    auto edit = quickfix::addImport(ctx.model(), "import torch");
    if (!edit) return refuse("`torch` is imported only inside a block here, so no import is added at module level");
    for (const auto& e : fix.edits)
      if (e.start <= edit->start && edit->start < e.end) return refuse("`import torch` cannot be inserted here");
    fix.edits.push_back(*edit);
  }
  fix.sortEdits();
  return fix;
}

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
  // is kept with the file: built once, for mayReportIn, and read again by check.
  static const attention::AttentionIndex& index(const analysis::ParsedFile& file) {
    static const char kIndexKey = 0;
    return file.treeAnalysis<attention::AttentionIndex>(&kIndexKey, [&] {
      return std::make_shared<const attention::AttentionIndex>(file.root(), file.text(), analysis::codeOrText(file));
    });
  }

 public:
  const RuleMeta& meta() const override { return kHandRolledAttention; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::binary_operator, kind::call}; }
  std::vector<std::string_view> triggers() const override { return {"softmax", "Softmax"}; }
  // Before parsing: the code (strings and comments blanked) must name a softmax and may hold a
  // product. Most files that mention a softmax do so in docstrings and op tables.
  bool mayMatchSource(const analysis::PrefilterText& source, const Settings&) const override {
    const std::string* code = source.code();
    return code == nullptr || attention::codeMayHoldCandidates(*code);
  }
  bool mayMatchText(std::string_view text, const Settings& settings) const override {
    return mayMatchSource(analysis::PrefilterText(text), settings);
  }

  bool mayReportIn(const analysis::ParsedFile& file, const Settings& settings) const override {
    // The replacement must exist at the range's oldest release.
    if (!releases::existsAt("torch.nn.functional.scaled_dot_product_attention", settings.torch_version)) return false;
    return index(file).hasCandidates();
  }

  void check(TSNode node, Context& ctx) const override {
    const attention::AttentionIndex& index = this->index(ctx.file());
    const attention::AttentionIndex::Owner* owner = index.ownerOf(node);
    if (owner == nullptr || !owner->softmax || owner->sdpa) return;
    // As mayReportIn: the replacement must exist at the range's oldest release.
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
    if (!fix && !why.empty() && (p.score_mod.empty() || p.opaque_mod)) message += "; no automatic fix: " + why;
    else if (!fix && !why.empty()) message += "; no automatic fix (SDPA cannot express it)";
    Diagnostic& d = ctx.report(start, endOf(node), message);
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
