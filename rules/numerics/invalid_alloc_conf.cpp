// PTL705 invalid-alloc-conf: a `PYTORCH_CUDA_ALLOC_CONF` value set in code that the CUDA caching
// allocator rejects.
#include "analysis/env_check.h"
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr std::string_view kVariable = "PYTORCH_CUDA_ALLOC_CONF";

constexpr RuleMeta kInvalidAllocConf{
    .code = "PTL705",
    .name = "invalid-alloc-conf",
    .summary = "`PYTORCH_CUDA_ALLOC_CONF` set in code with an unknown option or a bad value",
    .fix = FixAvailability::None,
    .severity = Severity::Error,
    .enabled_by_default = true,
    .since_torch = "1.10",
    .docs = R"md(
## What it does
Reports a `PYTORCH_CUDA_ALLOC_CONF` value set in code — `os.environ["PYTORCH_CUDA_ALLOC_CONF"] =
"..."`, `os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "...")`, `os.putenv(...)`, through
any import form of `os` — whose string (a literal, or a name bound once to one) the CUDA caching
allocator rejects: an unknown option (`expandable_segment:True`), or a bad value
(`max_split_size_mb:10`, `garbage_collection_threshold:1.5`, `roundup_power2_divisions:3`,
`backend:async`, `expandable_segments:yes`). It is the same checker as `ptlint doctor` applies
to the environment. Values built at run time (f-strings, concatenations) are not checked.

Not covered: the newer `PYTORCH_ALLOC_CONF` spelling (read by recent PyTorch releases before
`PYTORCH_CUDA_ALLOC_CONF`), and a setting placed after the first CUDA allocation of the process
— which versions read the variable where could not be pinned down from PyTorch's sources, so
the rule says nothing about either.

## Why is this bad?
The allocator parses the variable when CUDA allocates memory for the first time and stops on
anything it does not understand: in `c10/cuda/CUDACachingAllocator.cpp`,
`TORCH_CHECK(false, "Unrecognized CachingAllocator option: ", ...)`, and a `TORCH_CHECK` per
value (`max_split_size_mb` must be above 20, the garbage-collection threshold strictly between 0
and 1, `roundup_power2_divisions` a power of two, `expandable_segments` `True` or `False`). The
script imports, builds its data pipeline, and fails with a `RuntimeError` at the first tensor
moved to the GPU.

## Example
```python
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segment:True"
```

## Use instead
```python
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
```

## Fix safety
There is no fix: the intended option cannot be guessed with certainty.

## References
- [CUDA semantics: optimizing memory usage with `PYTORCH_CUDA_ALLOC_CONF`](https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)
- [`c10/cuda/CUDACachingAllocator.cpp` / `CUDAAllocatorConfig.cpp`: the option parser](https://github.com/pytorch/pytorch/blob/v2.6.0/c10/cuda/CUDAAllocatorConfig.cpp)
)md"};

class InvalidAllocConf final : public Rule {
 public:
  const RuleMeta& meta() const override { return kInvalidAllocConf; }
  std::vector<std::string_view> nodeKinds() const override { return {"assignment", "call"}; }
  std::vector<std::string_view> triggers() const override { return {kVariable}; }
  bool triggersAreWholeWords() const override { return true; }

  void check(TSNode node, Context& ctx) const override {
    const auto& model = ctx.model();
    TSNode value{};
    if (isKind(node, "assignment")) {
      TSNode left = fieldOf(node, "left");
      if (!isKind(left, "subscript")) return;
      if (!model.refersTo(fieldOf(left, "value"), "os.environ")) return;
      if (stringValue(model, fieldOf(left, "subscript")) != kVariable) return;
      value = fieldOf(node, "right");
    } else {
      auto callee = model.calleeName(node);
      if (!callee || (*callee != "os.environ.setdefault" && *callee != "os.putenv")) return;
      auto positional = positionalArguments(node);
      if (positional.size() != 2 || stringValue(model, positional[0]) != kVariable) return;
      value = positional[1];
    }
    auto text = stringValue(model, value);
    if (!text) return;
    auto report = env_check::checkAllocConf(*text);
    for (const auto& finding : report.findings) {
      if (finding.level != env_check::Level::Error) continue;
      ctx.report(value, fmt::format("`PYTORCH_CUDA_ALLOC_CONF`: {}; the CUDA caching allocator raises "
                                    "`RuntimeError` at the first allocation",
                                    finding.message));
      return;
    }
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL705, InvalidAllocConf)

}  // namespace ptlint::rules
