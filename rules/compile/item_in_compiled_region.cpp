// PTL501 item-in-compiled-region: `.item()` / `.tolist()` inside code that torch.compile traces.
#include <array>
#include <string>

#include "analysis/compiled_regions.h"
#include "analysis/tensor_values.h"
#include "analysis/text_search.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/register.h"
#include "rules/compile/compiled_region_rule.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kItemInCompiledRegion{
    .code = "PTL501",
    .name = "item-in-compiled-region",
    .summary = "`.item()` or `.tolist()` inside a function compiled by `torch.compile`",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.0",
    .docs = R"md(
## What it does
Reports `Tensor.item()` and `Tensor.tolist()` calls inside code that `torch.compile` traces:

- functions decorated with `@torch.compile` or `@torch.compile(...)` (through any import or alias,
  e.g. `from torch import compile as tc`), or with a decorator listed in the
  `compile-decorators` setting;
- functions and bound methods passed to `torch.compile(fn)`, and the `forward` of a module
  class defined in the same file whose instance is passed to `torch.compile(model)`;
- the same through `torch._dynamo.optimize(backend)(fn)` and `@torch._dynamo.optimize(backend)`
  (still in PyTorch 2.14), `functools.partial(torch.compile, ...)` applied or bound to a name
  and then applied (`compiler = partial(torch.compile, mode=...)`, `compiler(fn)`, `@compiler`),
  and a function or method of the file that compiles its parameter (`def maybe_compile(m): return
  torch.compile(m)`, `self.encoder = self.maybe_compile(self.encoder)`): what each call of it in
  the file passes there, when the call's result is kept;
- transitively, every function and method of the same file that compiled code calls directly
  (`helper(x)`, `self.helper(x)`, `super().forward(x)`, `self.block(x)` for a module of the file,
  `model(x)` and `model.decode(x)` for a parameter annotated with a class, `model: Transformer`).

`torch.compile(model)` or `torch.compile(fn)` as a statement of its own compiles nothing that
runs: the compiled wrapper it returns is thrown away and `model(x)` stays eager (PyTorch 2.6 and
2.14 compile no frame); only `model.compile()` compiles in place.

Functions decorated with `torch.compiler.disable` or `torch._dynamo.disable` are not compiled, and
neither is what only they reach; so are those decorated with a project's own alias of them that
the analysis cannot follow but whose name says so (`@disable_compiler` for timm's
`disable_compiler = getattr(torch.compiler, "disable", None) or nullwrap`). `.item()` on the *result* of a compiled function, outside it,
is fine and not reported, and so is code that only runs eagerly because
`torch.compiler.is_compiling()` (2.3+; `torch._dynamo.is_compiling()` before) guards it:
`if not torch.compiler.is_compiling(): log(loss.item())`.

Across the files of a project (found from the file: the nearest folder holding
`pyproject.toml`, `setup.py`, `setup.cfg` or `.git`; without one, the script's own folder, which
`python train.py` puts on `sys.path`, and for a package the folder holding it, with the scripts
beside it), the same holds when the compile site is in
another file: `model = torch.compile(GPT(config))` or `model.compile()` in `train.py` compiles
`GPT.forward` in `model.py`, and from there the `forward` of the submodules `__init__` binds to
`self.<attr>` (also inside `nn.ModuleList`, `nn.Sequential` and `nn.ModuleDict`, called as
`self.<attr>(x)`, `self.<attr>[i](x)`, `self.<attr>["name"](x)`, `self.transformer.h` for a
`ModuleDict` element, or through `for block in self.<attr>` / `enumerate(...)` / `.values()` /
`.items()`; containers filled by `append` / `extend` in `__init__`; `A(...) if c else B(...)`;
each element compiled in a loop, `for block in model.blocks: block.compile()` or over
`self.blocks` in a method; the classes a loop over `model.modules()` picks with `isinstance`,
`if isinstance(m, Block): m.compile()`, also `or`-ed and imported), a
method or submodule of a submodule (`self.encoder.encode(x)`), and the functions imported from
other modules that compiled code calls. A helper or a partial defined in another module
compiles what the project's calls pass it (`from utils import maybe_compile`;
`maybe_compile(Encoder())`, `compiler(Decoder())` for `compiler = partial(torch.compile, ...)`,
`@maybe_compile` on a function), and a method of a class compiles what the class's own calls
pass it (`self.encoder = self.maybe_compile(self.encoder)` with `Encoder` from another file). Without a project marker, checked from the project's folder,
that folder is the import root (as `python -m` and the scripts run from it see it) and a module
in a subfolder without `__init__.py` is found from the scripts above it; a script's own folder
resolves its imports (`tools/bench.py` importing `tools/tiny.py` as `tiny`) with or without one.
What is compiled is followed through factories:
`torch.compile(build_model(cfg))`, `GPT.from_pretrained(...)` (what their `return`s build),
`create_model(name)` looking up a registry that a decorator fills (`@register_model`: every
registered factory counts), and a model handed to a constructor that compiles it
(`Trainer(UNet(), opt)` where `Trainer.__init__` does `self.model = torch.compile(model)`, or
compiles `self.model` later). Imports resolve from the project root and its `src/` folder,
relative imports and re-exports through `__init__.py` included. The finding's related
information names the calls and the compile site in the other files.

