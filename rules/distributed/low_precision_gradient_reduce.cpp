// PTL203 low-precision-gradient-reduce: FSDP mixed precision that reduces gradients in bf16/fp16.
#include "analysis/syntax.h"
#include "analysis/value_flow.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/amp/autocast_dtype.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kLowPrecisionGradientReduce{
    .code = "PTL203",
    .name = "low-precision-gradient-reduce",
    .summary = "FSDP mixed precision with `reduce_dtype` bfloat16 or float16",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.12",
    .docs = R"md(
## What it does
Reports FSDP2's `MixedPrecisionPolicy(reduce_dtype=...)` (`torch.distributed.fsdp`, or
`torch.distributed._composable.fsdp` before 2.6) and FSDP1's `MixedPrecision(reduce_dtype=...)`
(`torch.distributed.fsdp`), through any import or alias, when `reduce_dtype` — the keyword or
the second positional argument — resolves to `torch.bfloat16` or `torch.float16` (literal,
alias, a name whose values all are), and when `reduce_dtype` is omitted or `None` while
`param_dtype` is one of them: both APIs then reduce in `param_dtype`. A dtype the analysis
cannot resolve is not reported, nor a policy that is only an expected value in a test (an operand
of `==`, or bound to a name that only comparisons and `assert`s read).

## Why is this bad?
`reduce_dtype` is the precision in which FSDP reduce-scatters (or all-reduces) the gradients
across ranks: FSDP1's documentation, "`reduce_dtype` controls the precision under which gradient
reduction would occur", and FSDP2's `MixedPrecisionPolicy`, which exists so that "gradient
reduction [can run] in full precision while using low precision for compute". A sum over many
ranks in bfloat16 (8 bits of mantissa) or float16 (5 bits of exponent) loses the small
contributions and can overflow: the averaged gradient is noticeably less accurate than the
per-rank gradients it came from, which shows up as worse convergence at scale. Reducing in
float32 costs twice the communication volume for the gradients, and keeps them accurate.

## Example
```python
import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
fully_shard(model, mp_policy=policy)
```

## Use instead
```python
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
```

## Fix safety
The fix replaces the dtype with `torch.float32` (adding `import torch` when needed). It is
unsafe: gradient communication doubles in volume, which is a real cost on slow interconnects;
a low-precision reduction may be a deliberate trade-off.

## Releases
FSDP's `MixedPrecision(reduce_dtype=)` in 1.13
(`torch/distributed/fsdp/fully_sharded_data_parallel.py`), 2.6 and 2.14
(`torch/distributed/fsdp/api.py`): the premise holds 1.13–2.14.

