// PTL110 torchvision-to-tensor-v2: the deprecated `transforms.v2.ToTensor()`.
#include <string>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/register.h"
#include "rules/deprecated/call_rewrite.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kTorchvisionToTensorV2{
    .code = "PTL110",
    .name = "torchvision-to-tensor-v2",
    .summary = "`transforms.v2.ToTensor()` is deprecated; use `ToImage()` and `ToDtype(..., scale=True)`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports `torchvision.transforms.v2.ToTensor()` (through any import or alias: `v2.ToTensor()`,
`from torchvision.transforms.v2 import ToTensor`) when the configured `torch-version` is 2.0 or
later (torchvision 0.15, whose `v2` namespace has it), and also the import of the v2 `ToTensor`
and references to it that are not calls (`isinstance(t, v2.ToTensor)`), which keep the
deprecated class in use; those get no fix. The classic `torchvision.transforms.ToTensor` is not
reported.

## Why is this bad?
torchvision deprecates the v2 `ToTensor`: constructing it warns "The transform `ToTensor()` is
deprecated and will be removed in a future release. Instead, please use
`v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`". It converts to a plain
tensor (not a `tv_tensors.Image`), so the v2 transforms that follow cannot tell an image from
other tensors.

## Example
```python
from torchvision.transforms import v2

transform = v2.Compose([v2.ToTensor(), v2.Normalize(mean, std)])
```

## Use instead
```python
import torch
from torchvision.transforms import v2

transform = v2.Compose([v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)]), v2.Normalize(mean, std)])
```

## Fix safety
The fix is the replacement torchvision's own warning gives and is safe. Outputs are
"equivalent up to float precision" (torchvision's words): `ToTensor` divides by 255 where
`ToDtype(scale=True)` multiplies by 1/255, so individual values can differ in the last bit of
float32. `ToImage` and `ToDtype(..., scale=True)` exist from torchvision 0.16 (PyTorch 2.1): no
fix is offered for older `torch-version` settings. `import torch` and
`from torchvision.transforms import v2` are added where no name for them is visible.

## Releases
A torchvision premise (`transforms.v2`, paired with PyTorch 2.0+; `ToImage`/`ToDtype(scale=True)`
with 2.1+): reported from 2.0, fixed from 2.1.

## References
- [torchvision/transforms/v2/_deprecated.py](https://github.com/pytorch/vision/blob/main/torchvision/transforms/v2/_deprecated.py)
- [torchvision transforms: conversion](https://pytorch.org/vision/stable/transforms.html#conversion)
)md"};

class TorchvisionToTensorV2 final : public Rule {
 public:
  const RuleMeta& meta() const override { return kTorchvisionToTensorV2; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call, kind::attribute, kind::import_from_statement}; }
  Prefilter prefilter() const override { return {.words = {"ToTensor"}, .whole_words = true}; }

  static bool isV2ToTensor(std::string_view q) {
    return q == "torchvision.transforms.v2.ToTensor" || q == "torchvision.transforms.v2._deprecated.ToTensor";
  }

  void check(TSNode node, Context& ctx) const override {
    if (!ctx.torchAtLeast(2, 0)) return;
    if (isKind(node, kind::call)) return checkCall(node, ctx);
    if (isKind(node, kind::attribute)) {
      // `transforms = v2.ToTensor` or `isinstance(t, v2.ToTensor)`: a reference that is not
      // called (the calls are reported with their arguments).
      if (ctx.text(fieldOf(node, "attribute")) != "ToTensor") return;
      TSNode parent = ts_node_parent(node);
      if (isKind(parent, kind::call) && analysis::sameNode(fieldOf(parent, "function"), node)) return;
      if (isKind(parent, kind::attribute) || isKind(parent, kind::dotted_name)) return;
      auto q = ctx.model().qualifiedName(node);
      if (q && isV2ToTensor(*q))
        ctx.report(node, "`v2.ToTensor` is deprecated; use `v2.ToImage()` then `v2.ToDtype(..., scale=True)`" +
                         versions::judgedFor(ctx.settings()));
      return;
    }
    // `from torchvision.transforms.v2 import ToTensor`: the import itself, as PTL106 reports
    // imports of deprecated functions (its calls are reported too).
    TSNode module = fieldOf(node, "module_name");
    if (!isKind(module, kind::dotted_name)) return;
    std::string module_name = analysis::dottedNameText(module, ctx.source());
    bool found = false;
    analysis::forEachFieldChild(node, "name", [&](TSNode name) {
      TSNode dotted = isKind(name, kind::aliased_import) ? fieldOf(name, "name") : name;
      found = found || isV2ToTensor(module_name + "." + std::string(ctx.text(dotted)));
    });
    if (found)
      ctx.report(node, "Import of deprecated `v2.ToTensor`; use `v2.ToImage()` then `v2.ToDtype(..., scale=True)`" +
                       versions::judgedFor(ctx.settings()));
  }

  void checkCall(TSNode call, Context& ctx) const {
    TSNode callee = fieldOf(call, "function");
    if (!ctx.text(callee).ends_with("ToTensor")) return;
    auto q = ctx.model().qualifiedName(callee);
    if (!q || !isV2ToTensor(*q)) return;
    Diagnostic& d = ctx.report(call, "`v2.ToTensor()` is deprecated; use `v2.ToImage()` then `v2.ToDtype(..., scale=True)`" +
                                     versions::judgedFor(ctx.settings()));
    auto args = rewrite::plainArguments(call, ctx.source());
    if (!ctx.torchAtLeast(2, 1) || !args || !args->positional.empty() || !args->keywords.empty()) return;
    const auto& model = ctx.model();
    std::vector<quickfix::Edit> edits;
    std::string v2;
    if (isKind(callee, kind::attribute) && model.refersTo(fieldOf(callee, "object"), "torchvision.transforms.v2")) {
      v2 = std::string(ctx.text(fieldOf(callee, "object")));
    } else if (auto visible = model.visibleNameFor("torchvision.transforms.v2", call)) {
      v2 = *visible;
    } else if (model.resolve("v2", call) == nullptr) {
      v2 = "v2";
      auto edit = quickfix::addImport(model, "from torchvision.transforms import v2");
      if (!edit) return;
      edits.push_back(std::move(*edit));
    } else {
      return;
    }
    bool needs_torch = false;
    std::string torch = torchModuleName(model, call, needs_torch);
    if (torch.empty()) return;
    if (needs_torch) {
      auto edit = quickfix::addImport(model, "import torch");
      if (!edit) return;
      edits.push_back(std::move(*edit));
    }
    edits.push_back({startOf(call), endOf(call),
                     v2 + ".Compose([" + v2 + ".ToImage(), " + v2 + ".ToDtype(" + torch + ".float32, scale=True)])"});
    if (!quickfix::normalizeEdits(edits)) return;
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Replace `ToTensor()` with `ToImage()` and `ToDtype(torch.float32, scale=True)`",
                          std::move(edits)};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL110, TorchvisionToTensorV2)

}  // namespace ptlint::rules
