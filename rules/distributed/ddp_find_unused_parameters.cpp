// PTL301 ddp-find-unused-parameters: DDP's `find_unused_parameters=True`, given to torch's
// DistributedDataParallel, accelerate's DistributedDataParallelKwargs, Lightning's DDPStrategy
// or Lightning's strategy strings.
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kDdpFindUnusedParameters{
    .code = "PTL301",
    .name = "ddp-find-unused-parameters",
    .summary = "DistributedDataParallel with find_unused_parameters=True (torch, accelerate, Lightning)",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.11",
    .docs = R"md(
## What it does
Reports `find_unused_parameters=True` handed to PyTorch's `DistributedDataParallel`, in each of
the spellings projects use:

- `torch.nn.parallel.DistributedDataParallel(..., find_unused_parameters=True)` through any
  import path or alias (`from torch.nn.parallel import DistributedDataParallel as DDP`), the flag
  given by keyword, by position, or through a name bound once to `True`;
- accelerate's `DistributedDataParallelKwargs(find_unused_parameters=True)` (from `accelerate`
  or `accelerate.utils`), the handler `Accelerator(kwargs_handlers=[...])` passes on to DDP;
- Lightning's `DDPStrategy(find_unused_parameters=True)` (`lightning.pytorch.strategies`,
  `pytorch_lightning.strategies`, `lightning.fabric.strategies`, `lightning_fabric.strategies`),
  and the older `DDPSpawnStrategy` and `pytorch_lightning.plugins.DDPPlugin` / `DDPSpawnPlugin`;
- Lightning's strategy strings that mean the same: `Trainer(strategy="ddp_find_unused_parameters_true")`
  (also `ddp_spawn_…`, `ddp_fork_…`, `ddp_notebook_…_find_unused_parameters_true`, and through
  `import lightning as L; L.Trainer`) and `Fabric(strategy="ddp_find_unused_parameters_true")`,
  the string given directly, as a branch of a conditional, or through a name bound once.

Not reported: `find_unused_parameters=False` or a value the file does not fix (a parameter, a
config attribute), a call that also passes `static_graph=` with a value that is or may be true
(`static_graph=True`, `static_graph=static`: DDP then skips the per-iteration search), a test
(a file that imports `unittest`, `pytest` or a testing module such as `torch.testing._internal`
or `accelerate.test_utils`: it runs a few steps, often to exercise the flag itself), and look-alikes — a class of the project's own that happens to be called
`DistributedDataParallel` or `DDPStrategy`, `dict(find_unused_parameters=True)`.

## Why is this bad?
With the flag set, after every forward pass DDP calls `reducer.prepare_for_backward` with the
tensors found in the module's output, and the reducer traverses the autograd graph from those
outputs to find the parameters that will not get a gradient this iteration, so that their
gradient buckets are marked ready instead of waiting forever (`DistributedDataParallel.forward`
in `torch/nn/parallel/distributed.py`: `if self.find_unused_parameters and not
self.static_graph: self.reducer.prepare_for_backward(list(_find_tensors(output)))`). That
traversal is paid on every iteration, for every model, whether or not a parameter is ever
unused; unused parameters also prevent DDP from overlapping all of the gradient reduction with
the backward pass.

The flag is genuinely needed only when the set of parameters that receive no gradient changes
between iterations (data-dependent branches, mixture-of-experts routing, heads used for some
batches only). When some parameters are never used, remove them or freeze them
(`requires_grad_(False)`); when the set is the same in every iteration, `static_graph=True`
(PyTorch 1.11+) finds it once, in the first iteration, and reuses it.

## Example
```python
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[rank], find_unused_parameters=True)
```

## Use instead
```python
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[rank], static_graph=True)
```
If no parameter is ever unused, simply drop the flag (for Lightning, `strategy="ddp"`).

