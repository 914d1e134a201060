// PTL102 deprecated-backward-hook: `Module.register_backward_hook`.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kDeprecatedBackwardHook{
    .code = "PTL102",
    .name = "deprecated-backward-hook",
    .summary = "`Module.register_backward_hook` is deprecated and can report wrong gradients",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "1.8",
    .docs = R"md(
## What it does
Reports calls of the method `.register_backward_hook(...)`. In PyTorch only `nn.Module` has a
method of that name (tensors have `register_hook`), so the call is reported whatever the
object's type.

## Why is this bad?
`nn.Module.register_backward_hook` is deprecated in favour of `register_full_backward_hook`
(the method's docstring: "This function is deprecated in favor of
`register_full_backward_hook` and the behavior of this function will change in future
versions"). The old hook is attached to the `grad_fn` of the module's last operation only: for
a module made of several operations, `grad_input` and `grad_output` are those of that last
operation, not of the module, so they can be missing or wrong, without any error.

## Example
```python
model.fc.register_backward_hook(log_gradients)
```

## Use instead
```python
model.fc.register_full_backward_hook(log_gradients)
```

## Fix safety
The fix renames the method and is unsafe: the new hook receives the gradients with respect to
the module's inputs and outputs, which differ from what the old hook saw for any module of more
than one operation; a hook that modifies its inputs in place, or a module whose forward
modifies its inputs in place, raises with the full hook. The fix is offered when `torch-version`
is 1.13 or later (the oldest release whose sources were checked for `register_full_backward_hook`).

## Releases
`Module.register_backward_hook` and `register_full_backward_hook` are both in
`torch/nn/modules/module.py` of 1.13, 2.6 and 2.14: the premise holds 1.13–2.14; the fix needs
`register_full_backward_hook` (1.8), so it is offered from 1.13.

## References
- [torch.nn.Module.register_full_backward_hook](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook)
- [torch/nn/modules/module.py](https://github.com/pytorch/pytorch/blob/main/torch/nn/modules/module.py)
)md"};

class DeprecatedBackwardHook final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeprecatedBackwardHook; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"register_backward_hook"}, .whole_words = true}; }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = fieldOf(call, "function");
    if (!isKind(callee, kind::attribute)) return;
    TSNode name = fieldOf(callee, "attribute");
    if (ctx.text(name) != "register_backward_hook") return;
    Diagnostic& d = ctx.report(call, "`register_backward_hook` is deprecated; use `register_full_backward_hook`");
    if (!ctx.torchAtLeast(1, 13)) return;
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Use `register_full_backward_hook` instead of `register_backward_hook`",
                          {{startOf(name), endOf(name), "register_full_backward_hook"}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL102, DeprecatedBackwardHook)

}  // namespace ptlint::rules
