// PTL204 backward-inside-autocast: `.backward()` lexically inside a `with autocast(...)` block.
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
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
`torch.cpu.amp.autocast(...)` through any import or alias, a `functools.partial` of one, or an
expression that may hold such a call where the `with` stands — `ctx = torch.autocast("cuda");
with ctx:`, `ctx = nullcontext()` then `if amp: ctx = torch.autocast(...)`, `self.ctx` set in
another method, a function of the file or of another file of the project that returns one
(`with get_autocast():`) — or inside a
function decorated with `@torch.autocast(...)`. An autocast with literal `enabled=False` is not
an autocast; a backward in a function defined inside the block is not reported (it does not run
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
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // A `with` block or a decorator around a call of something named `backward`.
  Prefilter prefilter() const override {
    return {.words = {"autocast"},
            .whole_words = true,
            .also = {{"backward"}, {"with", "@"}},
            .tree_names = {{"autocast"}, {"backward"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!isBackwardCall(model, call)) return;
    for (TSNode item : enclosingWithItems(call)) {
      std::vector<amp::ModelNode> autocasts = amp::autocastValuesOf(model, item);
      if (autocasts.empty()) continue;
      // The innermost autocast decides: `with autocast(enabled=False):` turns it off. Of the
      // values a context may hold (`ctx = nullcontext()`, then `ctx = torch.autocast(...)` when
      // AMP is on, a helper's return in another file), one that enables autocast is enough.
      bool enabled = false;
      for (const amp::ModelNode& autocast : autocasts) {
        const analysis::SemanticModel& where = autocast.in(model);
        enabled = enabled || boolValue(where, amp::autocastArgument(where, autocast.node, "enabled", amp::kKeywordOnly)) != false;
      }
      if (!enabled) return;
      report(ctx, call, item, "the autocast region is entered here", "call it after the `with` block");
      return;
    }
    // `@torch.autocast(...)` on the function the call runs in.
    TSNode function{};
    for (TSNode up = ts_node_parent(call); !ts_node_is_null(up); up = ts_node_parent(up)) {
      if (analysis::isKind(up, kind::lambda) || analysis::isKind(up, kind::class_definition)) return;
      if (analysis::isKind(up, kind::function_definition)) {
        function = up;
        break;
      }
    }
    TSNode decorated = ts_node_is_null(function) ? TSNode{} : ts_node_parent(function);
    if (!analysis::isKind(decorated, kind::decorated_definition)) return;
    bool reported = false;
    analysis::forEachNamedChild(decorated, [&](TSNode decorator) {
      if (reported || !analysis::isKind(decorator, kind::decorator)) return;
      TSNode expr = analysis::unparenthesize(ts_node_named_child(decorator, 0));
      if (!analysis::isKind(expr, kind::call) || !amp::isAutocastCall(model, expr)) return;
      if (boolValue(model, amp::autocastArgument(model, expr, "enabled", amp::kKeywordOnly)) == false) return;
      report(ctx, call, decorator, "the function runs under this autocast",
             "call it outside the decorated function");
      reported = true;
    });
  }

 private:
  static void report(Context& ctx, TSNode call, TSNode region, const char* note, const char* advice) {
    Diagnostic& d = ctx.report(call, fmt::format("Backward pass inside an autocast block; {}", advice));
    d.related.push_back({analysis::startOf(region), analysis::endOf(region), note});
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL204, BackwardInsideAutocast)

}  // namespace ptlint::rules