## References
- [FSDP2 `fully_shard` and `MixedPrecisionPolicy`](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)
- [FSDP1 `MixedPrecision`](https://pytorch.org/docs/stable/fsdp.html#torch.distributed.fsdp.MixedPrecision)
  (`torch/distributed/fsdp/api.py`, 2.6 and 2.14: "If this is `None` but `param_dtype` is not
  `None`, then this takes on the `param_dtype` value, still running gradient reduction in low
  precision"; 1.13's `fully_sharded_data_parallel.py` says the same)
- FSDP2 `MixedPrecisionPolicy` (`torch/distributed/fsdp/_fully_shard/_fsdp_api.py`, 2.6 and
  2.14: "If this is `None` but `param_dtype` is not `None`, then the reduction uses the compute
  dtype")
)md"};

bool isMixedPrecisionClass(std::string_view name) {
  return name == "torch.distributed.fsdp.MixedPrecisionPolicy" ||
         name == "torch.distributed._composable.fsdp.MixedPrecisionPolicy" ||
         name == "torch.distributed.fsdp._fully_shard.MixedPrecisionPolicy" ||
         name == "torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy" ||
         name == "torch.distributed._composable.fsdp._fsdp_api.MixedPrecisionPolicy" ||
         name == "torch.distributed.fsdp.MixedPrecision" || name == "torch.distributed.fsdp.api.MixedPrecision" ||
         name == "torch.distributed.fsdp.fully_sharded_data_parallel.MixedPrecision";
}

// "bfloat16" / "float16" when the dtype is one; "bfloat16 or float16" when every value it may
// hold is one of them; empty otherwise.
std::string_view lowPrecisionName(const analysis::SemanticModel& model, TSNode dtype) {
  amp::DtypeKind kind = amp::resolveDtype(model, dtype);
  if (kind == amp::DtypeKind::BFloat16) return "bfloat16";
  if (kind == amp::DtypeKind::Float16) return "float16";
  if (kind != amp::DtypeKind::Unknown || ts_node_is_null(dtype)) return {};
  auto values = analysis::valuesOf(model, dtype);
  bool low = values.all([&](const analysis::FlowValue& v) {
    if (v.kind != analysis::FlowValue::Kind::Expression) return false;
    amp::DtypeKind one = amp::resolveDtype(v.in(model), v.node);
    return one == amp::DtypeKind::BFloat16 || one == amp::DtypeKind::Float16;
  });
  return low ? "bfloat16 or float16" : "";
}

// Is `node` an operand of a comparison or inside an `assert` (within its statement)?
bool inAssertOrComparison(TSNode node) {
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    analysis::NodeKind kind = analysis::kindOf(cur);
    if (kind == kind::assert_statement || kind == kind::comparison_operator) return true;
    if (kind == kind::expression_statement || kind == kind::block || kind == kind::module ||
        kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda)
      return false;
  }
  return false;
}

// A policy that is only an expected value (`assert plugin.policy == MixedPrecision(...)`, or bound
// to a name read only by comparisons and asserts): nothing is sharded with it.
bool onlyCompared(const analysis::SemanticModel& model, TSNode call) {
  if (inAssertOrComparison(call)) return true;
  TSNode parent = ts_node_parent(call);
  if (!isKind(parent, kind::assignment) || !analysis::sameNode(fieldOf(parent, "right"), call)) return false;
  TSNode target = fieldOf(parent, "left");
  if (!isKind(target, kind::identifier)) return false;
  std::string_view name = model.text(target);
  const analysis::Binding* binding = model.resolve(name, target);
  if (binding == nullptr || binding->scope == nullptr) return false;
  bool read = false, other_use = false;
  analysis::walkTree(
      binding->scope->node,
      [&](TSNode node) {
        if (other_use) return false;
        if (!isKind(node, kind::identifier) || model.text(node) != name || analysis::sameNode(node, target)) return true;
        if (model.resolve(name, node) != binding) return true;
        read = true;
        if (!inAssertOrComparison(node)) other_use = true;
        return !other_use;
      },
      [](TSNode) {});
  return read && !other_use;
}

class LowPrecisionGradientReduce final : public Rule {
 public:
  const RuleMeta& meta() const override { return kLowPrecisionGradientReduce; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"MixedPrecision"}, .tree_names = {{"MixedPrecision", "MixedPrecisionPolicy"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    auto callee = model.calleeName(call);
    if (!callee || !isMixedPrecisionClass(*callee)) return;
    TSNode value = keywordArgument(call, "reduce_dtype", ctx.source());
    auto positional = positionalArguments(call);
    if (ts_node_is_null(value) && positional.size() >= 2 && !hasStarArguments(call)) value = positional[1];
    // No `reduce_dtype` (or `None`): gradients are reduced in `param_dtype`.
    TSNode param{};
    if (ts_node_is_null(value) || analysis::isKind(analysis::resolveValue(model, value), kind::none)) {
      if (hasStarArguments(call) || hasDoubleStarArguments(call)) return;
      param = keywordArgument(call, "param_dtype", ctx.source());
      if (ts_node_is_null(param) && !positional.empty()) param = positional[0];
      if (ts_node_is_null(param)) return;
    }
    std::string_view dtype = lowPrecisionName(model, ts_node_is_null(param) ? value : param);
    if (dtype.empty() || onlyCompared(model, call)) return;
    std::string_view why = ts_node_is_null(param) ? "" : " (from `param_dtype`)";
    Diagnostic& d = ctx.report(
        call, fmt::format("Gradients reduced across ranks in {}{}; use `reduce_dtype=torch.float32`", dtype, why));
    bool needs_import = false;
    std::string torch_name = torchModuleName(model, call, needs_import);
    if (torch_name.empty()) return;
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = ts_node_is_null(value) ? "Add `reduce_dtype=torch.float32`" : "Set `reduce_dtype` to `torch.float32`";
    if (needs_import) {
      auto edit = quickfix::addImport(ctx.model(), "import torch");
      if (!edit) return;
      fix.edits.push_back(std::move(*edit));
    }
    if (ts_node_is_null(value)) fix.edits.push_back(appendArgument(call, "reduce_dtype=" + torch_name + ".float32", ctx.source()));
    else fix.edits.push_back({analysis::startOf(value), analysis::endOf(value), torch_name + ".float32"});
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL203, LowPrecisionGradientReduce)

}  // namespace ptlint::rules
