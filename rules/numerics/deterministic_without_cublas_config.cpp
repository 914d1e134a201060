// PTL702 deterministic-without-cublas-config: `torch.use_deterministic_algorithms(True)` when
// nothing in the project sets CUBLAS_WORKSPACE_CONFIG.
#include "analysis/module_summary.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::isKind;

constexpr RuleMeta kDeterministicWithoutCublasConfig{
    .code = "PTL702",
    .name = "deterministic-without-cublas-config",
    .summary = "`use_deterministic_algorithms(True)` without `CUBLAS_WORKSPACE_CONFIG`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.8",
    .docs = R"md(
## What it does
Reports `torch.use_deterministic_algorithms(True)` (also `mode=True` or a name bound once to
`True`; any import or alias) when nothing in the project sets `CUBLAS_WORKSPACE_CONFIG`: the
file itself does not mention it anywhere (no `os.environ[...] = ...`,
`os.environ.setdefault(...)`, `os.environ.update(...)`, `os.putenv(...)`, nor even a read of
it), and no other Python file or notebook of the project (the folder holding `pyproject.toml`,
`setup.py`, `setup.cfg` or `.git` above the file) sets it in code with one of those forms — a
utility module `seed_everything()` that sets it counts. A variable set only in a launcher
script, a `Dockerfile` or the shell is not seen: suppress the finding there with
`# noqa: PTL702`.

## Why is this bad?
cuBLAS is only deterministic with a fixed workspace configuration. The documentation of
`torch.use_deterministic_algorithms` (`torch/__init__.py`): "A handful of CUDA operations are
nondeterministic if the CUDA version is 10.2 or greater, unless the environment variable
`CUBLAS_WORKSPACE_CONFIG=:4096:8` or `CUBLAS_WORKSPACE_CONFIG=:16:8` is set. [...] If one of
these environment variable configurations is not set, a `RuntimeError` will be raised from
these operations when called with CUDA tensors" — `torch.mm`, `torch.bmm`, `nn.Linear` and the
rest of the matrix products, so the first forward pass on the GPU fails. With
`warn_only=True` it warns instead, and those operations stay nondeterministic.

## Example
```python
import torch

torch.use_deterministic_algorithms(True)
```

## Use instead
```python
import os

import torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
torch.use_deterministic_algorithms(True)
```
Setting it in the environment of the process (`CUBLAS_WORKSPACE_CONFIG=:4096:8 python train.py`)
is better still: cuBLAS reads it when CUDA creates its first handle.

## Fix safety
The fix inserts `os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")` at module level,
right after the file's imports (and `import os` with them when the file has none), once for
every call of the file. It is unsafe: PyTorch reads the variable once per process, at the
first cuBLAS matrix product (`Context::alertCuBLASConfigNotDeterministic` keeps it in a
function-local `static`, `aten/src/ATen/Context.cpp`, 1.8 to 2.x), so the setting only works
when the module is imported before any matrix product ran — set it in the environment of the
process to be sure; and `:4096:8` reserves more workspace memory per stream than the default.
No fix is offered when `os` names something else at module level, is imported below the
insertion point, or is imported only inside a function or `try`.

## Releases
`torch.use_deterministic_algorithms` (`torch/__init__.py`) in 1.13, 2.6 and 2.14; the
`CUBLAS_WORKSPACE_CONFIG` requirement is documented there in 1.13 and 2.6 and in
`torch/backends/cuda/__init__.py` in 2.14: the premise holds 1.13–2.14.

## References
- [`torch.use_deterministic_algorithms`](https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html)
- [Reproducibility (PyTorch notes)](https://pytorch.org/docs/stable/notes/randomness.html)
- [cuBLAS: results reproducibility](https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility)
)md"};

class DeterministicWithoutCublasConfig final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeterministicWithoutCublasConfig; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"use_deterministic_algorithms"}; }
  std::vector<std::string_view> requiredWords() const override { return {"True"}; }
  bool triggersAreWholeWords() const override { return true; }
  std::vector<std::string_view> projectWords() const override { return {"use_deterministic_algorithms"}; }
  // The variable is named in this file or set by another file of the project: no finding.
  static bool setElsewhere(const analysis::ParsedFile& file, const Settings& settings) {
    if (settings.project != nullptr && settings.project->project != nullptr &&
        settings.project->project->setsEnvironment("CUBLAS_WORKSPACE_CONFIG") != nullptr)
      return true;
    return analysis::findBytes(file.text(), "CUBLAS_WORKSPACE_CONFIG") != std::string_view::npos;
  }
  bool mayReportIn(const analysis::ParsedFile& file, const Settings& settings) const override {
    return !setElsewhere(file, settings) && analysis::findBytes(file.text(), "True") != std::string_view::npos &&
           namesIdentifier(file, "use_deterministic_algorithms");
  }
  // The same identifier before parsing, on the code without strings and comments.
  bool mayMatchSource(const analysis::PrefilterText& source, const Settings&) const override {
    return source.codeNamesAny({"use_deterministic_algorithms"});
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    auto callee = model.calleeName(call);
    if (!callee || *callee != "torch.use_deterministic_algorithms") return;
    if (setElsewhere(ctx.file(), ctx.settings())) return;
    std::string_view source = ctx.source();
    TSNode mode = keywordArgument(call, "mode", source);
    if (ts_node_is_null(mode)) {
      auto positional = positionalArguments(call);
      if (!positional.empty()) mode = positional[0];
    }
    if (boolValue(model, mode) != true) return;
    bool warn_only = boolValue(model, keywordArgument(call, "warn_only", source)) == true;
    Diagnostic& d = ctx.report(
        call, warn_only
                  ? std::string("deterministic algorithms are requested but `CUBLAS_WORKSPACE_CONFIG` is not set: on "
                                "CUDA 10.2+ cuBLAS matrix products stay nondeterministic and only warn; set "
                                "`CUBLAS_WORKSPACE_CONFIG=:4096:8` before the process's first cuBLAS matrix product "
                                "(PyTorch reads it once, at the first)")
                  : std::string("deterministic algorithms are requested but `CUBLAS_WORKSPACE_CONFIG` is not set: on "
                                "CUDA 10.2+ the first cuBLAS matrix product (`torch.mm`, `nn.Linear`, ...) raises "
                                "`RuntimeError`; set `CUBLAS_WORKSPACE_CONFIG=:4096:8` before the process's first cuBLAS matrix "
                                "product (PyTorch reads it once, at the first)"));

    // The fix: the setting at module level, right after the imports, where it runs before any
    // code of the module can reach cuBLAS. The same edit for every call of the file, so one
    // application covers them all.
    // `os` as the module level names it (`import os as operating_system`), imported above the new
    // line; a module-level `os` bound to anything else gets no fix.
    std::string os_name;
    const uint32_t insert_at = quickfix::moduleInsertionPoint(ctx.file());
    for (const analysis::Binding* b : model.imports())
      if (b->qualified_name == "os" && b->scope == &model.moduleScope() && isKind(ts_node_parent(b->statement), "module") &&
          analysis::startOf(b->statement) < insert_at) {
        const auto* same = model.bindingsOf(model.moduleScope(), b->name);
        if (same != nullptr && same->size() == 1) os_name = b->name;
      }
    std::optional<quickfix::Edit> import_os;
    if (os_name.empty()) {
      if (const auto* bound = model.bindingsOf(model.moduleScope(), "os"); bound && !bound->empty()) return;
      import_os = quickfix::addImport(model, "import os");  // none when `os` is imported only in a block
      if (!import_os) return;
      os_name = "os";
    }
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Set `CUBLAS_WORKSPACE_CONFIG=:4096:8` at the top of the module (it only takes effect before the "
                  "process's first cuBLAS matrix product)";
    if (import_os) fix.edits.push_back(std::move(*import_os));
    fix.edits.push_back(quickfix::addModuleStatement(
        ctx.file(), os_name + ".environ.setdefault(\"CUBLAS_WORKSPACE_CONFIG\", \":4096:8\")"));
    if (!quickfix::normalizeEdits(fix.edits)) return;
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL702, DeterministicWithoutCublasConfig)

}  // namespace ptlint::rules
