// PTL405 synchronous-dataloader: a DataLoader that loads every batch in the main process.
#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/data/dataloader_args.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kSynchronousDataLoader{
    .code = "PTL405",
    .name = "synchronous-dataloader",
    .summary = "DataLoader without worker processes",
    .fix = FixAvailability::None,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.utils.data.DataLoader(...)` calls (any import path or alias) whose
`num_workers` is literally `0` or absent (its default), when no `*args`/`**kwargs` could pass
it. The same check as TorchFix's TOR401. Off by default: loading in the main process is right
for small in-memory datasets, tests and debugging.

A dataset already held as tensors is not reported: a `TensorDataset(...)` or a tensor built by a
`torch` factory (`torch.tensor`, `torch.arange`, `torch.randn`, `torch.stack`, ...), passed
directly or through a name bound once. Each batch is then a slice of memory, and worker
processes would only add the cost of sending it between processes.

## Why is this bad?
With `num_workers=0` "data will be loaded in the main process" (the `DataLoader`
documentation): every batch is read, decoded and collated by the training process itself, in
between the steps, while the accelerator waits. With workers, batches are prepared in parallel
processes ahead of time and the step only picks them up.

## Example
```python
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=64, shuffle=True)
```

## Use instead
```python
loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)
```

## Fix safety
There is no fix: the right number of workers depends on the machine, and a dataset must be
picklable to be used by workers.

## Releases
`torch/utils/data/dataloader.py`: `num_workers: int = 0` in 1.13, 2.6 and 2.14; the premise holds
1.13–2.14.

## References
- [`torch.utils.data.DataLoader` (`num_workers`)](https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)
- [Single- and multi-process data loading](https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading)
- [TorchFix TOR401](https://github.com/pytorch-labs/torchfix#tor401-detected-dataloader-running-with-synchronized-implementation)
)md"};

// A dataset already held as tensors in memory: `TensorDataset(x, y)` or a tensor built by a
// `torch` factory (`torch.tensor(...)`, `torch.arange(...)`), directly or through a name bound
// once. Indexing it is a slice of memory; worker processes would only add pickling and IPC.
bool isInMemoryTensorDataset(const analysis::SemanticModel& model, TSNode dataset) {
  if (ts_node_is_null(dataset)) return false;
  TSNode value = analysis::resolveValue(model, dataset);
  if (!analysis::isKind(value, kind::call)) return false;
  auto q = model.qualifiedName(analysis::fieldOf(value, "function"));
  if (!q) return false;
  std::string name = analysis::canonicalQualifiedName(*q);
  if (name == "torch.utils.data.TensorDataset" || name == "torch.utils.data.dataset.TensorDataset") return true;
  static constexpr std::string_view kFactories[] = {"torch.tensor", "torch.arange", "torch.randn",
                                                    "torch.rand", "torch.randint", "torch.zeros",
                                                    "torch.ones", "torch.stack", "torch.cat"};
  for (std::string_view f : kFactories)
    if (name == f) return true;
  return false;
}

class SynchronousDataLoader final : public Rule {
 public:
  const RuleMeta& meta() const override { return kSynchronousDataLoader; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"DataLoader"}}; }

  void check(TSNode call, Context& ctx) const override {
    if (!data::isDataLoaderCall(ctx.model(), call)) return;
    auto workers = data::numWorkers(ctx.model(), call);
    if (!workers || *workers != 0) return;
    if (isInMemoryTensorDataset(ctx.model(), data::dataLoaderArgument(call, "dataset", ctx.source()))) return;
    ctx.report(call, "DataLoader loads every batch in the main process; set `num_workers` > 0");
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL405, SynchronousDataLoader)

}  // namespace ptlint::rules
