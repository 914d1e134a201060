// PTL301 ddp-find-unused-parameters: torch's DistributedDataParallel with
// `find_unused_parameters=True`.
#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/all_rules.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kDdpFindUnusedParameters{
    .code = "PTL301",
    .name = "ddp-find-unused-parameters",
    .summary = "DistributedDataParallel with find_unused_parameters=True",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.11",
    .docs = R"md(
## What it does
Reports `torch.nn.parallel.DistributedDataParallel(..., find_unused_parameters=True)`, through
any import path or alias (`from torch.nn.parallel import DistributedDataParallel as DDP`,
`torch.nn.parallel.distributed.DistributedDataParallel`), including a `True` held by a name
bound once. Look-alikes are not reported: accelerate's `DistributedDataParallelKwargs`,
Lightning's `DDPStrategy` and its own classes, `dict(find_unused_parameters=True)`, a function
that happens to be called `find_unused_parameters`. A call that already passes
`static_graph=True` is not reported either (DDP then ignores the flag).

## Why is this bad?
With `find_unused_parameters=True`, DDP walks the autograd graph from the outputs after every
forward pass to mark the parameters that will get no gradient, so that their buckets can be
reduced without waiting for them. That traversal is paid on every iteration, for every model,
whether or not any parameter is actually unused. DDP's documentation of the flag describes it:
"Traverse the autograd graph from all tensors contained in the return value of the wrapped
module's `forward` function". When the set of
unused parameters is the same in every iteration, `static_graph=True` lets DDP record it in the
first iteration and reuse it. The `static_graph` constructor argument exists since PyTorch 1.11.

## Example
```python
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[rank], find_unused_parameters=True)
```

## Use instead
```python
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[rank], static_graph=True)
```
If no parameter is ever unused, simply drop the flag.

## Fix safety
The fix replaces `find_unused_parameters=True` with `static_graph=True`. It is unsafe: a static
graph requires the set of used parameters (and the graph's structure) to be the same in every
iteration; a model that takes data-dependent branches, or that is used for several forward
passes per backward in changing ways, needs `find_unused_parameters=True` and fails with
`static_graph=True`. No fix is offered when the call already has a `static_graph=` argument,
passes `**kwargs`, or passes the flag positionally.

## References
- [`torch/nn/parallel/distributed.py`](https://github.com/pytorch/pytorch/blob/main/torch/nn/parallel/distributed.py)
  (`find_unused_parameters`, `static_graph` and `_set_static_graph`).
- [DistributedDataParallel (see `find_unused_parameters` and `static_graph`)](https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)
- [Distributed Data Parallel design notes](https://pytorch.org/docs/stable/notes/ddp.html)
)md"};

// `find_unused_parameters` is the eighth parameter of DistributedDataParallel.__init__.
constexpr size_t kFindUnusedSlot = 7;

bool isTrue(const analysis::SemanticModel& model, TSNode value) {
  return !ts_node_is_null(value) && isTrueLiteral(analysis::resolveValue(model, value));
}

class DdpFindUnusedParameters final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDdpFindUnusedParameters; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"find_unused_parameters"}; }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!model.refersTo(fieldOf(call, "function"), "torch.nn.parallel.DistributedDataParallel")) return;

    TSNode keyword = keywordArgumentNode(call, "find_unused_parameters", ctx.source());
    TSNode value = ts_node_is_null(keyword) ? TSNode{} : fieldOf(keyword, "value");
    if (ts_node_is_null(keyword)) {
      auto positional = positionalArguments(call);
      if (positional.size() > kFindUnusedSlot && !hasStarArguments(call)) value = positional[kFindUnusedSlot];
    }
    if (!isTrue(model, value)) return;

    // With `static_graph=True`, DDP records the unused set once; the flag no longer costs.
    TSNode static_graph = keywordArgument(call, "static_graph", ctx.source());
    if (isTrue(model, static_graph)) return;

    Diagnostic& d = ctx.report(call,
                               "`find_unused_parameters=True` makes DDP traverse the autograd graph after every "
                               "forward pass; if the set of unused parameters is stable, `static_graph=True` finds "
                               "it once");
    if (ts_node_is_null(keyword) || !ts_node_is_null(static_graph) || hasDoubleStarArguments(call) ||
        !ctx.torchAtLeast(1, 11))
      return;
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Replace with `static_graph=True`";
    fix.edits.push_back({analysis::startOf(keyword), analysis::endOf(keyword), "static_graph=True"});
    d.fix = std::move(fix);
  }
};

}  // namespace

const Rule& ddpFindUnusedParametersRule() {
  static const DdpFindUnusedParameters rule;
  return rule;
}

}  // namespace ptlint::rules
