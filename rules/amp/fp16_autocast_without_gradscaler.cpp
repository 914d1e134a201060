// PTL202 fp16-autocast-without-gradscaler: a float16 autocast in training code with no GradScaler.
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
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
`torch.amp.autocast(device_type="cuda")`, `torch.cuda.amp.autocast()`, a `functools.partial`
of one), whose default is
float16 — in a function (or module-level code) that also calls `.backward()` on a loss — the function
decorated with `@torch.autocast(...)` or the code of the file that calls it, or, for an autocast a function returns
(`def get_ctx(): return torch.autocast("cuda")`), the code that calls that function — when
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

## Releases
`torch/amp/autocast_mode.py` (float16 autocast) and `GradScaler` exist in 1.13, 2.6 and 2.14: the
premise holds 1.13–2.14.

## References
- [Automatic Mixed Precision: gradient scaling](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
- [`torch.autocast` (CUDA default dtype float16)](https://pytorch.org/docs/stable/amp.html#torch.autocast)
- [AMP examples](https://pytorch.org/docs/stable/notes/amp_examples.html)
)md"};

// True when the autocast runs in float16: explicit, or CUDA without a dtype.
bool isFloat16Autocast(const analysis::SemanticModel& model, TSNode call) {
  amp::AutocastDtype dtype = amp::autocastCallDtype(model, call);
  if (dtype.kind == amp::DtypeKind::Float16) return true;
  if (dtype.kind != amp::DtypeKind::Unknown) return false;
  // No explicit dtype (or an unresolved one): only the absent case counts, with a CUDA device.
  if (amp::autocastHidesArguments(model, call)) return false;
  if (!ts_node_is_null(amp::autocastArgument(model, call, "dtype", 1))) return false;
  auto callee = amp::autocastCallee(model, call);
  if (!callee) return false;
  if (*callee == "torch.cuda.amp.autocast") return true;
  if (*callee != "torch.amp.autocast") return false;
  auto value = stringValue(model, amp::autocastArgument(model, call, "device_type", 0));
  return value && *value == "cuda";
}

// The code around each call of `function` in the file (`get_ctx()`, `self.get_ctx()` in the
// methods of the class that defines it), at most 32.
void addCallers(const analysis::SemanticModel& model, TSNode function, std::vector<TSNode>& out) {
  std::string_view name = model.text(fieldOf(function, "name"));
  analysis::walkTree(
      model.file().root(),
      [&](TSNode node) {
        if (out.size() >= 32 || isKind(node, kind::string) || isKind(node, kind::comment)) return false;
        if (!isKind(node, kind::call)) return true;
        TSNode callee = analysis::unparenthesize(fieldOf(node, "function"));
        bool calls = false;
        if (isKind(callee, kind::identifier) && model.text(callee) == name) {
          const analysis::Binding* b = model.resolve(name, callee);
          calls = b != nullptr && analysis::sameNode(b->statement, function);
        } else if (isKind(callee, kind::attribute) && model.text(fieldOf(callee, "attribute")) == name) {
          TSNode up = ts_node_parent(function);
          if (isKind(up, kind::decorated_definition)) up = ts_node_parent(up);
          TSNode cls = ts_node_parent(up);  // block -> class
          calls = model.text(fieldOf(callee, "object")) == "self" && isKind(cls, kind::class_definition) &&
                  analysis::contains(cls, node);
        }
        if (calls) out.push_back(enclosingFunctionOrModule(node));
        return true;
      },
      [](TSNode) {});
}

// The function (or module) whose code runs under the autocast: the decorated function for
// `@torch.autocast(...)` and the code that calls it (the loss is often computed from its result
// there); else the code around the call; and when a function returns the autocast
// (`def get_ctx(): return torch.autocast("cuda")`), the code around each call of that function.
std::vector<TSNode> regionsOf(const analysis::SemanticModel& model, TSNode call) {
  std::vector<TSNode> out;
  for (TSNode up = ts_node_parent(call); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (isKind(up, kind::decorator)) {
      TSNode definition = fieldOf(ts_node_parent(up), "definition");
      if (!isKind(definition, kind::function_definition)) return {};
      out.push_back(definition);
      addCallers(model, definition, out);
      return out;
    }
    if (isKind(up, kind::parenthesized_expression) || isKind(up, kind::conditional_expression)) continue;
    if (!isKind(up, kind::return_statement)) break;
    // `return torch.autocast(...)`: the callers of the enclosing function.
    TSNode function = enclosingFunctionOrModule(up);
    if (!isKind(function, kind::function_definition)) break;
    addCallers(model, function, out);
    break;
  }
  out.insert(out.begin(), enclosingFunctionOrModule(call));
  return out;
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
        if (isKind(node, kind::string) || isKind(node, kind::comment)) return false;
        if (!isKind(node, kind::call) || !isBackwardCall(model, node)) return true;
        TSNode callee = fieldOf(node, "function");
        if (isKind(callee, kind::attribute)) {
          TSNode receiver = analysis::unparenthesize(fieldOf(callee, "object"));
          if (isKind(receiver, kind::call) && methodName(receiver, source) == "scale") scaled = true;
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
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"autocast"},
            .whole_words = true,
            .also = {{"backward"}},
            .absent = {"GradScaler"},
            .tree_names = {{"autocast"}, {"backward"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!amp::isAutocastCall(model, call) || !isFloat16Autocast(model, call)) return;
    // A file that names a GradScaler anywhere is taken to scale its losses.
    if (analysis::findBytes(ctx.source(), "GradScaler") != std::string_view::npos) return;
    TSNode backward{};
    for (TSNode scope : regionsOf(model, call)) {
      bool scaled = false;
      TSNode found = findBackward(model, scope, scaled);
      if (scaled) return;
      if (ts_node_is_null(backward)) backward = found;
    }
    if (ts_node_is_null(backward)) return;
    Diagnostic& d = ctx.report(call,
                               "float16 autocast without a `GradScaler`; scale the loss with `torch.amp.GradScaler(\"cuda\")`");
    d.help = "Small float16 gradients underflow to zero unless scaled; or autocast to `torch.bfloat16`.";
    d.related.push_back({analysis::startOf(backward), analysis::endOf(backward), "the backward pass is here"});
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL202, Fp16AutocastWithoutGradScaler)

}  // namespace ptlint::rules
