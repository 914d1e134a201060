// PTL108 checkpoint-use-reentrant: activation checkpointing without an explicit `use_reentrant=`.
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/helpers.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kCheckpointUseReentrant{
    .code = "PTL108",
    .name = "checkpoint-use-reentrant",
    .summary = "`torch.utils.checkpoint` without an explicit `use_reentrant=`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.13",
    .docs = R"md(
## What it does
Reports calls of `torch.utils.checkpoint.checkpoint` and
`torch.utils.checkpoint.checkpoint_sequential` (through any import or alias) that do not pass
`use_reentrant=`. A call that passes `**kwargs` is not reported (it may be in them).

## Why is this bad?
The two checkpointing implementations behave differently, and which one runs depends on a
default PyTorch has announced it will change. The reentrant variant (the historical default)
does not support `torch.autograd.grad`, ignores inputs that do not require grad (gradients of
the checkpointed segment are silently `None` when no input requires grad) and does not support
keyword arguments to the checkpointed function; the non-reentrant variant has none of these
limits. PyTorch warns when the argument is missing ("the use_reentrant parameter should be
passed explicitly ... use_reentrant=False is recommended") and has announced that a later
release raises an exception instead.

## Example
```python
from torch.utils.checkpoint import checkpoint

out = checkpoint(block, x)
```

## Use instead
```python
out = checkpoint(block, x, use_reentrant=False)
```

## Fix safety
The fix adds `use_reentrant=False` and is unsafe: it switches to the non-reentrant
implementation. Where no input of the segment requires grad, the reentrant variant gave the
segment's parameters no gradient and the non-reentrant one gives them one, so training
changes; the non-reentrant variant also checks that the recomputed tensors have the same
metadata as in the forward pass and raises when they do not. Pass `use_reentrant=True`
instead to keep the old behaviour.

## PyTorch releases
Judged at the oldest release of `torch-version`. `checkpoint(..., use_reentrant=)` is in 1.13's
`torch/utils/checkpoint.py` (the oldest release read; a range starting earlier is not reported). 1.13's
`checkpoint_sequential(functions, segments, input, **kwargs)` raises
`ValueError: Unexpected keyword arguments: use_reentrant`; 2.6 and 2.14 take
`use_reentrant=None`. Its calls are reported only when the range starts at 2.1 or later (the
first release known to take the argument; a range starting at 2.0 stays silent).

## Releases
`torch/utils/checkpoint.py`: `checkpoint(..., use_reentrant=)` in 1.13, 2.6 and 2.14 (warns when
omitted from 2.x); `checkpoint_sequential` takes `use_reentrant=` from 2.1 (1.13's raises
"Unexpected keyword arguments"). Reported only where the range's oldest release takes the
argument.

## References
- [torch.utils.checkpoint](https://pytorch.org/docs/stable/checkpoint.html)
- [torch/utils/checkpoint.py](https://github.com/pytorch/pytorch/blob/main/torch/utils/checkpoint.py)
)md"};

class CheckpointUseReentrant final : public Rule {
 public:
  const RuleMeta& meta() const override { return kCheckpointUseReentrant; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Every use names `checkpoint` and torch's `utils` module in code (mayReport: how).
  Prefilter prefilter() const override {
    return {.words = {"checkpoint"}, .whole_words = true, .also = {{"utils"}}, .words_in_code = true};
  }

  // A qualified name `torch.utils.checkpoint.*` is spelled segment by segment, so some `utils` in
  // code is followed by `.checkpoint`, or ends a dotted name, or is imported by name (`from torch
  // import utils as u`). ML code's many `utils.data`, `from .utils import` are neither.
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    const std::string* code = input.source.code();
    return code == nullptr || namesTorchUtils(*code);
  }

  static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\'; }

  static bool namesTorchUtils(std::string_view code) {
    constexpr std::string_view kUtils = "utils";
    auto wordBefore = [&](size_t end) {  // the identifier ending at `end`
      size_t start = end;
      while (start > 0 && analysis::isIdentifierByte(code[start - 1])) --start;
      return code.substr(start, end - start);
    };
    for (size_t at = code.find(kUtils); at != std::string_view::npos; at = code.find(kUtils, at + 1)) {
      size_t end = at + kUtils.size();
      if ((at > 0 && analysis::isIdentifierByte(code[at - 1])) || (end < code.size() && analysis::isIdentifierByte(code[end])))
        continue;
      size_t next = end;
      while (next < code.size() && isSpace(code[next])) ++next;
      if (next < code.size() && code[next] == '.') {
        ++next;
        while (next < code.size() && isSpace(code[next])) ++next;
        if (code.substr(next).starts_with("checkpoint")) return true;
        continue;  // `utils.data`
      }
      size_t word_end = next;
      while (word_end < code.size() && analysis::isIdentifierByte(code[word_end])) ++word_end;
      std::string_view next_word = code.substr(next, word_end - next);
      size_t before = at;
      while (before > 0 && isSpace(code[before - 1])) --before;
      if (before == 0) continue;
      char c = code[before - 1];
      if (c == ',' || c == '(' || wordBefore(before) == "import") return true;  // imported by name
      if (c != '.') continue;
      --before;
      while (before > 0 && isSpace(code[before - 1])) --before;
      // `from torch.utils import checkpoint`; `import torch.utils as tu`, `tu = t.utils`.
      if (next_word != "import" || wordBefore(before) == "torch") return true;
    }
    return false;
  }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = fieldOf(call, "function");
    if (ctx.text(callee).find("checkpoint") == std::string_view::npos &&
        !analysis::isKind(callee, kind::identifier))
      return;
    auto q = ctx.model().qualifiedName(callee);
    if (!q) return;
    bool sequential = *q == "torch.utils.checkpoint.checkpoint_sequential";
    if (!sequential && *q != "torch.utils.checkpoint.checkpoint") return;
    if (!ts_node_is_null(keywordArgumentNode(call, "use_reentrant", ctx.source())) || hasDoubleStarArguments(call))
      return;
    // Where the range's oldest release does not take the argument, passing it raises there.
    if (!releases::existsAt(sequential ? "torch.utils.checkpoint.checkpoint_sequential(use_reentrant=)"
                                       : "torch.utils.checkpoint.checkpoint(use_reentrant=)",
                            ctx.settings().torch_version))
      return;
    Diagnostic& d = ctx.report(call, "`" + std::string(sequential ? "checkpoint_sequential" : "checkpoint") +
                                         "` without `use_reentrant=` warns; pass `use_reentrant=False`" +
                                         versions::judgedFor(ctx.settings()));
    d.help = "Or `use_reentrant=True` to keep the reentrant variant; PyTorch recommends `False`.";
    if (!ts_node_is_null(argumentList(call)))
      d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Add `use_reentrant=False`",
                            {appendArgument(call, "use_reentrant=False", ctx.source())}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL108, CheckpointUseReentrant)

}  // namespace ptlint::rules
