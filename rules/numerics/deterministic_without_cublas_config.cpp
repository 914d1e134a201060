// PTL702 deterministic-without-cublas-config: `torch.use_deterministic_algorithms(True)` when
// nothing in the project sets CUBLAS_WORKSPACE_CONFIG.
#include "analysis/environment_writes.h"
#include "analysis/module_summary.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
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
`True`; any import or alias) when nothing in the project sets `CUBLAS_WORKSPACE_CONFIG`: neither
the file itself nor any other Python file or notebook of the project (the folder holding
`pyproject.toml`, `setup.py`, `setup.cfg` or `.git` above the file) sets it in code —
`os.environ[...] = ...`, `os.environ.setdefault(...)`, `os.environ.update(...)`,
`os.putenv(...)`, a key of a dict of defaults applied with `os.environ.setdefault(k, v)` or
handed to a child process as `env=`; a utility module's `seed_everything()` that sets it counts.
A read (`os.environ.get("CUBLAS_WORKSPACE_CONFIG")`, `"CUBLAS_WORKSPACE_CONFIG" in os.environ`),
a log line or a comment that names it sets nothing; a check that raises when it is missing
(`if "CUBLAS_WORKSPACE_CONFIG" not in os.environ: raise ...`) guards the call and counts as set.
A call that only runs on another device (`if device == "xpu":`, the `else` of
`if torch.cuda.is_available():`) is not reported: only CUDA's cuBLAS reads the variable. Nor is
a file that hides every GPU (`os.environ["CUDA_VISIBLE_DEVICES"] = ""` or `"-1"`): no cuBLAS
call can run there.
A variable set only in a launcher script, a `Dockerfile` or the shell is not seen: suppress the
finding there with `# noqa: PTL702`.

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

// What a branch test says about the device: +1 when true means CUDA (`device == "cuda"`,
// `torch.cuda.is_available()`), -1 when true means another device (`device == "xpu"`,
// `args.device.type in ("cpu", "mps")`, `torch.xpu.is_available()`), 0 when it says neither.
int cudaTest(const analysis::SemanticModel& model, TSNode test, std::string_view source, int depth = 0) {
  test = analysis::unparenthesize(test);
  if (depth > 8 || ts_node_is_null(test)) return 0;
  auto deviceOf = [&](TSNode literal) {
    literal = analysis::unparenthesize(literal);
    if (!isKind(literal, kind::string)) return 0;
    std::string_view text = analysis::textOf(literal, source);
    if (text.size() < 3 || (text.front() != '"' && text.front() != '\'')) return 0;
    std::string_view device = text.substr(1, text.size() - 2);
    if (device == "cuda" || device.starts_with("cuda:")) return 1;
    for (std::string_view other : {"cpu", "xpu", "mps", "npu", "hpu", "xla", "mlu", "musa", "meta", "mtia", "ipu"})
      if (device == other || (device.starts_with(other) && device.size() > other.size() && device[other.size()] == ':'))
        return -1;
    return 0;
  };
  analysis::NodeKind kind = analysis::kindOf(test);
  if (kind == kind::not_operator) return -cudaTest(model, fieldOf(test, "argument"), source, depth + 1);
  if (kind == kind::boolean_operator) {
    int left = cudaTest(model, fieldOf(test, "left"), source, depth + 1);
    int right = cudaTest(model, fieldOf(test, "right"), source, depth + 1);
    bool both = analysis::textOf(fieldOf(test, "operator"), source) == "and";
    if (both) return left < 0 || right < 0 ? -1 : (left > 0 || right > 0 ? 1 : 0);
    return left == right ? left : 0;
  }
  if (kind == kind::comparison_operator && ts_node_named_child_count(test) == 2) {
    std::string op;
    for (uint32_t i = 0; i < ts_node_child_count(test); ++i) {
      TSNode child = ts_node_child(test, i);
      if (!ts_node_is_named(child)) op += (op.empty() ? "" : " ") + std::string(analysis::textOf(child, source));
    }
    TSNode a = ts_node_named_child(test, 0), b = ts_node_named_child(test, 1);
    if (op == "==" || op == "!=") {
      int d = deviceOf(a) != 0 ? deviceOf(a) : deviceOf(b);
      return op == "==" ? d : (d < 0 ? 0 : -d);  // `!= "cpu"` may be any accelerator
    }
    if (op == "in" || op == "not in") {
      TSNode options = analysis::unparenthesize(b);
      if (!isKind(options, kind::tuple) && !isKind(options, kind::list) && !isKind(options, kind::set)) return 0;
      int all = 0;
      bool first = true;
      analysis::forEachNamedChild(options, [&](TSNode option) {
        int d = deviceOf(option);
        all = first || all == d ? d : 0;
        first = false;
      });
      return op == "in" ? all : (all < 0 ? 0 : -all);
    }
    return 0;
  }
  if (kind == kind::call) {
    auto q = model.calleeName(test);
    if (!q) {
      // `device.startswith("xpu")`, `str(device).startswith("cuda")`
      TSNode callee = fieldOf(test, "function");
      if (isKind(callee, kind::attribute) && analysis::textOf(fieldOf(callee, "attribute"), source) == "startswith") {
        auto args = positionalArguments(test);
        return args.size() == 1 ? deviceOf(args[0]) : 0;
      }
      return 0;
    }
    if (*q == "torch.cuda.is_available") return 1;
    for (std::string_view other : {"torch.xpu.is_available", "torch.backends.mps.is_available", "torch.mps.is_available",
                                   "torch.npu.is_available", "torch.hpu.is_available", "torch.mtia.is_available"})
      if (*q == other) return -1;
  }
  return 0;
}

