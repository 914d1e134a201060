// PTL205 clip-without-unscale: gradients clipped after `scaler.scale(loss).backward()` without
// `scaler.unscale_(optimizer)` first, or the optimizer stepped around the scaler.
#include <string>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/common/training_loops.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kClipWithoutUnscale{
    .code = "PTL205",
    .name = "clip-without-unscale",
    .summary = "Gradients clipped while scaled by a `GradScaler`, or the optimizer stepped around it",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.6",
    .docs = R"md(
## What it does
In a function that runs `scaler.scale(loss).backward()` with a `GradScaler` (a name or
`self.<attr>` bound to `torch.amp.GradScaler(...)` or `torch.cuda.amp.GradScaler(...)`, or any
receiver of `.scale(...).backward()` that the function also calls `.step(...)` and `.update()`
on), reports:
- `torch.nn.utils.clip_grad_norm_(...)` / `clip_grad_value_(...)` after that backward with no
  `scaler.unscale_(...)` in the function before the clip;
- `optimizer.step()` called directly after that backward when the function never calls
  `scaler.step(...)` nor `scaler.unscale_(...)`.

A function of a file that calls `unscale_` elsewhere (a helper may unscale) is not reported.

## Why is this bad?
`scaler.scale(loss)` multiplies the loss by the scale factor (65536 at first), so every
gradient `backward()` accumulates is multiplied by it. A `max_norm` of 1.0 compared with
those gradients clips almost everything to a tiny fraction of its real size, and a clip value
does the same. PyTorch's AMP examples: "If you wish to modify or inspect the parameters' `.grad`
attributes between `backward()` and `scaler.step(optimizer)`, you should unscale them first",
with `scaler.unscale_(optimizer)` before `clip_grad_norm_`. `scaler.step(optimizer)` unscales
the gradients and skips the step when they hold infs or NaNs (`torch/amp/grad_scaler.py`, 2.6
and 2.14); `optimizer.step()` called directly applies gradients still multiplied by the scale,
and steps on overflowing ones.

## Example
```python
scaler.scale(loss).backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
scaler.update()
```

## Use instead
```python
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
scaler.update()
```

## Fix safety
For the clip, the fix inserts `scaler.unscale_(optimizer)` before it, when the function steps
one optimizer through the scaler. It is unsafe: it changes the clipped gradients (which is the
point), and `unscale_` may be called only once per optimizer and step, so a second clip or
unscale elsewhere in the step would raise. There is no fix for a direct `optimizer.step()`.

## Releases
`GradScaler.unscale_` in `torch/cuda/amp/grad_scaler.py` (1.13) and `torch/amp/grad_scaler.py`
(2.6, 2.14): the premise and the fix hold 1.13–2.14.

## References
- [CUDA AMP examples: working with unscaled gradients (gradient clipping)](https://docs.pytorch.org/docs/stable/notes/amp_examples.html#gradient-clipping)
- [`torch/amp/grad_scaler.py` (2.6), `GradScaler.unscale_` and `GradScaler.step`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/amp/grad_scaler.py)
)md"};

bool isGradScalerName(std::string_view name) {
  return name == "torch.amp.GradScaler" || name == "torch.cuda.amp.GradScaler" || name == "torch.cpu.amp.GradScaler" ||
         name == "torch.amp.grad_scaler.GradScaler" || name == "torch.cuda.amp.grad_scaler.GradScaler" ||
         name == "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler" ||
         name == "torch.distributed.fsdp.ShardedGradScaler";
}

bool isGradScalerConstruction(const analysis::SemanticModel& model, TSNode value) {
  value = analysis::unparenthesize(value);
  if (!isKind(value, kind::call)) return false;
  auto callee = model.calleeName(value);
  return callee && isGradScalerName(*callee);
}

