// PTL902 recompile: the functions a real run of torch.compile compiled again, with the guards
// that failed (read by workspace/compile_log.h; only with `--compile-log` or `compileLog`).
#include "rules/register.h"
#include "rules/compile/runtime_report.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kRecompile{
    .code = "PTL902",
    .name = "recompile",
    .summary = "torch.compile compiled this function again in a real run (from its log)",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = false,  // on whenever a compile log is given
    .since_torch = "2.4",
    .docs = R"md(
## What it does
Reads what a real run of `torch.compile` logged (see PTL901 for the formats and the path mapping)
and reports each function that was compiled again: how many times, the guards whose failure
caused it (`tensor 'x' size mismatch at index 0. expected 2, actual 3`, `L['k'] == 0`, ...), and
whether the run hit the recompile limit (`torch._dynamo hit config.recompile_limit`, after which
the function runs eagerly). The finding goes on the line that installed the failing guard when
the structured trace records it (the guard's source comment in the trace's guard dump of the
same compile id), else on the function's `def`. The message names the log and the compile ids.

## Why is this bad?
Dynamo specialises a compiled function on what its guards check (shapes, dtypes, Python
constants, global state). Each failure compiles the function again — seconds to minutes each —
and after `recompile_limit` (8 by default) recompiles of one function, Dynamo stops and runs it
eagerly for the rest of the run: the speed-up is silently gone. The guard says what changed.

## Example
```python
@torch.compile(dynamic=False)
def shift(x, k):       # PTL902: recompiled 7 times; failing guard: L['k'] == 0, ...
    return x + k

for k in range(12):
    shift(x, k)
```

## Use instead
```python
@torch.compile(dynamic=False)
def shift(x, k):
    return x + k

for k in range(12):
    shift(x, torch.tensor(k))   # a tensor input: one graph for every value
```
For shapes, mark the dimension dynamic (`torch._dynamo.mark_dynamic(x, 0)`) or compile with
`dynamic=True`.

## Fix safety
There is no fix.

## Versions
`Recompiling function ... triggered by the following guard failure(s)` is the text of 2.4 to
2.14; the trace's `recompile_reasons` artifact is a JSON list of reasons in 2.6 and a single string
when there is one reason in 2.14 (both are read).

## Releases
The recompile log (`TORCH_LOGS=recompiles`, registered in `torch/_logging/_registrations.py`)
exists in 2.6 and 2.14, not in 1.13; logs recorded under 2.6 and 2.14 are read.

## References
- [`torch/_dynamo/guards.py` (2.6): `get_and_maybe_log_recompilation_reason`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/guards.py)
- [torch.compile troubleshooting: recompilation](https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
)md"};

}  // namespace

PTLINT_REGISTER_RULE(PTL902, RuntimeFindingsRule, kRecompile, RuntimeFinding::Kind::Recompile)

}  // namespace ptlint::rules