Only what can be resolved counts: a function reached through a parameter, a module whose class
the analysis cannot name, or a factory whose result it cannot follow is not followed.

## Why is this bad?
Reading a tensor's value into Python is a graph break by definition: Dynamo cannot
put a Python number into the graph, so it ends the graph before the call, runs the call eagerly
— which waits for the device to finish all queued work and copy the value to the host — and
starts a new graph after it. Each break costs the fusion across it, a device synchronisation
in every step, and often a recompilation when the value feeds control flow. Under
`fullgraph=True` the break is an error. `.tolist()` reads every element the same way.

PyTorch's own guide lists "direct tensor data accesses (`.item`, `.data_ptr`)" among the common
graph breaks (PyTorch 2.8 documentation). `torch.compile` exists since PyTorch 2.0;
`torch.compiler.disable` since 2.1.

`int(t)`, `float(t)` and `bool(t)` of a value known to be a tensor read it the same way (Dynamo
turns `int(t)` into `t.item()`: "Unsupported: Tensor.item" on PyTorch 2.6 and 2.14). A value
is known to be a tensor when it comes from a tensor-returning `torch` call (`torch.sum(x)`,
`torch.zeros(...)`, `F.mse_loss(...)`), a reduction method of any value (`x.sum()`, `x.mean()`,
`x.max()` without a dimension: Python numbers and lists have no such method, and a NumPy array
is traced as a tensor), a tensor method on a tensor (`(t > 0).float()`), arithmetic or a
comparison with one, or a parameter annotated `torch.Tensor`, every rebinding included;
`int(n)` of a Python number, `int(x.shape[0])`, `int(len(x))` and `float(x.numel())` are sizes,
not reads, and a bare parameter without annotation (`int(items)`) is not known to be a tensor.