// What one function does with its scaler(s), collected in one walk.
struct ScalerUse {
  std::string scaler;          // the receiver's text, `scaler` / `self.scaler`
  TSNode receiver{};           // its first occurrence (a scaled backward's)
  std::vector<TSNode> backwards;  // `scaler.scale(...).backward()` calls
  std::vector<TSNode> unscales;   // `scaler.unscale_(...)`
  std::vector<TSNode> steps;      // `scaler.step(...)`
  bool updates = false;           // `scaler.update()`
};

// The receiver of `X.scale(...).backward()`, or null.
TSNode scaledBackwardReceiver(TSNode call, std::string_view source) {
  if (methodName(call, source) != "backward") return {};
  TSNode scaled = analysis::unparenthesize(fieldOf(fieldOf(call, "function"), "object"));
  if (!isKind(scaled, kind::call) || methodName(scaled, source) != "scale") return {};
  return fieldOf(fieldOf(scaled, "function"), "object");
}

std::vector<TSNode> callsIn(TSNode scope, std::string_view source) {
  std::vector<TSNode> calls;
  analysis::walkTree(
      fieldOf(scope, "body").id != nullptr ? fieldOf(scope, "body") : scope,
      [&](TSNode n) {
        if (isCodeBoundary(n)) return false;
        if (isKind(n, kind::call)) calls.push_back(n);
        return !isKind(n, kind::string) && !isKind(n, kind::comment);
      },
      [](TSNode) {});
  (void)source;
  return calls;
}

bool isScaler(const analysis::SemanticModel& model, const ScalerUse& use) {
  TSNode receiver = use.receiver;
  if (isKind(receiver, kind::identifier)) {
    TSNode bound = analysis::singleAssignedValue(model, receiver);
    if (!ts_node_is_null(bound)) return isGradScalerConstruction(model, bound);
  } else if (isKind(receiver, kind::attribute)) {
    TSNode bound = selfAttributeValue(model, receiver);
    if (!ts_node_is_null(bound)) return isGradScalerConstruction(model, bound);
  } else {
    return false;
  }
  // A parameter or an attribute bound elsewhere: the GradScaler protocol in this function.
  return !use.steps.empty() && use.updates;
}

constexpr std::array<std::string_view, 5> kClips{"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
                                                 "torch.nn.utils.clip_grad.clip_grad_norm_",
                                                 "torch.nn.utils.clip_grad.clip_grad_value_", "torch.nn.utils.clip_grad_norm"};