## Fix safety
Only `DistributedDataParallel(...)` gets a fix: it replaces `find_unused_parameters=True` with
`static_graph=True`. It is unsafe: a static graph requires the set of used parameters (and the
graph's structure) to be the same in every iteration; a model that takes data-dependent branches
needs `find_unused_parameters=True` and fails with `static_graph=True`. No fix is offered when
the call already has a `static_graph=` argument, passes `**kwargs`, or passes the flag
positionally, nor for accelerate's and Lightning's spellings, whose own options differ. Nor is
one offered in a file that changes `requires_grad` (`p.requires_grad = False`,
`module.requires_grad_(False)`): freezing and unfreezing during training changes the used set by
design. The finding says why.

## Releases
`torch/nn/parallel/distributed.py`: `find_unused_parameters` in 1.13, 2.6 and 2.14; the premise
holds 1.13–2.14.

## References
- [`DistributedDataParallel.forward` in `torch/nn/parallel/distributed.py`](https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/parallel/distributed.py)
  and the reducer's `search_unused_parameters` in
  [`torch/csrc/distributed/c10d/reducer.cpp`](https://github.com/pytorch/pytorch/blob/v1.13.0/torch/csrc/distributed/c10d/reducer.cpp)
- [DistributedDataParallel (see `find_unused_parameters` and `static_graph`)](https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)
- [Distributed Data Parallel design notes](https://pytorch.org/docs/stable/notes/ddp.html)
- [Lightning's DDP strategy names](https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/pytorch/strategies/ddp.py)
- [accelerate's `DistributedDataParallelKwargs`](https://huggingface.co/docs/accelerate/package_reference/kwargs)
)md"};

// `find_unused_parameters` is the eighth parameter of DistributedDataParallel.__init__.
constexpr size_t kFindUnusedSlot = 7;

// The cost and the remedy in a few words; the docs explain both.
// The cost, and when paying it is needed (the message must say both).
constexpr std::string_view kCost = "walks the autograd graph after every forward";
constexpr std::string_view kUnless = "unless the unused set changes";
constexpr std::string_view kHelp = "Only a model whose set of unused parameters changes between iterations needs it.";

bool isTrue(const analysis::SemanticModel& model, TSNode value) {
  return !ts_node_is_null(value) && isTrueLiteral(analysis::resolveValue(model, value));
}

// `static_graph=` given a value that is, or may be, true (`static_graph=static`): precision first.
bool mayBeStaticGraph(const analysis::SemanticModel& model, TSNode value) {
  return !ts_node_is_null(value) && !isFalseLiteral(analysis::resolveValue(model, value));
}

bool isIn(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool isAccelerateKwargs(std::string_view name) {
  return isIn(name, {"accelerate.DistributedDataParallelKwargs", "accelerate.utils.DistributedDataParallelKwargs",
                     "accelerate.utils.dataclasses.DistributedDataParallelKwargs"});
}

bool isDdpStrategy(std::string_view name) {
  for (std::string_view prefix : {"lightning.pytorch.strategies.", "pytorch_lightning.strategies.",
                                  "lightning.fabric.strategies.", "lightning_fabric.strategies."}) {
    if (!name.starts_with(prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    return rest == "DDPStrategy" || rest == "ddp.DDPStrategy" ||
           // pytorch_lightning 1.6-1.9
           (prefix == "pytorch_lightning.strategies." && (rest == "DDPSpawnStrategy" || rest == "ddp_spawn.DDPSpawnStrategy"));
  }
  // pytorch_lightning 1.5's plugins, the same options under the older name.
  for (std::string_view prefix : {"pytorch_lightning.plugins.", "pytorch_lightning.plugins.training_type."}) {
    if (!name.starts_with(prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    return isIn(rest, {"DDPPlugin", "DDPSpawnPlugin", "ddp.DDPPlugin", "ddp_spawn.DDPSpawnPlugin"});
  }
  return false;
}

enum class Launcher { None, Trainer, Fabric };

Launcher launcherOf(std::string_view name) {
  if (isIn(name, {"lightning.Trainer", "lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer",
                  "lightning.pytorch.trainer.trainer.Trainer", "pytorch_lightning.Trainer",
                  "pytorch_lightning.trainer.Trainer", "pytorch_lightning.trainer.trainer.Trainer"}))
    return Launcher::Trainer;
  if (isIn(name, {"lightning.Fabric", "lightning.fabric.Fabric", "lightning.fabric.fabric.Fabric", "lightning_fabric.Fabric",
                  "lightning_fabric.fabric.Fabric"}))
    return Launcher::Fabric;
  return Launcher::None;
}

// The strategy names Lightning registers with `find_unused_parameters=True`: the Trainer's
// `DDPStrategy.register_strategies` has four, Fabric's one.
bool findsUnusedParameters(std::string_view strategy, Launcher launcher) {
  if (strategy == "ddp_find_unused_parameters_true") return true;
  return launcher == Launcher::Trainer &&
         isIn(strategy, {"ddp_spawn_find_unused_parameters_true", "ddp_fork_find_unused_parameters_true",
                         "ddp_notebook_find_unused_parameters_true"});
}

// The strategy string an expression can hold: a literal, a name bound once, or either branch of
// a conditional (`"ddp_find_unused_parameters_true" if devices > 1 else "auto"`).
std::optional<std::string> unusedStrategy(const analysis::SemanticModel& model, TSNode value, Launcher launcher) {
  std::vector<TSNode> work{value};
  for (int budget = 8; !work.empty() && budget > 0; --budget) {
    TSNode node = analysis::resolveValue(model, work.back());
    work.pop_back();
    if (isKind(node, kind::conditional_expression) && ts_node_named_child_count(node) == 3) {
      work.push_back(ts_node_named_child(node, 2));
      work.push_back(ts_node_named_child(node, 0));
      continue;
    }
    auto text = stringLiteral(node, model.file().text());
    if (text && findsUnusedParameters(*text, launcher)) return text;
  }
  return std::nullopt;
}

// A test (it imports `unittest`, `pytest`, or a testing module: `torch.testing._internal`,
// `accelerate.test_utils`, `transformers.testing_utils`): it runs a few steps, often to exercise
// the flag itself, so the per-step cost is not worth a finding.
bool isTestFile(const analysis::SemanticModel& model) {
  for (const analysis::Binding* b : model.imports()) {
    std::string_view q = b->qualified_name;
    size_t start = 0;
    while (start <= q.size()) {
      size_t dot = q.find('.', start);
      std::string_view part = q.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
      if (isIn(part, {"unittest", "pytest", "testing", "test_utils", "testing_utils"})) return true;
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
  }
  return false;
}

// Why `static_graph=True` cannot stand in for the flag in this file, or empty: a file that changes
// `requires_grad` (`p.requires_grad = False`, `module.requires_grad_(False)`) may change the set
// of used parameters between iterations by design, which a static graph forbids.
std::string_view staticGraphRefusal(const analysis::SemanticModel& model) {
  const analysis::ParsedFile& file = model.file();
  if (analysis::findBytes(file.text(), "requires_grad") == std::string_view::npos) return {};
  bool changes = false;
  analysis::walkTree(
      file.root(),
      [&](TSNode node) {
        if (changes) return false;
        if (!isKind(node, kind::attribute)) return true;
        std::string_view name = model.text(fieldOf(node, "attribute"));
        if (name != "requires_grad_" && name != "requires_grad") return true;
        TSNode parent = ts_node_parent(node);
        if (name == "requires_grad_" && isKind(parent, kind::call)) changes = true;
        if (name == "requires_grad" && (isKind(parent, kind::assignment) || isKind(parent, kind::augmented_assignment)) &&
            analysis::sameNode(fieldOf(parent, "left"), node))
          changes = true;
        return !changes;
      },
      [](TSNode) {});
  return changes ? "`requires_grad` changes in this file"
                 : std::string_view{};
}

class DdpFindUnusedParameters final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDdpFindUnusedParameters; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"find_unused_parameters"}}; }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    auto callee = model.calleeName(call);
    if (!callee || isTestFile(model)) return;
    if (*callee == "torch.nn.parallel.DistributedDataParallel") return checkDdp(call, ctx);
    if (isAccelerateKwargs(*callee) || isDdpStrategy(*callee)) {
      TSNode value = keywordArgument(call, "find_unused_parameters", ctx.source());
      if (!isTrue(model, value) || mayBeStaticGraph(model, keywordArgument(call, "static_graph", ctx.source()))) return;
      std::string_view name = std::string_view(*callee).substr(callee->rfind('.') + 1);
      // accelerate's kwargs handler has `static_graph` too; Lightning's strategy names do not.
      std::string_view instead = isAccelerateKwargs(*callee) ? "use `static_graph=True`" : "drop it";
      Diagnostic& d = ctx.report(call, fmt::format("`{}(find_unused_parameters=True)` {}; {} {}", name, kCost, instead, kUnless));
      d.help = kHelp;
      return;
    }
    Launcher launcher = launcherOf(*callee);
    if (launcher == Launcher::None) return;
    TSNode strategy = keywordArgument(call, "strategy", ctx.source());
    if (ts_node_is_null(strategy)) return;
    auto name = unusedStrategy(model, strategy, launcher);
    if (!name) return;
    Diagnostic& d = ctx.report(call, fmt::format("`strategy=\"{}\"` {}; use `strategy=\"ddp\"` {}", *name, kCost, kUnless));
    d.help = kHelp;
  }

 private:
  static void checkDdp(TSNode call, Context& ctx) {
    const auto& model = ctx.model();
    TSNode keyword = keywordArgumentNode(call, "find_unused_parameters", ctx.source());
    TSNode value = ts_node_is_null(keyword) ? TSNode{} : fieldOf(keyword, "value");
    if (ts_node_is_null(keyword)) {
      auto positional = positionalArguments(call);
      if (positional.size() > kFindUnusedSlot && !hasStarArguments(call)) value = positional[kFindUnusedSlot];
    }
    if (!isTrue(model, value)) return;

    // With `static_graph=True`, DDP records the unused set once; the flag no longer costs.
    TSNode static_graph = keywordArgument(call, "static_graph", ctx.source());
    if (mayBeStaticGraph(model, static_graph)) return;

    Diagnostic& d = ctx.report(call, fmt::format("`find_unused_parameters=True` {}; use `static_graph=True` {}", kCost, kUnless));
    d.help = kHelp;
    if (ts_node_is_null(keyword) || !ts_node_is_null(static_graph) || hasDoubleStarArguments(call) ||
        !ctx.torchAtLeast(1, 11))
      return;
    if (std::string_view why = staticGraphRefusal(model); !why.empty()) {
      d.help = fmt::format("No `static_graph=True` fix: {}.", why);
      return;
    }
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Replace `find_unused_parameters=True` with `static_graph=True`";
    fix.edits.push_back({analysis::startOf(keyword), analysis::endOf(keyword), "static_graph=True"});
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL301, DdpFindUnusedParameters)

}  // namespace ptlint::rules
