// PTL709 per-step-host-sync: `.item()`, `.tolist()`, `.cpu()` every step of a training loop.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/common/training_loops.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kPerStepHostSync{
    .code = "PTL709",
    .name = "per-step-host-sync",
    .summary = "`.item()`, `.tolist()` or `.cpu()` on every step of a training loop",
    .fix = FixAvailability::None,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `x.item()`, `x.tolist()` and `x.cpu()` calls in the body of a loop that runs a training
step (it calls `.backward()` or steps an optimizer), unless a logging-interval test decides
whether they run: an `if` or conditional expression between the call and the loop whose
condition has a `%` (`step % log_every == 0`) or names an interval or a logging switch
(`log_interval`, `print_freq`, `verbose`, `is_main_process`, ...). Not reported either: a value
a test checks (`assert`, `self.assertEqual(...)`), a value that decides whether the loop stops
(`if loss.item() < tol: break`, `if not math.isfinite(loss_value): sys.exit(1)`, with the
value bound to a name the test reads), and `.cpu()` of a module
(`model.cpu()`, `m.cpu().parameters()`). Off by default: it is information for loops where
the step time matters.

## Why is this bad?
On a GPU, kernels run asynchronously: the Python loop queues the next step while the current
one computes. Reading a value on the host (`Tensor.item()`, `tolist()`, a copy to the CPU)
waits until every queued kernel has finished, so the loop stops feeding the GPU once per step
and the device idles while Python prepares the next batch. PyTorch's performance tuning guide
("Avoid unnecessary CPU-GPU synchronization") lists `print(cuda_tensor)`, `cuda_tensor.item()`
and the memory copies `tensor.cuda()`/`cuda_tensor.cpu()` among the operations to avoid.

## Example
```python
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
```

## Use instead
```python
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    running += loss.detach()
    if step % log_every == 0:
        losses.append(running.item() / log_every)
        running.zero_()
```

## Fix safety
There is no fix.

## Releases
`Tensor.item` / `tolist` synchronise with the device at every release (1.13, 2.6 and 2.14): the
premise holds 1.13–2.14.

## References
- [Performance tuning guide: avoid unnecessary CPU-GPU synchronization](https://docs.pytorch.org/tutorials/recipes/recipes/tuning_guide.html#avoid-unnecessary-cpu-gpu-synchronization)
)md"};

// `model.cpu()` followed by a module method (`m.cpu().parameters()`), or on a name spelling a
// model: a module moved to the host, not a tensor read.
bool movesModule(TSNode call, std::string_view source) {
  TSNode parent = ts_node_parent(call);
  if (isKind(parent, kind::attribute)) {
    std::string_view next = analysis::textOf(fieldOf(parent, "attribute"), source);
    for (std::string_view method : {"parameters", "named_parameters", "state_dict", "buffers", "named_buffers",
                                    "modules", "named_modules", "children", "eval", "train"})
      if (next == method) return true;
  }
  TSNode receiver = fieldOf(fieldOf(call, "function"), "object");
  if (!isKind(receiver, kind::identifier) && !isKind(receiver, kind::attribute)) return false;
  std::string name(isKind(receiver, kind::attribute) ? analysis::textOf(fieldOf(receiver, "attribute"), source)
                                                 : analysis::textOf(receiver, source));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view word : {"model", "net", "module", "encoder", "decoder", "layer"})
    if (name.find(word) != std::string::npos) return true;
  return name == "m";
}

class PerStepHostSync final : public Rule {
 public:
  const RuleMeta& meta() const override { return kPerStepHostSync; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"item", "tolist", "cpu"}, .whole_words = true, .also = {{"backward"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    std::string_view source = ctx.source();
    std::string_view method = methodName(call, source);
    if (method != "item" && method != "tolist" && method != "cpu") return;
    if (ts_node_named_child_count(argumentList(call)) != 0) return;
    TSNode loop = enclosingLoop(call);
    if (ts_node_is_null(loop) || !loopRunsTrainingStep(ctx.model(), loop)) return;
    if (underIntervalCondition(call, loop, source)) return;
    // A test's check, or a convergence test that needs the value on the host every step.
    if (insideAssertion(call, source) || decidesLoopExit(call, loop, source)) return;
    if (method == "cpu" && movesModule(call, source)) return;
    ctx.report(call, fmt::format("`.{}()` every step waits for the GPU; accumulate on the device and read it less often",
                                 method));
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL709, PerStepHostSync)

}  // namespace ptlint::rules
