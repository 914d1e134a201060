// PTL302 fsdp1-in-new-code: FSDP1's `FullyShardedDataParallel(...)` where FSDP2 is available.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kFsdp1InNewCode{
    .code = "PTL302",
    .name = "fsdp1-in-new-code",
    .summary = "FSDP1 `FullyShardedDataParallel` where FSDP2 `fully_shard` is recommended",
    .fix = FixAvailability::None,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "2.6",
    .docs = R"md(
## What it does
Reports calls of `torch.distributed.fsdp.FullyShardedDataParallel(...)` (any import path or
alias, e.g. `from torch.distributed.fsdp import FullyShardedDataParallel as FSDP`) when the
configured `torch-version` is 2.6 or later. Off by default: existing FSDP1 code keeps working.

## Why is this bad?
From PyTorch 2.6, FSDP2 is public as `torch.distributed.fsdp.fully_shard`, and PyTorch's
documentation for it says: "If you are new to FSDP, we recommend that you start with FSDP2 due
to improved usability." FSDP2 shards each parameter as a `DTensor` on dim 0 instead of
flattening groups of parameters into one `FlatParameter`, which gives per-parameter dtypes and
`requires_grad`, communication-free sharded state dicts, and deterministic memory use without
`record_stream`. New code written against FSDP1 has to be migrated later.

## Example
```python
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

model = FSDP(model, use_orig_params=True)
```

## Use instead
```python
from torch.distributed.fsdp import fully_shard

for block in model.layers:
    fully_shard(block)
fully_shard(model)
```

## Fix safety
There is no fix: FSDP2 is applied per submodule and changes how the optimizer and checkpoints
see the parameters.

## Releases
FSDP2 (`fully_shard` exported by `torch/distributed/fsdp/__init__.py`) exists in 2.6 and 2.14, not
in 1.13: reported where the range starts at 2.6 or later.

## References
- [`torch.distributed.fsdp.fully_shard` (FSDP2)](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)
- [FSDP1 to FSDP2 migration guide](https://docs.pytorch.org/tutorials/intermediate/FSDP_tutorial.html#fsdp1-to-fsdp2-migration-guide)
)md"};

class Fsdp1InNewCode final : public Rule {
 public:
  const RuleMeta& meta() const override { return kFsdp1InNewCode; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"FullyShardedDataParallel"}}; }

  void check(TSNode call, Context& ctx) const override {
    if (!ctx.torchAtLeast(2, 6)) return;
    auto callee = ctx.model().calleeName(call);
    if (!callee || (*callee != "torch.distributed.fsdp.FullyShardedDataParallel" &&
                    *callee != "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"))
      return;
    ctx.report(call, "FSDP1 `FullyShardedDataParallel` is superseded; use FSDP2's `fully_shard`" +
                         versions::judgedFor(ctx.settings()));
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL302, Fsdp1InNewCode)

}  // namespace ptlint::rules
