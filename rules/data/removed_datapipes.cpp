// PTL105 removed-datapipes: torchdata's DataPipes and DataLoader2, removed from torchdata.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/deprecated/module_uses.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kRemovedDatapipes{
    .code = "PTL105",
    .name = "removed-datapipes",
    .summary = "torchdata's DataPipes and DataLoader2 were removed from torchdata",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "",
    .docs = R"md(
## What it does
Reports imports of `torchdata.datapipes` and `torchdata.dataloader2` (and of anything in them,
e.g. `DataLoader2`, `MultiProcessingReadingService`, `IterableWrapper`), and calls that resolve
into them. `torch.utils.data`'s own `IterDataPipe` / `MapDataPipe` are not reported: PyTorch
still ships them.

## Why is this bad?
The torchdata maintainers stopped developing DataPipes and DataLoader2: torchdata 0.8 (July
2024) deprecated them, 0.9 was the last release that contains them, and they are removed from
0.10 on. Code that imports them fails with `ModuleNotFoundError` on a current torchdata. The
maintained path is `torch.utils.data.DataLoader`, or torchdata's `StatefulDataLoader` (a
drop-in `DataLoader` that can save and restore its position) where checkpointing the data
pipeline was the reason for DataLoader2.

## Example
```python
from torchdata.datapipes.iter import IterableWrapper
from torchdata.dataloader2 import DataLoader2, MultiProcessingReadingService

pipe = IterableWrapper(files).shuffle().map(load)
loader = DataLoader2(pipe, reading_service=MultiProcessingReadingService(num_workers=4))
```

## Use instead
```python
from torchdata.stateful_dataloader import StatefulDataLoader

loader = StatefulDataLoader(FileDataset(files), shuffle=True, num_workers=4)
```

## Fix safety
There is no fix: a DataPipe graph has to be rewritten as a `Dataset`.

## Releases
A premise about torchdata, not PyTorch: independent of the `torch-version` range.

## References
- [torchdata: removing DataPipes and DataLoader V2 (README update, pytorch/data#1263)](https://github.com/pytorch/data/pull/1263)
- [Future of torchdata and dataloading (pytorch/data#1196)](https://github.com/pytorch/data/issues/1196)
- [StatefulDataLoader](https://pytorch.org/data/beta/torchdata.stateful_dataloader.html)
)md"};

bool isRemovedDatapipes(std::string_view q) {
  for (std::string_view module : {std::string_view("torchdata.datapipes"), std::string_view("torchdata.dataloader2")})
    if (q == module || (q.starts_with(module) && q[module.size()] == '.')) return true;
  return false;
}

class RemovedDatapipes final : public Rule {
 public:
  const RuleMeta& meta() const override { return kRemovedDatapipes; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::import_statement, kind::import_from_statement, kind::call}; }
  // Every finding resolves a name through an import of `torchdata`, in code (not a docstring).
  Prefilter prefilter() const override { return {.words = {"torchdata"}, .whole_words = true, .words_in_code = true}; }

  void check(TSNode node, Context& ctx) const override {
    retired::checkNode(node, ctx, isRemovedDatapipes, [](const std::string& name) {
      return "`" + name + "` (removed from torchdata); use `torch.utils.data.DataLoader`";
    });
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL105, RemovedDatapipes)

}  // namespace ptlint::rules
