// PTL204 backward-inside-autocast: `.backward()` lexically inside a `with autocast(...)` block.
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/all_rules.h"
#include "rules/amp/autocast_dtype.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kBackwardInsideAutocast{
    .code = "PTL204",
    .name = "backward-inside-autocast",
    .summary = "`.backward()` called inside an autocast block",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.6",
    .docs = R"md(
## What it does
Reports `.backward()` calls (`loss.backward()`, `scaler.scale(loss).backward()`,
`torch.autograd.backward(...)`) written inside the body of a `with` statement that enters an
autocast: `torch.autocast(...)`, `torch.amp.autocast(...)`, `torch.cuda.amp.autocast(...)`,
`torch.cpu.amp.autocast(...)` through any import or alias, or a name bound once to such a call
(`ctx = torch.autocast("cuda"); with ctx:`). An autocast with literal `enabled=False` is not an
autocast; a backward in a function defined inside the block is not reported (it does not run
there).

## Why is this bad?
The autocast documentation (`torch/amp/autocast_mode.py`): "`autocast` should wrap only the
forward pass(es) of your network, including the loss computation(s). Backward passes under
autocast are not recommended. Backward ops run in the same type that autocast used for
corresponding forward ops." Running the backward inside the region gains nothing and lets
autocast re-cast whatever the backward pass computes outside the recorded graph (gradient
hooks, double-backward, custom `autograd.Function`s), in a precision the author did not choose.

## Example
```python
import torch

with torch.autocast("cuda", dtype=torch.bfloat16):
    loss = model(x).sum()
    loss.backward()
```

## Use instead
```python
import torch

with torch.autocast("cuda", dtype=torch.bfloat16):
    loss = model(x).sum()
loss.backward()
```

## Fix safety
There is no fix: moving the call out of the block can change what follows it in the block.

## Releases
`torch/amp/autocast_mode.py`: `autocast` in 1.13, 2.6 and 2.14; the advice to run backward outside
it holds 1.13–2.14.

## References
- [`torch.autocast` (see the note on backward passes)](https://pytorch.org/docs/stable/amp.html#torch.autocast)
- [Automatic mixed precision examples](https://pytorch.org/docs/stable/notes/amp_examples.html)
)md"};

class BackwardInsideAutocast final : public Rule {
 public:
  const RuleMeta& meta() const override { return kBackwardInsideAutocast; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"autocast"}; }
  std::vector<std::string_view> requiredWords() const override { return {"backward"}; }
  bool triggersAreWholeWords() const override { return true; }
  bool mayReportIn(const analysis::ParsedFile& file, const Settings&) const override {
    // A `with` block around a call of something named `backward`.
    std::string_view text = file.text();
    // (`backward` itself is a required word: checked before parsing.)
    return analysis::findBytes(text, "with") != std::string_view::npos && namesIdentifier(file, "autocast") &&
           namesIdentifier(file, "backward");
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!isBackwardCall(model, call)) return;
    for (TSNode item : enclosingWithItems(call)) {
      TSNode autocast = amp::autocastCallOf(model, item);
      if (ts_node_is_null(autocast)) continue;
      // The innermost autocast decides: `with autocast(enabled=False):` turns it off.
      if (boolValue(model, keywordArgument(autocast, "enabled", ctx.source())) == false) return;
      Diagnostic& d = ctx.report(call,
                                 "backward pass inside an autocast block: backward ops already run in the dtype "
                                 "autocast chose for their forward ops, and PyTorch recommends against backward "
                                 "under autocast; call it after the `with` block");
      d.related.push_back({analysis::startOf(item), analysis::endOf(item), "the autocast region is entered here"});
      return;
    }
  }
};

}  // namespace

const Rule& backwardInsideAutocastRule() {
  static const BackwardInsideAutocast rule;
  return rule;
}

}  // namespace ptlint::rules
