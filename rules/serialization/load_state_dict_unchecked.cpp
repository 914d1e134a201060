// PTL803 load-state-dict-unchecked: `m.load_state_dict(sd, strict=False)` whose missing and
// unexpected keys are thrown away.
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kLoadStateDictUnchecked{
    .code = "PTL803",
    .name = "load-state-dict-unchecked",
    .summary = "`load_state_dict(..., strict=False)` with its missing and unexpected keys discarded",
    .fix = FixAvailability::None,
    .severity = Severity::Information,
    .enabled_by_default = false,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `m.load_state_dict(state_dict, strict=False)` (keyword or second positional argument,
literally `False` or a name bound once to it) written as a statement, so that the result —
the missing and unexpected keys — is discarded. Assigning, returning, logging or testing the
result is not reported. Off by default: loading part of a checkpoint on purpose (a backbone
into a larger model) is common, and the finding is information.

## Why is this bad?
With `strict=False`, `nn.Module.load_state_dict` loads the keys that match and silently skips
the rest; it returns `NamedTuple` `(missing_keys, unexpected_keys)` for the caller to check
(`torch/nn/modules/module.py`, PyTorch 1.13 to 2.14). A checkpoint whose keys carry a
`module.` or `_orig_mod.` prefix, or come from a renamed layer, then loads nothing at all and
the model keeps its random initialisation without any error.

## Example
```python
model.load_state_dict(torch.load(path), strict=False)
```

## Use instead
```python
result = model.load_state_dict(torch.load(path), strict=False)
if result.missing_keys or result.unexpected_keys:
    logger.warning("partial load: %s", result)
```

## Fix safety
There is no fix: what to do with the keys is the author's decision.

## Releases
`Module.load_state_dict` returns the missing and unexpected keys (`_IncompatibleKeys`,
`torch/nn/modules/module.py`) in 1.13, 2.6 and 2.14: the premise holds 1.13–2.14.

## References
- [`torch.nn.Module.load_state_dict`](https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.load_state_dict)
)md"};

class LoadStateDictUnchecked final : public Rule {
 public:
  const RuleMeta& meta() const override { return kLoadStateDictUnchecked; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"load_state_dict"}, .whole_words = true, .also = {{"strict"}}};
  }
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    return wordRanges(model.file().text(), {"load_state_dict"});
  }

  void check(TSNode call, Context& ctx) const override {
    std::string_view source = ctx.source();
    if (methodName(call, source) != "load_state_dict") return;
    TSNode parent = ts_node_parent(call);
    if (!isKind(parent, kind::expression_statement) || ts_node_named_child_count(parent) != 1) return;
    if (hasDoubleStarArguments(call) || hasStarArguments(call)) return;
    TSNode strict = analysis::argumentFor(call, 1, "strict", source);
    if (ts_node_is_null(strict) || boolValue(ctx.model(), strict) != false) return;
    ctx.report(call, "`load_state_dict(..., strict=False)` result discarded; check its missing and unexpected keys");
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL803, LoadStateDictUnchecked)

}  // namespace ptlint::rules
