// PTL403 dataloader-persistent-workers: a DataLoader with workers, iterated once per epoch,
// without `persistent_workers=True`.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/data/dataloader_args.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kDataLoaderPersistentWorkers{
    .code = "PTL403",
    .name = "dataloader-persistent-workers",
    .summary = "DataLoader with workers re-created every epoch",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "1.7",
    .docs = R"md(
## What it does
Reports a `torch.utils.data.DataLoader(...)` (any import or alias) with a literal
`num_workers` greater than 0 and no `persistent_workers=True`, bound to a name that a `for`
loop iterates inside another loop of the same function (the epoch loop). A loader whose worker
count or `persistent_workers` the analysis cannot resolve, or that passes `**kwargs`, is not
reported. Off by default.

## Why is this bad?
Without `persistent_workers`, each `for batch in loader:` starts `num_workers` new processes
and shuts them down when the epoch ends (`DataLoader.__iter__` creates a new
`_MultiProcessingDataLoaderIter` each time). Every epoch then pays the process start-up — with
the `spawn` start method, a fresh interpreter that re-imports torch and unpickles the dataset —
before the first batch arrives. With `persistent_workers=True` the "data loader will not shut
down the worker processes after a dataset has been consumed once" (the `DataLoader`
documentation), so later epochs start at full speed.

## Example
```python
loader = DataLoader(ds, batch_size=64, num_workers=8)
for epoch in range(epochs):
    for batch in loader:
        step(batch)
```

## Use instead
```python
loader = DataLoader(ds, batch_size=64, num_workers=8, persistent_workers=True)
```

## Fix safety
The fix adds `persistent_workers=True`. It is unsafe: the workers keep their memory between
epochs, and a dataset that changes between epochs in the main process (a curriculum, a resampled
index list) is no longer seen by workers that were started before the change.

## Releases
`torch/utils/data/dataloader.py`: `persistent_workers` in 1.13, 2.6 and 2.14 (1.7's); the premise
holds 1.13–2.14.

## References
- [`torch.utils.data.DataLoader` (`persistent_workers`)](https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)
- [`torch/utils/data/dataloader.py`: `DataLoader.__iter__`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/utils/data/dataloader.py)
)md"};

bool isLoop(TSNode node) { return isKind(node, kind::for_statement) || isKind(node, kind::while_statement); }

// True when `node` lies in the body of a loop within `scope` (not counting `node` itself).
bool insideLoop(TSNode node, TSNode scope) {
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent) && !analysis::sameNode(parent, scope);
       parent = ts_node_parent(parent)) {
    if (isCodeBoundary(parent)) return false;
    if (isLoop(parent)) return true;
  }
  return false;
}

class DataLoaderPersistentWorkers final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDataLoaderPersistentWorkers; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"DataLoader"}}; }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!data::isDataLoaderCall(model, call)) return;
    if (hasDoubleStarArguments(call)) return;
    auto workers = data::numWorkers(model, call);
    if (!workers || *workers <= 0) return;
    TSNode persistent = keywordArgument(call, "persistent_workers", ctx.source());
    if (!ts_node_is_null(persistent)) return;
    // Bound to a name, iterated in a loop nested in another loop of the same scope.
    TSNode assignment = ts_node_parent(call);
    if (!isKind(assignment, kind::assignment) || !isKind(fieldOf(assignment, "left"), kind::identifier)) return;
    TSNode scope = enclosingFunctionOrModule(call);
    TSNode epoch_loop{};
    analysis::walkTree(
        scope,
        [&](TSNode node) {
          if (!ts_node_is_null(epoch_loop)) return false;
          if (!analysis::sameNode(node, scope) && isCodeBoundary(node)) return false;
          if (isKind(node, kind::for_statement) && insideLoop(node, scope) &&
              analysis::sameNode(data::dataLoaderOfIterable(model, fieldOf(node, "right")), call))
            epoch_loop = node;
          return true;
        },
        [](TSNode) {});
    if (ts_node_is_null(epoch_loop)) return;
    Diagnostic& d = ctx.report(call, "DataLoader workers restart every epoch; pass `persistent_workers=True`");
    TSNode iterable = fieldOf(epoch_loop, "right");
    d.related.push_back({analysis::startOf(iterable), analysis::endOf(iterable), "iterated once per epoch here"});
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Add `persistent_workers=True`";
    fix.edits.push_back(appendArgument(call, "persistent_workers=True", ctx.source()));
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL403, DataLoaderPersistentWorkers)

}  // namespace ptlint::rules
