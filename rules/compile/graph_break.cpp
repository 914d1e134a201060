// PTL901 graph-break: the graph breaks a real run of torch.compile logged, on the user lines the
// log names (read by workspace/compile_log.h; only with `--compile-log` or `compileLog`).
#include "rules/register.h"
#include "rules/compile/runtime_report.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kGraphBreak{
    .code = "PTL901",
    .name = "graph-break",
    .summary = "torch.compile broke the graph here in a real run (from its log)",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = false,  // on whenever a compile log is given
    .since_torch = "2.4",
    .docs = R"md(
## What it does
Reads what a real run of `torch.compile` logged — a text log written with
`TORCH_LOGS="graph_breaks,recompiles"`, or the structured trace written with `TORCH_TRACE`
(the one `tlparse` reads) — and reports each distinct graph break on the user line the log names,
with its reason, its `gb_type` (PyTorch 2.7 and later) and the graph-break registry id and
documentation link where the release writes them. A break logged several times (in a loop, per
rank, per recompile) is one finding with a count. The message names the log and the compile id
(`[frame/compile]`, as the log prints it) it came from.

It runs only when a log is given: `ptlint check --compile-log PATH`, or the editor setting
`compileLog`. Paths in the log (absolute paths of the machine that ran) are mapped to the checked
files by their longest common suffix; frames inside PyTorch itself, generated code
(`<eval_with_key>`), Dynamo's resume functions (`torch_dynamo_resume_in_*`, reported at the real
user line) and notebook cells are skipped.

When a static rule (PTL501 `.item()`, PTL502 `print` and other calls, PTL504 data-dependent
branches) reports the same line, both findings say so ("confirmed by the run"); a break the
static analysis missed says that instead.

## Why is this bad?
A graph break ends the FX graph being traced: the code before it and after it become separate
graphs, with the Python in between run eagerly, and each graph boundary costs a round trip
through the Python interpreter and loses the fusion across it. Dynamo's own log is the ground
truth for where this happens, but it lists absolute paths of the machine that ran and repeats
itself per rank and per recompile; read on the source line, the cause is usually plain.

## Example
```python
@torch.compile
def scale(x):
    s = x.sum().item()   # PTL901: Tensor.item() (gb_type "Unsupported Tensor.item() call ...")
    return x / s
```

## Use instead
```python
@torch.compile
def scale(x):
    return x / x.sum()   # stays a tensor: no break
```
For breaks that cannot be avoided, move the code out of the compiled function or mark it with
`torch.compiler.disable`.

## Fix safety
There is no fix: the log says where the graph broke, not how the code should read.

## Versions
The text and trace formats of PyTorch 2.4 through 2.14 are read (the reason is written after
`Reason:` up to 2.6 and after `Graph Break Reason:` from 2.7, which also heads it with a
`gb_type`; the registry id and link come with the releases that ship
`torch/_dynamo/graph_break_registry.json`). A log in a shape none of these writes is read on a
best-effort basis, and ptlint says so.

## Releases
The graph-break log (`TORCH_LOGS=graph_breaks`, registered in `torch/_logging/_registrations.py`)
exists in 2.6 and 2.14, not in 1.13; logs recorded under 2.6 and 2.14 are read.

## References
- [`torch/_dynamo/symbolic_convert.py` (2.6): `log_graph_break`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/symbolic_convert.py)
- [torch.compile troubleshooting: graph breaks](https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
- [tlparse, the reader of `TORCH_TRACE` traces](https://github.com/pytorch/tlparse)
)md"};

}  // namespace

PTLINT_REGISTER_RULE(PTL901, RuntimeFindingsRule, kGraphBreak, RuntimeFinding::Kind::GraphBreak)

}  // namespace ptlint::rules
