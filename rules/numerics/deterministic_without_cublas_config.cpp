// PTL702 deterministic-without-cublas-config: `torch.use_deterministic_algorithms(True)` when
// nothing in the project sets CUBLAS_WORKSPACE_CONFIG.
#include "analysis/module_summary.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/all_rules.h"
#include "rules/common/blocks.h"
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
The fix inserts `os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")` on the line before
the call (and `import os` when the file has none). It is unsafe: the setting only reaches cuBLAS
if no CUDA work has run yet in the process, and `:4096:8` reserves more workspace memory per
stream than the default. No fix is offered when the call is not a statement of its own, or
when `os` names something else there.

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
  bool mayReportIn(const analysis::ParsedFile& file, const Settings& settings) const override {
    // Another file of the project sets it.
    if (settings.project != nullptr && settings.project->project != nullptr &&
        settings.project->project->setsEnvironment("CUBLAS_WORKSPACE_CONFIG") != nullptr)
      return false;
    return analysis::findBytes(file.text(), "True") != std::string_view::npos &&
           analysis::findBytes(file.text(), "CUBLAS_WORKSPACE_CONFIG") == std::string_view::npos &&
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
                                "`CUBLAS_WORKSPACE_CONFIG=:4096:8` before CUDA starts")
                  : std::string("deterministic algorithms are requested but `CUBLAS_WORKSPACE_CONFIG` is not set: on "
                                "CUDA 10.2+ the first cuBLAS matrix product (`torch.mm`, `nn.Linear`, ...) raises "
                                "`RuntimeError`; set `CUBLAS_WORKSPACE_CONFIG=:4096:8` before CUDA starts"));

    // The fix: a line of its own before the statement, with the statement's indentation.
    TSNode statement = ts_node_parent(call);
    if (!isKind(statement, "expression_statement") || !analysis::sameNode(ts_node_named_child(statement, 0), call))
      return;
    uint32_t start = analysis::startOf(statement);
    uint32_t line_start = start;
    while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
    std::string_view indent = source.substr(line_start, start - line_start);
    if (indent.find_first_not_of(" \t") != std::string_view::npos) return;
    std::string os_name = "os";
    bool needs_import = false;
    if (auto visible = model.visibleNameFor("os", call)) {
      os_name = *visible;
    } else if (model.resolve("os", call) != nullptr) {
      return;
    } else {
      needs_import = true;
    }
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Set `CUBLAS_WORKSPACE_CONFIG=:4096:8` before the call";
    if (needs_import) fix.edits.push_back(moduleLevelInsertion(ctx.file(), "import os"));
    fix.edits.push_back({line_start, line_start,
                         fmt::format("{}{}.environ.setdefault(\"CUBLAS_WORKSPACE_CONFIG\", \":4096:8\")\n", indent,
                                     os_name)});
    if (fix.edits.size() == 2 && fix.edits[0].start >= fix.edits[1].start) return;
    d.fix = std::move(fix);
  }
};

}  // namespace

const Rule& deterministicWithoutCublasConfigRule() {
  static const DeterministicWithoutCublasConfig rule;
  return rule;
}

}  // namespace ptlint::rules