When `torch._dynamo.config.capture_scalar_outputs` is on, Dynamo captures `.item()`, `int(t)`
and `float(t)` as symbolic scalars instead of breaking (`torch._dynamo.explain` counts no break
on PyTorch 2.6 and 2.14), and the rule stays silent on them; `bool(t)` still breaks (it guards
on the value). The setting is process-wide: it counts for the compiled code that a file which
may turn it on compiles or runs, and for that of a file importing a project module which may
turn it on (a script that calls `configure()` from its `settings.py`). A file may turn it on with
`torch._dynamo.config.capture_scalar_outputs = True` at module level, in a function or under a
condition (`if args.capture:`; a value the code computes, `= args.capture`, may be true),
`setattr(...)`, or the environment variable `TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS` set in code
(`os.environ[...] = "1"`, `os.environ.setdefault(...)`), which `torch/_dynamo/config.py` reads
when Dynamo is first imported (`os.environ.get(...) == "1"`; `import torch` alone does not import
it, so a setting after `import torch` and before the first compile holds). A test file
(`test_*.py`, `*_test.py`, `conftest.py`, pytest's names) that turns
it on does so in the test runner's process, which runs every test file: it counts for the
project's test files.
`torch._dynamo.config.patch(capture_scalar_outputs=True)`, as a context manager or a decorator,
only holds for what it wraps: it keeps the rule silent in its own file alone, and not even there
when what it wraps calls only torch's functions and builtins (it runs no compiled code).

## Example
```python
import torch

@torch.compile
def train_step(model, batch):
    loss = model(batch).mean()
    if loss.item() > 10.0:      # graph break + device sync every step
        loss = loss.clamp(max=10.0)
    return loss
```

## Use instead
Keep the computation on the tensor, and read values outside the compiled function:
```python
import torch

@torch.compile
def train_step(model, batch):
    loss = model(batch).mean()
    return torch.clamp(loss, max=10.0)

loss = train_step(model, batch)
print(loss.item())              # outside the compiled region
```
For logging inside compiled code, return the tensor and read it after the call, or move the
logging into a function decorated with `@torch.compiler.disable`.

## Fix safety
There is no fix: how to remove a data-dependent read (tensor operations, `torch.where`,
`torch.cond`, moving the read out of the compiled function) depends on what the value is for.

## Releases
`torch.compile` (`torch/__init__.py`) exists in 2.6 and 2.14, not in 1.13 (2.0's): compiled
regions exist from 2.0.

## References
- [Common graph breaks: data-dependent operations (PyTorch 2.8)](https://docs.pytorch.org/docs/stable/compile/programming_model.common_graph_breaks.html)
- [Use `fullgraph=True` to identify and eliminate graph breaks (PyTorch 2.8)](https://docs.pytorch.org/docs/stable/compile/programming_model.fullgraph_true.html)
- [`nn.Module.compile`: compiles the module's `forward` in place (PyTorch 2.2+)](https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.compile)
- [`torch.compiler.disable` (PyTorch 2.1+)](https://docs.pytorch.org/docs/stable/generated/torch.compiler.disable.html)
- [torch.compile troubleshooting](https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
)md"};

// `x.item()` / `x.tolist()` with no arguments: the method name, else empty.
std::string_view scalarReadMethod(TSNode call, std::string_view source) {
  TSNode callee = analysis::fieldOf(call, "function");
  if (!analysis::isKind(callee, kind::attribute)) return {};
  std::string_view method = analysis::textOf(analysis::fieldOf(callee, "attribute"), source);
  if (method != "item" && method != "tolist") return {};
  return analysis::hasNoArguments(call) ? method : std::string_view{};  // `x.item(y for y in z)` is not one
}

// `int(t)`, `float(t)`, `bool(t)` of a value known to be a tensor (Dynamo calls `t.item()` for
// them); the builtin's name, else empty.
std::string_view scalarConversion(const analysis::SemanticModel& model, TSNode call) {
  TSNode function = analysis::fieldOf(call, "function");
  if (!analysis::isKind(function, kind::identifier)) return {};
  std::string_view name = model.text(function);
  if (name != "int" && name != "float" && name != "bool") return {};
  if (model.resolve(name, function) != nullptr) return {};  // a shadowing definition
  TSNode args = analysis::fieldOf(call, "arguments");
  if (!analysis::isKind(args, kind::argument_list) || ts_node_named_child_count(args) != 1) return {};
  TSNode arg = ts_node_named_child(args, 0);
  if (analysis::isKind(arg, kind::keyword_argument) || !analysis::isProvablyTensor(model, arg)) return {};
  return name;
}

// A module this file imports (or, for a test file, the test run) may turn
// `capture_scalar_outputs` on for the process this file's code runs in.
bool capturedInProject(const Settings& settings) {
  return settings.project != nullptr && settings.project->scalarCaptureSetter() != nullptr;
}

// The methods and builtins this rule reports.
constexpr std::array<std::string_view, 5> kScalarReads{"item", "tolist", "int", "float", "bool"};

class ItemInCompiledRegion final : public CompiledRegionRule {
 public:
  const RuleMeta& meta() const override { return kItemInCompiledRegion; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }

  void check(TSNode call, Context& ctx) const override {
    std::string_view method = scalarReadMethod(call, ctx.source());
    std::string_view conversion = method.empty() ? scalarConversion(ctx.model(), call) : std::string_view{};
    if (method.empty() && conversion.empty()) return;
    // Built once per file, on the first candidate call.
    const auto& regions =
        analysis::CompiledRegions::of(ctx.model(), ctx.settings().compile_decorators, ctx.settings().project);
    // Captured as a symbolic scalar; `bool(t)` still breaks (a guard on a data-dependent value).
    if (conversion != "bool" && (regions.capturesScalarOutputs() || capturedInProject(ctx.settings()))) return;
    const auto* fn = compiledFunctionAt(call, ctx.model(), ctx.settings());
    if (fn == nullptr) return;
    // Compiled only from files that turn the capture on for their whole run.
    if (conversion != "bool" && fn->root != nullptr && fn->root->external != nullptr &&
        fn->root->external->captures_scalars)
      return;

    // `int(t)` reads the value as `t.item()` does.
    std::string what = method.empty() ? fmt::format("`{}()` of a tensor", conversion) : fmt::format("`.{}()`", method);
    std::string message =
        fn->caller == nullptr
            ? fmt::format("{} in compiled `{}` breaks the graph and waits for the device", what, fn->display_name)
            : fmt::format("{} in `{}`, which compiled `{}` calls, breaks the graph and waits for the device", what,
                          fn->display_name, fn->root->display_name);
    Diagnostic& d = ctx.report(call, std::move(message));
    addCompilePath(d, *fn);
  }

 protected:
  // Every finding is a call spelling `item`, `tolist` or a conversion builtin.
  std::vector<std::string_view> findingWords() const override { return {kScalarReads.begin(), kScalarReads.end()}; }
  bool mayHoldFinding(const analysis::ParsedFile& file) const override {
    for (std::string_view word : kScalarReads)
      if (analysis::findBytes(file.text(), word) != std::string_view::npos) return true;
    return false;
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL501, ItemInCompiledRegion)

}  // namespace ptlint::rules
