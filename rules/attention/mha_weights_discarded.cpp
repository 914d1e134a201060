// PTL606 mha-weights-discarded: an `nn.MultiheadAttention` called with `need_weights` left True
// while the caller throws the weights away.
#include <string>

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kMhaWeightsDiscarded{
    .code = "PTL606",
    .name = "mha-weights-discarded",
    .summary = "`nn.MultiheadAttention` computes attention weights that the caller discards",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports calls of an `nn.MultiheadAttention` module (bound to `self.<attr>` once by the class, or
to a name once in the function) whose attention weights are thrown away — `attn(q, k, v)[0]`,
`out, _ = attn(q, k, v)`, or `out, weights = attn(q, k, v)` with `weights` never read in the
function — while `need_weights` is absent or `True` (keyword or fifth positional argument).
Checked for PyTorch 2.0 and later (`torch-version`).

## Why is this bad?
`need_weights` defaults to `True`. With it, `torch.nn.functional.multi_head_attention_forward`
takes the unfused path: it materialises the `(L, S)` attention matrix of every head with
`bmm` and `softmax`, applies dropout to it, and averages it over heads to return it. With
`need_weights=False` it calls `scaled_dot_product_attention`, whose fused kernels
(FlashAttention, memory-efficient) never store that matrix (`torch/nn/functional.py`, PyTorch 2.6
and 2.14). The module's documentation (`torch/nn/modules/activation.py`): "Set
`need_weights=False` to use the optimized `scaled_dot_product_attention` and achieve the best
performance for MHA." Weights that are computed only to be discarded cost memory quadratic in
the sequence length and time.

## Example
```python
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x)[0]
```

## Use instead
```python
    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]
```

## Fix safety
The fix adds `need_weights=False` (or replaces `need_weights=True`). It is safe: the output is
the same attention (up to floating-point rounding of the fused kernel) and the second element
of the result, which the caller discards, becomes `None`.

## Releases
`torch/nn/modules/activation.py`: `MultiheadAttention(..., need_weights=True)` and its fast path
in 1.13, 2.6 and 2.14; the SDPA path it can take is 2.0's, so the rule reports from 2.0.

## References
- [`torch.nn.MultiheadAttention`](https://docs.pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html)
- [`torch/nn/functional.py` (2.6), `multi_head_attention_forward`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/nn/functional.py)
)md"};

bool isMhaConstruction(const analysis::SemanticModel& model, TSNode value) {
  value = analysis::unparenthesize(value);
  if (!isKind(value, kind::call)) return false;
  auto callee = model.calleeName(value);
  return callee && (*callee == "torch.nn.MultiheadAttention" || *callee == "torch.nn.modules.activation.MultiheadAttention" ||
                    *callee == "torch.nn.modules.MultiheadAttention");
}

// True when the module called is an `nn.MultiheadAttention`, as far as the file shows.
bool callsMha(const analysis::SemanticModel& model, TSNode call) {
  TSNode callee = fieldOf(call, "function");
  if (isKind(callee, kind::attribute)) {
    TSNode object = fieldOf(callee, "object");
    if (!isKind(object, kind::identifier)) return false;
    TSNode bound = selfAttributeValue(model, callee);
    return !ts_node_is_null(bound) && isMhaConstruction(model, bound);
  }
  if (isKind(callee, kind::identifier)) {
    TSNode bound = analysis::singleAssignedValue(model, callee);
    return !ts_node_is_null(bound) && isMhaConstruction(model, bound);
  }
  return false;
}

// True when the identifier `name` is read anywhere in `scope` other than at `except`.
bool readElsewhere(TSNode scope, TSNode except, std::string_view name, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      scope,
      [&](TSNode n) {
        if (found) return false;
        if (isKind(n, kind::identifier) && !analysis::sameNode(n, except) && analysis::textOf(n, source) == name)
          found = true;
        return !found;
      },
      [](TSNode) {});
  return found;
}

// The reason the weights are discarded, or empty when they may be used.
std::string_view discardedHow(TSNode call, std::string_view source) {
  TSNode parent = ts_node_parent(call);
  while (isKind(parent, kind::parenthesized_expression)) parent = ts_node_parent(parent);
  if (isKind(parent, kind::subscript) && analysis::contains(fieldOf(parent, "value"), call)) {
    TSNode index = fieldOf(parent, "subscript");
    if (analysis::textOf(index, source) == "0" && ts_node_named_child_count(parent) == 2) return "`[0]`";
    return {};
  }
  if (!isKind(parent, kind::assignment) || !analysis::contains(fieldOf(parent, "right"), call)) return {};
  TSNode left = fieldOf(parent, "left");
  if (!isKind(left, kind::pattern_list) && !isKind(left, kind::tuple_pattern) && !isKind(left, kind::list_pattern)) return {};
  if (ts_node_named_child_count(left) != 2) return {};
  TSNode weights = ts_node_named_child(left, 1);
  if (!isKind(weights, kind::identifier)) return {};
  std::string_view name = analysis::textOf(weights, source);
  if (name == "_" || name.starts_with("_")) return "`_`";
  TSNode scope = enclosingFunctionOrModule(call);
  if (isKind(scope, kind::module)) return {};
  if (readElsewhere(scope, weights, name, source)) return {};
  return "a name never read";
}

class MhaWeightsDiscarded final : public Rule {
 public:
  const RuleMeta& meta() const override { return kMhaWeightsDiscarded; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // The module is built in this file: `MultiheadAttention(` (what `callsMha` follows).
  Prefilter prefilter() const override {
    return {.words = {"MultiheadAttention"},
            .whole_words = true,
            .floor_at_least = TorchVersion{2, 0},
            .code_calls = {{{"MultiheadAttention"}}},
            .tree_names = {{"MultiheadAttention"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    if (!ctx.torchAtLeast(2, 0)) return;
    std::string_view source = ctx.source();
    TSNode callee = fieldOf(call, "function");
    if (!isKind(callee, kind::attribute) && !isKind(callee, kind::identifier)) return;
    if (hasDoubleStarArguments(call) || hasStarArguments(call)) return;
    TSNode need = keywordArgumentNode(call, "need_weights", source);
    auto positional = positionalArguments(call);
    if (ts_node_is_null(need) && positional.size() >= 5) return;  // given positionally
    if (!ts_node_is_null(need) && !isTrueLiteral(fieldOf(need, "value"))) return;
    std::string_view how = discardedHow(call, source);
    if (how.empty()) return;
    const auto& model = ctx.model();
    if (!callsMha(model, call)) return;

    Diagnostic& d = ctx.report(
        call, fmt::format("Attention weights discarded ({}) but computed; pass `need_weights=False`{}",
                          how, versions::judgedFor(ctx.settings())));
    quickfix::Edit edit = ts_node_is_null(need)
                              ? appendArgument(call, "need_weights=False", source)
                              : quickfix::Edit{analysis::startOf(need), analysis::endOf(need), "need_weights=False"};
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Pass `need_weights=False`", {std::move(edit)}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL606, MhaWeightsDiscarded)

}  // namespace ptlint::rules
