// PTL710 empty-cache-in-loop: `torch.cuda.empty_cache()` on every iteration of a training or
// inference loop.
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/common/training_loops.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kEmptyCacheInLoop{
    .code = "PTL710",
    .name = "empty-cache-in-loop",
    .summary = "`torch.cuda.empty_cache()` on every iteration of a training or inference loop",
    .fix = FixAvailability::None,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.cuda.empty_cache()` (any import or alias) called unconditionally in the body of a
loop that runs a training step (it calls `.backward()` or steps an optimizer) or iterates a
data loader (`for batch in loader`, `enumerate(train_dataloader)`, `tqdm(val_loader)`). A call
under an `if` inside the loop, or in a loop over other things (models, files), is not reported.
Off by default: it is information.

## Why is this bad?
PyTorch's caching allocator keeps freed blocks to serve the next allocations of the same sizes
without calling `cudaMalloc`. `empty_cache()` releases every unused cached block to the driver
(`torch/cuda/memory.py`, 2.14: it "Release[s] all unoccupied cached memory currently held by
the caching allocator so that those can be used in other GPU application"), so the next step
allocates them again with synchronous `cudaMalloc` calls: each iteration pays the allocation
cost the cache exists to avoid. The same docstring: "`empty_cache` doesn't increase the amount
of GPU memory available for PyTorch".

## Example
```python
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()
```

## Use instead
Remove the call, or call it once outside the loop (after evaluation, before handing the device to
another process).

## Fix safety
There is no fix.

## Releases
`torch/cuda/memory.py`: `empty_cache` in 1.13, 2.6 and 2.14; the premise holds 1.13–2.14.

## References
- [CUDA semantics: memory management](https://docs.pytorch.org/docs/stable/notes/cuda.html#memory-management)
- [`torch.cuda.empty_cache`](https://docs.pytorch.org/docs/stable/generated/torch.cuda.empty_cache.html)
)md"};

bool iteratesLoader(TSNode loop, std::string_view source) {
  if (!isKind(loop, kind::for_statement)) return false;
  std::string text(analysis::textOf(fieldOf(loop, "right"), source));
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text.find("loader") != std::string::npos;
}

class EmptyCacheInLoop final : public Rule {
 public:
  const RuleMeta& meta() const override { return kEmptyCacheInLoop; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"empty_cache"}, .whole_words = true}; }
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    return wordRanges(model.file().text(), {"empty_cache"});
  }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = fieldOf(call, "function");
    if (!isKind(callee, kind::attribute) || ctx.text(fieldOf(callee, "attribute")) != "empty_cache") return;
    if (!ctx.model().refersTo(callee, "torch.cuda.empty_cache")) return;
    TSNode loop = enclosingLoop(call);
    if (ts_node_is_null(loop) || conditionalWithinLoop(call, loop)) return;
    if (!loopRunsTrainingStep(ctx.model(), loop) && !iteratesLoader(loop, ctx.source())) return;
    ctx.report(call, "`torch.cuda.empty_cache()` in a loop makes every step allocate again; call it outside the loop");
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL710, EmptyCacheInLoop)

}  // namespace ptlint::rules