// Does `call` run only where the device is not CUDA (`if device == "xpu":`, the `else` of
// `if torch.cuda.is_available():`)? cuBLAS, and its workspace setting, matter only on CUDA.
bool onlyWithoutCuda(const analysis::SemanticModel& model, TSNode call, std::string_view source) {
  TSNode child = call;
  for (TSNode cur = ts_node_parent(call); !ts_node_is_null(cur); child = cur, cur = ts_node_parent(cur)) {
    analysis::NodeKind kind = analysis::kindOf(cur);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) return false;
    if (kind != kind::if_statement) continue;
    if (analysis::sameNode(child, fieldOf(cur, "condition"))) continue;
    // The branch holding the call, and the tests of the branches before it (all false there).
    std::vector<std::pair<TSNode, TSNode>> branches{{fieldOf(cur, "condition"), fieldOf(cur, "consequence")}};
    analysis::forEachNamedChild(cur, [&](TSNode clause) {
      if (isKind(clause, kind::elif_clause)) branches.emplace_back(fieldOf(clause, "condition"), clause);
      else if (isKind(clause, kind::else_clause)) branches.emplace_back(TSNode{}, clause);
    });
    for (const auto& [test, body] : branches) {
      bool here = analysis::sameNode(body, child) || analysis::contains(body, call);
      if (here) {
        if (!ts_node_is_null(test) && cudaTest(model, test, source) < 0) return true;
        break;
      }
      // An earlier branch taken whenever the device is CUDA: this one runs without it.
      if (!ts_node_is_null(test) && cudaTest(model, test, source) > 0 && !isKind(analysis::unparenthesize(test), kind::boolean_operator))
        return true;
    }
  }
  return false;
}

// Does the file hide every GPU from the process (`os.environ["CUDA_VISIBLE_DEVICES"] = ""` or
// `"-1"`, anywhere in it)? Then no cuBLAS call can run, and deterministic mode cannot raise.
bool hidesCuda(const analysis::SemanticModel& model, std::string_view source) {
  if (analysis::findBytes(source, "CUDA_VISIBLE_DEVICES") == std::string_view::npos) return false;
  bool hides = false;
  analysis::walkTree(
      model.file().root(),
      [&](TSNode node) {
        if (hides) return false;
        if (!isKind(node, kind::assignment)) return true;
        TSNode left = fieldOf(node, "left");
        TSNode right = analysis::unparenthesize(fieldOf(node, "right"));
        if (!isKind(left, kind::subscript) || !isKind(right, kind::string)) return true;
        auto key = stringLiteral(fieldOf(left, "subscript"), source);
        auto value = stringLiteral(right, source);
        if (key && *key == "CUDA_VISIBLE_DEVICES" && value && (value->empty() || *value == "-1") &&
            model.text(fieldOf(left, "value")).ends_with("environ"))
          hides = true;
        return !hides;
      },
      [](TSNode) {});
  return hides;
}

class DeterministicWithoutCublasConfig final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeterministicWithoutCublasConfig; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // The same identifier before parsing, on the code without strings and comments.
  Prefilter prefilter() const override {
    return {.words = {"use_deterministic_algorithms"},
            .whole_words = true,
            .also = {{"True"}},
            .words_in_code = true,
            .tree_names = {{"use_deterministic_algorithms"}},
            .project_words = {"use_deterministic_algorithms"}};
  }
  bool mayReport(const PrefilterInput& input, const Settings& settings) const override {
    return input.parsed == nullptr || !setElsewhere(*input.parsed, settings);
  }
  // The variable is set in this file or by another file of the project: no finding.
  static bool setElsewhere(const analysis::ParsedFile& file, const Settings& settings) {
    if (settings.project != nullptr && settings.project->project != nullptr &&
        settings.project->project->setsEnvironment("CUBLAS_WORKSPACE_CONFIG") != nullptr)
      return true;
    // The file sets it itself (a read, a comment or a log line that names it sets nothing).
    return analysis::findBytes(file.text(), "CUBLAS_WORKSPACE_CONFIG") != std::string_view::npos &&
           analysis::setsEnvironmentVariable(file, "CUBLAS_WORKSPACE_CONFIG");
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    auto callee = model.calleeName(call);
    if (!callee || *callee != "torch.use_deterministic_algorithms") return;
    if (setElsewhere(ctx.file(), ctx.settings())) return;
    std::string_view source = ctx.source();
    TSNode mode = analysis::argumentFor(call, 0, "mode", source);
    if (boolValue(model, mode) != true) return;
    if (onlyWithoutCuda(model, call, source) || hidesCuda(model, source)) return;
    bool warn_only = boolValue(model, keywordArgument(call, "warn_only", source)) == true;
    Diagnostic& d = ctx.report(
        call, warn_only
                  ? std::string("Deterministic mode without `CUBLAS_WORKSPACE_CONFIG` leaves cuBLAS nondeterministic; "
                                "set it to `:4096:8`")
                  : std::string("Deterministic mode without `CUBLAS_WORKSPACE_CONFIG` raises at the first cuBLAS "
                                "product; set it to `:4096:8`"));

    // The fix: the setting at module level, right after the imports, where it runs before any
    // code of the module can reach cuBLAS. The same edit for every call of the file, so one
    // application covers them all.
    // `os` as the module level names it (`import os as operating_system`), imported above the new
    // line; a module-level `os` bound to anything else gets no fix.
    std::string os_name;
    const uint32_t insert_at = quickfix::moduleInsertionPoint(ctx.file());
    for (const analysis::Binding* b : model.imports())
      if (b->qualified_name == "os" && b->scope == &model.moduleScope() && isKind(ts_node_parent(b->statement), kind::module) &&
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
    fix.message = "Set `CUBLAS_WORKSPACE_CONFIG=:4096:8` at the top of the module";
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
