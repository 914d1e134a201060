// PTL404 worker-option-without-workers: `prefetch_factor=` or `persistent_workers=True` given to
// a DataLoader that has no worker processes, which raises ValueError at construction.
#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/data/dataloader_args.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kWorkerOptionWithoutWorkers{
    .code = "PTL404",
    .name = "worker-option-without-workers",
    .summary = "`prefetch_factor` or `persistent_workers=True` on a DataLoader without workers",
    .fix = FixAvailability::None,
    .severity = Severity::Error,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports `torch.utils.data.DataLoader(...)` calls (any import path or alias) that pass
`prefetch_factor=` with a value other than `None`, or `persistent_workers=True`, while
`num_workers` is literally `0` or absent (its default is `0`). Values are followed through
names bound once (`NUM_WORKERS = 0`). A `num_workers` the analysis cannot resolve (a
parameter, `cfg.workers`, a conditional) is not reported, nor is a call that passes
`*args`/`**kwargs` without an explicit `num_workers`, nor a `prefetch_factor` that is not a
literal (it could be `None` at run time).

## Why is this bad?
Both options only mean something for worker processes, and the DataLoader constructor rejects
them without workers. Since PyTorch 2.0 (`torch/utils/data/dataloader.py`):

```python
if num_workers == 0 and prefetch_factor is not None:
    raise ValueError('prefetch_factor option could only be specified in multiprocessing.'
                     'let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.')
...
if persistent_workers and num_workers == 0:
    raise ValueError('persistent_workers option needs num_workers > 0')
```

Before 2.0 the default of `prefetch_factor` was `2` and only a value other than `2` raised;
with `torch-version` below 2.0 the rule reports only that. The error comes at the line that
builds the loader, typically after a configuration switched `num_workers` to 0 for debugging.

## Example
```python
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=64, prefetch_factor=4, persistent_workers=True)
```

## Use instead
```python
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=64, num_workers=8, prefetch_factor=4, persistent_workers=True)
```
or drop both options when the data is loaded in the main process.

## Fix safety
There is no fix: whether to add workers or to drop the options is the author's choice.

## Releases
`torch/utils/data/dataloader.py` raises for `prefetch_factor` / `persistent_workers` without
workers in 1.13, 2.6 and 2.14 (the `prefetch_factor` default changed in 2.0; the message follows
the range).

## References
- [`torch/utils/data/dataloader.py`: the checks in `DataLoader.__init__`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/utils/data/dataloader.py)
- [`torch.utils.data.DataLoader` (see `prefetch_factor`, `persistent_workers`)](https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)
)md"};

class WorkerOptionWithoutWorkers final : public Rule {
 public:
  const RuleMeta& meta() const override { return kWorkerOptionWithoutWorkers; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Every call the rule reports resolves to DataLoader through an import or an attribute, which
  // spell it as code: a file that names it only in docstrings and comments is not parsed for it.
  // The option is a keyword argument's name, so an identifier of the code too.
  Prefilter prefilter() const override {
    return {.words = {"DataLoader"},
            .whole_words = true,
            .words_in_code = true,
            .code_names = {{"prefetch_factor", "persistent_workers"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    std::string_view source = ctx.source();
    TSNode prefetch = keywordArgumentNode(call, "prefetch_factor", source);
    TSNode persistent = keywordArgumentNode(call, "persistent_workers", source);
    if (ts_node_is_null(prefetch) && ts_node_is_null(persistent)) return;
    if (!data::isDataLoaderCall(model, call)) return;
    auto workers = data::numWorkers(model, call);
    if (!workers || *workers != 0) return;
    TSNode num_workers = data::dataLoaderArgument(call, "num_workers", source);
    std::string workers_text = ts_node_is_null(num_workers) ? "without `num_workers`" : "with `num_workers=0`";

    if (!ts_node_is_null(prefetch)) {
      TSNode value = analysis::resolveValue(model, fieldOf(prefetch, "value"));
      bool report = false;
      if (ctx.torchAtLeast(2, 0)) {
        report = isKind(value, kind::integer) || isKind(value, kind::float_);
      } else {
        auto n = integerLiteral(value, source);
        report = n && *n != 2;
      }
      if (report) {
        Diagnostic& d = ctx.report(prefetch,
                                   fmt::format("`{}` {} raises `ValueError`; set `num_workers` > 0 or drop it",
                                               ctx.text(prefetch), workers_text));
        addWorkersRelated(d, num_workers);
      }
    }
    if (!ts_node_is_null(persistent) && boolValue(model, fieldOf(persistent, "value")) == true) {
      Diagnostic& d = ctx.report(persistent,
                                 fmt::format("`persistent_workers=True` {} raises `ValueError`; set `num_workers` > 0 or drop it",
                                             workers_text));
      addWorkersRelated(d, num_workers);
    }
  }

 private:
  static void addWorkersRelated(Diagnostic& d, TSNode num_workers) {
    if (ts_node_is_null(num_workers)) return;
    d.related.push_back({analysis::startOf(num_workers), analysis::endOf(num_workers), "no worker processes here"});
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL404, WorkerOptionWithoutWorkers)

}  // namespace ptlint::rules
