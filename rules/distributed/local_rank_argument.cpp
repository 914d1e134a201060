// PTL303 local-rank-argument: an argparse `--local_rank` option without the `--local-rank`
// spelling the launcher passes since PyTorch 2.0.
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kLocalRankArgument{
    .code = "PTL303",
    .name = "local-rank-argument",
    .summary = "`--local_rank` option without the `--local-rank` spelling the launcher passes",
    .fix = FixAvailability::Always,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports `add_argument("--local_rank", ...)` (an `argparse` parser or argument group) that does
not also accept `--local-rank`, in a file that reads the value (`args.local_rank`), when the
configured `torch-version` range includes PyTorch 2.0 or later.

## Why is this bad?
`python -m torch.distributed.launch` passes the local rank to each process as a command-line
argument. Up to PyTorch 1.13 it passed `--local_rank=<rank>`; from 2.0 it passes
`--local-rank=<rank>` (`torch/distributed/run.py`: `cmd_args.append(f"--local-rank={...}")`).
A parser that knows only `--local_rank` then stops with "error: unrecognized arguments:
--local-rank=0" (or, with `parse_known_args`, silently leaves every process on rank 0's
default). `torchrun` passes neither and sets the `LOCAL_RANK` environment variable.

## Example
```python
parser.add_argument("--local_rank", type=int, default=0)
args = parser.parse_args()
torch.cuda.set_device(args.local_rank)
```

## Use instead
```python
parser.add_argument("--local-rank", "--local_rank", type=int, default=0)
```
or read `int(os.environ["LOCAL_RANK"])` and launch with `torchrun`.

## Fix safety
The fix adds `"--local-rank"` before `"--local_rank"` and is safe: `argparse` derives the
destination `local_rank` from either spelling (dashes become underscores), so `args.local_rank`
is unchanged, and the old spelling keeps working for 1.13's launcher.

## PyTorch versions
The dashed argument is passed from PyTorch 2.0 (`torch/distributed/launch.py` and `run.py`
docs: "From PyTorch 2.0.0 onwards, the dashed `--local-rank` is preferred"); 1.13's launcher
passes `--local_rank`. The rule is silent when the whole range lies below 2.0.

## Releases
`torch/distributed/run.py`: 2.6 and 2.14 pass `--local-rank` to `torch.distributed.launch`
scripts; 1.13's launcher passes `--local_rank` (the dashed spelling is 2.0's): reported where the
range includes 2.0 or later.

## References
- [torch/distributed/run.py](https://github.com/pytorch/pytorch/blob/main/torch/distributed/run.py) (`get_use_env`, the `--local-rank` argument)
- [torch.distributed.launch (PyTorch docs)](https://pytorch.org/docs/stable/distributed.html#launch-utility)
)md"};

// The string literal arguments of a call, with their contents.
bool stringArgument(TSNode arg, std::string_view source, std::string& content) {
  auto s = stringLiteral(arg, source);
  if (!s) return false;
  content = *s;
  return true;
}

class LocalRankArgument final : public Rule {
 public:
  const RuleMeta& meta() const override { return kLocalRankArgument; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"--local_rank"},
            .also = {{"add_argument"}},
            .range_reaches = versions::addedIn(versions::kLaunchDashedLocalRank)};
  }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = fieldOf(call, "function");
    if (!isKind(callee, kind::attribute) || ctx.text(fieldOf(callee, "attribute")) != "add_argument") return;
    if (!versions::rangeIncludesFrom(ctx.settings(), versions::addedIn(versions::kLaunchDashedLocalRank))) return;
    TSNode underscored{};
    bool dashed = false;
    for (TSNode arg : positionalArguments(call)) {
      std::string content;
      if (!stringArgument(arg, ctx.source(), content)) continue;
      if (content == "--local_rank") underscored = arg;
      if (content == "--local-rank") dashed = true;
    }
    if (ts_node_is_null(underscored) || dashed) return;
    if (hasStarArguments(call)) return;
    // The value is read somewhere: `args.local_rank`, `getattr(args, "local_rank")`, `vars(args)["local_rank"]`.
    if (!readsLocalRank(ctx)) return;
    std::string_view literal = ctx.text(underscored);
    std::string quote(1, literal.back());
    std::string prefix;
    for (char c : literal) {
      if (c == '"' || c == '\'') break;
      prefix += c;  // a raw or unicode prefix, kept
    }
    Diagnostic& d = ctx.report(call, "`--local_rank` without `--local-rank`; accept both spellings" +
                                         versions::judgedFor(ctx.settings()));
    d.help = "The launcher passes `--local-rank`.";
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Add the `--local-rank` spelling",
                          {{startOf(underscored), startOf(underscored), prefix + quote + "--local-rank" + quote + ", "}}};
  }

 private:
  static bool readsLocalRank(const Context& ctx) {
    std::string_view text = ctx.source();
    bool found = false;
    analysis::forEachWholeWord(text, "local_rank", [&](size_t at) {
      // `.local_rank` (an attribute) or `"local_rank"` / `'local_rank'` (a key or getattr name).
      char before = at > 0 ? text[at - 1] : '\0';
      char after = at + 10 < text.size() ? text[at + 10] : '\0';
      if (before == '.' || ((before == '"' || before == '\'') && after == before)) found = true;
      return found;
    });
    return found;
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL303, LocalRankArgument)

}  // namespace ptlint::rules
