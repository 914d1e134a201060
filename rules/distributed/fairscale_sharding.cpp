// PTL104 fairscale-sharding: FairScale's sharded training APIs, which PyTorch now provides itself.
#include <array>

#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/deprecated/module_uses.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kFairscaleSharding{
    .code = "PTL104",
    .name = "fairscale-sharding",
    .summary = "FairScale's OSS / ShardedDataParallel / ShardedGradScaler / FSDP; PyTorch has its own",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.6",
    .docs = R"md(
## What it does
Reports imports and calls of FairScale's sharded-training classes — `OSS`
(`fairscale.optim.oss`), `ShardedDataParallel`, `ShardedGradScaler` and FairScale's
`FullyShardedDataParallel` — through any import or alias. PyTorch's own
`torch.distributed.fsdp` and `ZeroRedundancyOptimizer` are not reported.

## Why is this bad?
FairScale's sharded-training classes predate PyTorch's own; PyTorch now ships the same
capabilities in the core library, released and tested with PyTorch itself:
`torch.distributed.fsdp.fully_shard` (FSDP2) shards parameters, gradients and optimizer state
(what `ShardedDataParallel` with `OSS`, and FairScale's FSDP, do), and
`torch.distributed.optim.ZeroRedundancyOptimizer` shards optimizer state alone. New code
on FairScale's versions adds a dependency for what PyTorch already provides.

## Example
```python
from fairscale.nn.data_parallel import ShardedDataParallel as ShardedDDP
from fairscale.optim.oss import OSS

optimizer = OSS(params=model.parameters(), optim=torch.optim.AdamW, lr=1e-4)
model = ShardedDDP(model, optimizer)
```

## Use instead
```python
from torch.distributed.fsdp import fully_shard

for block in model.blocks:
    fully_shard(block)
fully_shard(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
```

## Fix safety
There is no fix: moving to FSDP changes how the model is wrapped, checkpointed and how its
optimizer is built.

## Releases
FSDP2's `fully_shard` is exported by `torch/distributed/fsdp/__init__.py` in 2.6 and 2.14, not in
1.13: the rule reports from 2.6.

## References
- [torch.distributed.fsdp.fully_shard](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)
- [ZeroRedundancyOptimizer](https://pytorch.org/docs/stable/distributed.optim.html)
- [FairScale](https://github.com/facebookresearch/fairscale)
)md"};

bool isFairscaleSharding(std::string_view q) {
  if (!q.starts_with("fairscale.")) return false;
  std::string_view last = q.substr(q.rfind('.') + 1);
  return last == "OSS" || last == "ShardedDataParallel" || last == "ShardedGradScaler" ||
         last == "FullyShardedDataParallel";
}

class FairscaleSharding final : public Rule {
 public:
  const RuleMeta& meta() const override { return kFairscaleSharding; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::import_statement, kind::import_from_statement, kind::call}; }
  // Every finding resolves a name through an import of `fairscale`, in code (not a docstring).
  Prefilter prefilter() const override { return {.words = {"fairscale"}, .whole_words = true, .words_in_code = true}; }

  void check(TSNode node, Context& ctx) const override {
    retired::checkNode(node, ctx, isFairscaleSharding, [](const std::string& name) {
      return "FairScale's `" + name.substr(name.rfind('.') + 1) +
             "`; use `torch.distributed.fsdp.fully_shard` (FSDP2)";
    });
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL104, FairscaleSharding)

}  // namespace ptlint::rules