class ClipWithoutUnscale final : public Rule {
 public:
  const RuleMeta& meta() const override { return kClipWithoutUnscale; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"scale"},
            .whole_words = true,
            .also = {{"backward"}},
            .code_calls = {{{"scale", true}},
                           {{"backward", true}},
                           {{"step", true}, {"clip_grad_norm_"}, {"clip_grad_value_"}, {"clip_grad_norm"}}},
            .tree_calls = {{"scale"}, {"backward"}, {"step", "clip_grad_norm_", "clip_grad_value_", "clip_grad_norm"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    std::string_view source = ctx.source();
    std::string_view method = methodName(call, source);
    TSNode callee = fieldOf(call, "function");
    std::string_view last = isKind(callee, kind::attribute) ? method : ctx.text(callee);
    bool is_step = method == "step";
    if (!is_step && last != "clip_grad_norm_" && last != "clip_grad_value_" && last != "clip_grad_norm") return;
    const auto& model = ctx.model();
    if (!is_step) {
      auto name = model.calleeName(call);
      if (!name || std::find(kClips.begin(), kClips.end(), *name) == kClips.end()) return;
    } else if (ts_node_named_child_count(argumentList(call)) != 0) {
      return;  // `scaler.step(opt)`, `opt.step(closure)`
    }

    TSNode scope = enclosingFunctionOrModule(call);
    auto calls = callsIn(scope, source);
    // The scaled backwards before this call, grouped by scaler.
    std::vector<ScalerUse> uses;
    for (TSNode c : calls) {
      TSNode receiver = scaledBackwardReceiver(c, source);
      if (ts_node_is_null(receiver)) continue;
      std::string text(ctx.text(receiver));
      auto it = std::find_if(uses.begin(), uses.end(), [&](const ScalerUse& u) { return u.scaler == text; });
      if (it == uses.end()) {
        uses.push_back({text, receiver, {}, {}, {}, false});
        it = uses.end() - 1;
      }
      it->backwards.push_back(c);
    }
    if (uses.empty()) return;
    for (TSNode c : calls) {
      std::string_view m = methodName(c, source);
      if (m != "unscale_" && m != "step" && m != "update") continue;
      std::string_view receiver = ctx.text(fieldOf(fieldOf(c, "function"), "object"));
      for (ScalerUse& use : uses) {
        if (use.scaler != receiver) continue;
        if (m == "unscale_") use.unscales.push_back(c);
        else if (m == "step") use.steps.push_back(c);
        else use.updates = true;
      }
    }
    // `unscale_` elsewhere in the file: a helper may unscale.
    bool unscales_elsewhere = false;
    analysis::forEachWholeWord(source, "unscale_", [&](size_t at) {
      if (at < analysis::startOf(scope) || at >= analysis::endOf(scope)) unscales_elsewhere = true;
      return unscales_elsewhere;
    });
    if (unscales_elsewhere && !isKind(scope, kind::module)) return;

    for (const ScalerUse& use : uses) {
      if (!isScaler(model, use)) continue;
      TSNode backward{};
      for (TSNode b : use.backwards)
        if (analysis::startOf(b) < analysis::startOf(call) && !inExclusiveBranches(b, call)) backward = b;
      if (ts_node_is_null(backward)) continue;
      if (is_step) {
        std::string_view receiver = ctx.text(fieldOf(callee, "object"));
        if (receiver == use.scaler || !use.steps.empty() || !use.unscales.empty()) continue;
        if (!looksLikeOptimizer(model, fieldOf(callee, "object"))) continue;
        Diagnostic& d = ctx.report(
            call, fmt::format("`{}.step()` steps on scaled gradients; call `{}.step({})` and `{}.update()`",
                              receiver, use.scaler, receiver, use.scaler));
        d.related.push_back({analysis::startOf(backward), analysis::endOf(backward), "the scaled backward"});
        return;
      }
      bool unscaled = false;
      for (TSNode u : use.unscales) unscaled = unscaled || analysis::startOf(u) < analysis::startOf(call);
      if (unscaled) continue;
      Diagnostic& d = ctx.report(
          call, fmt::format("Gradients clipped while still scaled; call `{}.unscale_(optimizer)` first", use.scaler));
      d.related.push_back({analysis::startOf(backward), analysis::endOf(backward), "the gradients are scaled here"});
      addFix(d, call, use, ctx);
      return;
    }
  }

 private:
  static void addFix(Diagnostic& d, TSNode call, const ScalerUse& use, Context& ctx) {
    std::string_view source = ctx.source();
    // The optimizer: the one argument of the function's only `scaler.step(...)` text.
    std::string_view optimizer;
    for (TSNode step : use.steps) {
      auto args = positionalArguments(step);
      if (args.size() != 1) return;
      std::string_view text = ctx.text(args[0]);
      if (!optimizer.empty() && optimizer != text) return;
      optimizer = text;
    }
    if (optimizer.empty()) return;
    TSNode statement = enclosingStatement(call);
    if (ts_node_is_null(statement)) return;
    if (!isKind(ts_node_parent(statement), kind::block) && !isKind(ts_node_parent(statement), kind::module)) return;
    uint32_t start = analysis::startOf(statement);
    uint32_t line_start = start;
    while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
    std::string_view indent = source.substr(line_start, start - line_start);
    if (indent.find_first_not_of(" \t") != std::string_view::npos) return;
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, fmt::format("Insert `{}.unscale_({})`", use.scaler, optimizer),
                          {{start, start, fmt::format("{}.unscale_({})\n{}", use.scaler, optimizer, indent)}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL205, ClipWithoutUnscale)

}  // namespace ptlint::rules
