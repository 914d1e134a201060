// PTL503 raised-recompile-limit: Dynamo's per-function recompile limit raised above its default.
#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr long long kDefaultLimit = 8;

constexpr RuleMeta kRaisedRecompileLimit{
    .code = "PTL503",
    .name = "raised-recompile-limit",
    .summary = "Dynamo's recompile limit raised above its default of 8",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports an integer larger than 8 given to `torch._dynamo.config.recompile_limit` or to its
older name `cache_size_limit`: assigned (`torch._dynamo.config.cache_size_limit = 64`, any
import or alias of the config module, a name bound once to the value) or passed to
`torch._dynamo.config.patch(recompile_limit=64)` / `patch("cache_size_limit", 64)`. Values the
analysis cannot resolve are not reported.

## Why is this bad?
Dynamo compiles a function again each time its guards fail (a new shape, a new Python value, a
changed attribute) and keeps up to this many versions per code object; the default is 8
(`cache_size_limit = 8` in `torch/_dynamo/config.py`, renamed `recompile_limit` in 2.7). Hitting
the limit means the function recompiled 8 times — usually because something that varies every
step is baked into the graph (a Python scalar such as a learning rate or step counter, a varying
shape without `dynamic=True`). Raising the limit hides that recompile storm: each new value
costs a full compilation, seconds to minutes, instead of the fallback to eager that the limit
triggers. PyTorch's guide on recompilations recommends finding the cause with
`TORCH_LOGS=recompiles` instead.

## Example
```python
import torch._dynamo

torch._dynamo.config.cache_size_limit = 64
```

## Use instead
Run once with `TORCH_LOGS=recompiles` to see which guard fails, then remove the cause: mark
the varying dimension dynamic (`torch._dynamo.mark_dynamic`, `dynamic=True`), pass varying
scalars as tensors, or keep Python state out of the compiled function.

## Fix safety
There is no fix: the cause of the recompilations has to be found first.

## Releases
`torch/_dynamo/config.py`: the recompile limit (`cache_size_limit`, `recompile_limit` from 2.7)
defaults to 8 in 2.6 and 2.14; no `torch._dynamo` in 1.13.

## References
- [`torch/_dynamo/config.py`: `recompile_limit` / `cache_size_limit`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/config.py)
- [Dealing with recompilations (PyTorch docs)](https://docs.pytorch.org/docs/stable/compile/programming_model.recompilation.html)
)md"};

bool isLimitName(std::string_view name) { return name == "recompile_limit" || name == "cache_size_limit"; }

class RaisedRecompileLimit final : public Rule {
 public:
  const RuleMeta& meta() const override { return kRaisedRecompileLimit; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::assignment, kind::call}; }
  // The same names in the code without strings and comments, then in the tree:
  // `config.patch("cache_size_limit", 64)` names it in a string only.
  Prefilter prefilter() const override {
    return {.words = {"recompile_limit", "cache_size_limit"},
            .whole_words = true,
            .code_names = {{"recompile_limit", "cache_size_limit", "patch"}},
            .tree_names = {{"recompile_limit", "cache_size_limit", "patch"}}};
  }

  void check(TSNode node, Context& ctx) const override {
    const auto& model = ctx.model();
    std::string_view source = ctx.source();
    if (isKind(node, kind::assignment)) {
      TSNode left = fieldOf(node, "left");
      if (!isKind(left, kind::attribute)) return;
      std::string_view name = ctx.text(fieldOf(left, "attribute"));
      if (!isLimitName(name)) return;
      if (!model.refersTo(left, fmt::format("torch._dynamo.config.{}", name))) return;
      report(ctx, node, name, fieldOf(node, "right"));
      return;
    }
    auto callee = model.calleeName(node);
    if (!callee || *callee != "torch._dynamo.config.patch") return;
    for (std::string_view name : {"recompile_limit", "cache_size_limit"}) {
      TSNode value = keywordArgument(node, name, source);
      if (!ts_node_is_null(value)) report(ctx, node, name, value);
    }
    auto positional = positionalArguments(node);
    if (positional.size() == 2 && isKind(positional[0], kind::string)) {
      std::string_view text = ctx.text(positional[0]);
      for (std::string_view name : {"recompile_limit", "cache_size_limit"})
        if (text == fmt::format("\"{}\"", name) || text == fmt::format("'{}'", name)) report(ctx, node, name, positional[1]);
    }
  }

 private:
  static void report(Context& ctx, TSNode node, std::string_view name, TSNode value) {
    auto limit = integerLiteral(analysis::resolveValue(ctx.model(), value), ctx.source());
    if (!limit || *limit <= kDefaultLimit) return;
    Diagnostic& d = ctx.report(node, fmt::format("Raising `{}` to {} hides recompiles; find them with `TORCH_LOGS=recompiles`",
                                                 name, *limit));
    d.help = fmt::format("The default is {}: a function recompiled more often has a cause worth fixing.", kDefaultLimit);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL503, RaisedRecompileLimit)

}  // namespace ptlint::rules
