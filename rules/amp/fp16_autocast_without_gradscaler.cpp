// PTL202 fp16-autocast-without-gradscaler: a float16 autocast in training code with no GradScaler.
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/all_rules.h"
#include "rules/amp/autocast_dtype.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kFp16AutocastWithoutGradScaler{
    .code = "PTL202",
    .name = "fp16-autocast-without-gradscaler",
    .summary = "float16 autocast in code that calls `.backward()` without a GradScaler",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.6",
    .docs = R"md(
## What it does
Reports an autocast whose dtype is float16 — `dtype=torch.float16` / `torch.half` (any alias,
or a name bound once to it), or a CUDA autocast without a `dtype` (`torch.autocast("cuda")`,
`torch.amp.autocast(device_type="cuda")`, `torch.cuda.amp.autocast()`), whose default is
float16 — in a function (or module-level code) that also calls `.backward()` on a loss, when
the file has no `GradScaler` (any namespace, FSDP's `ShardedGradScaler` included) and the
backward is not `scaler.scale(loss).backward()`. A device type or dtype the analysis cannot
resolve, an autocast with `enabled=False`, and a CPU autocast (bfloat16 by default) are not
reported. The backward call is given as related information.

## Why is this bad?
float16 has a narrow exponent range: gradients smaller than about 6e-8 flush to zero
("underflow"), and the update silently loses them. The AMP recipe pairs float16 autocast with
a `GradScaler`, which multiplies the loss before `backward()` so that gradients stay
representable and unscales them before the optimizer step. PyTorch's AMP documentation: "If the
forward pass for a particular op has float16 inputs, the backward pass for that op will produce
float16 gradients. Gradient values with small magnitudes may not be representable in float16.
These values will flush to zero ('underflow'), so the update for the corresponding parameters
will be lost." The default dtype of a CUDA autocast is float16 (`torch.get_autocast_gpu_dtype()`).

## Example
```python
import torch

for x, y in loader:
    with torch.autocast("cuda"):
        loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
import torch

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
```
or `dtype=torch.bfloat16` on hardware that supports it (no scaler needed).

## Fix safety
There is no fix: adding a scaler changes several lines of the training step.

## References
- [Automatic Mixed Precision: gradient scaling](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
- [`torch.autocast` (CUDA default dtype float16)](https://pytorch.org/docs/stable/amp.html#torch.autocast)
- [AMP examples](https://pytorch.org/docs/stable/notes/amp_examples.html)
)md"};

// True when the autocast runs in float16: explicit, or CUDA without a dtype.
bool isFloat16Autocast(const analysis::SemanticModel& model, TSNode call) {
  std::string_view source = model.file().text();
  amp::AutocastDtype dtype = amp::autocastCallDtype(model, call);
  if (dtype.kind == amp::DtypeKind::Float16) return true;
  if (dtype.kind != amp::DtypeKind::Unknown) return false;
  // No explicit dtype (or an unresolved one): only the absent case counts, with a CUDA device.
  if (!ts_node_is_null(keywordArgument(call, "dtype", source))) return false;
  if (hasStarArguments(call) || hasDoubleStarArguments(call)) return false;
  auto callee = model.calleeName(call);
  if (!callee) return false;
  auto positional = positionalArguments(call);
  if (*callee == "torch.cuda.amp.autocast") return positional.size() < 2;
  if (*callee != "torch.amp.autocast" || positional.size() >= 2) return false;
  TSNode device = keywordArgument(call, "device_type", source);
  if (ts_node_is_null(device) && !positional.empty()) device = positional[0];
  auto value = stringValue(model, device);
  return value && *value == "cuda";
}

// The first `.backward()` in `scope` outside nested defs and classes, or null. `scaled` is set
// when some backward there goes through `scaler.scale(...)`.
TSNode findBackward(const analysis::SemanticModel& model, TSNode scope, bool& scaled) {
  std::string_view source = model.file().text();
  TSNode found{};
  scaled = false;
  analysis::walkTree(
      scope,
      [&](TSNode node) {
        if (!analysis::sameNode(node, scope) && isCodeBoundary(node)) return false;
        if (isKind(node, "string") || isKind(node, "comment")) return false;
        if (!isKind(node, "call") || !isBackwardCall(model, node)) return true;
        TSNode callee = fieldOf(node, "function");
        if (isKind(callee, "attribute")) {
          TSNode receiver = analysis::unparenthesize(fieldOf(callee, "object"));
          if (isKind(receiver, "call") && methodName(receiver, source) == "scale") scaled = true;
          // `accelerator.backward(loss)`, `engine.backward(loss)`: a framework that scales itself.
          auto callee_name = model.calleeName(node);
          bool autograd = callee_name && *callee_name == "torch.autograd.backward";
          if (!autograd && !positionalArguments(node).empty()) return true;
        }
        if (ts_node_is_null(found)) found = node;
        return true;
      },
      [](TSNode) {});
  return found;
}

class Fp16AutocastWithoutGradScaler final : public Rule {
 public:
  const RuleMeta& meta() const override { return kFp16AutocastWithoutGradScaler; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"autocast"}; }
  std::vector<std::string_view> requiredWords() const override { return {"backward"}; }
  bool triggersAreWholeWords() const override { return true; }
  bool mayReportIn(const analysis::ParsedFile& file, const Settings&) const override {
    std::string_view text = file.text();
    return analysis::findBytes(text, "GradScaler") == std::string_view::npos && namesIdentifier(file, "autocast") &&
           namesIdentifier(file, "backward");
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!amp::isAutocastCall(model, call) || !isFloat16Autocast(model, call)) return;
    // A file that names a GradScaler anywhere is taken to scale its losses.
    if (analysis::findBytes(ctx.source(), "GradScaler") != std::string_view::npos) return;
    TSNode scope = enclosingFunctionOrModule(call);
    bool scaled = false;
    TSNode backward = findBackward(model, scope, scaled);
    if (ts_node_is_null(backward) || scaled) return;
    Diagnostic& d = ctx.report(call,
                               "float16 autocast with `.backward()` and no `GradScaler`: small gradients underflow "
                               "to zero in float16 and their updates are lost; scale the loss with "
                               "`torch.amp.GradScaler(\"cuda\")` or autocast to `torch.bfloat16`");
    d.related.push_back({analysis::startOf(backward), analysis::endOf(backward), "the backward pass is here"});
  }
};

}  // namespace

const Rule& fp16AutocastWithoutGradScalerRule() {
  static const Fp16AutocastWithoutGradScaler rule;
  return rule;
}

}  // namespace ptlint::rules
