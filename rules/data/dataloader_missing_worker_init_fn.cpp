// PTL401 dataloader-missing-worker-init-fn: a multi-worker DataLoader whose dataset draws from a
// random generator object created before the workers start, which every worker then copies.
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/module_summary.h"
#include "analysis/value_flow.h"
#include "analysis/value_resolution.h"
#include "rules/data/dataloader_args.h"
#include "rules/data/seed_worker_fix.h"
#include "rules/data/worker_init_fn.h"
#include "rules/register.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::startOf;
using data::isDataLoaderCall;
using seed_worker::Creation;
using seed_worker::DatasetFacts;
using seed_worker::Generator;
using seed_worker::GeneratorKind;
using seed_worker::oneLine;
using seed_worker::seedWorkerFix;

constexpr RuleMeta kDataLoaderWorkerInitFn{
    .code = "PTL401",
    .name = "dataloader-missing-worker-init-fn",
    .summary = "A multi-worker DataLoader whose dataset draws from a generator object every worker copies",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.9",
    .docs = R"md(
## What it does
Reports a `torch.utils.data.DataLoader(...)` (any import path or alias) that starts worker
processes — `num_workers` is not literally 0 — with no `worker_init_fn` (or one that reseeds only
the global streams, see below) and no `**kwargs` that could carry one, when its dataset draws
random numbers from a generator *object* created before the workers start and never reseeded
per worker:

- the dataset is the `DataLoader`'s first argument or `dataset=`, written as `MyDataset(...)`, as
  a name bound once to it (`ds = MyDataset(...)`) or as an attribute the class assigns once
  (`self.train_set = MyDataset(...)` in a data module's `setup`), and `MyDataset` is a class of
  the same file or one imported from another file of the project (`from data import MyDataset`),
  read in its own file (its methods may come from base classes of that file);
- the generator is `numpy.random.default_rng(...)`, `numpy.random.RandomState(...)`,
  `numpy.random.Generator(...)`, `random.Random(...)` or `torch.Generator()` (any alias:
  `import numpy as np`, `from numpy.random import default_rng`, `import random as rnd`), stored
  on the dataset in `__init__` (`self.rng = np.random.default_rng(seed)`) or bound at module level;
- it is used in `__getitem__`, `__getitems__`, `__iter__` or `__next__`, or in a method or
  module-level function they call;
- nothing in the class calls `torch.utils.data.get_worker_info()`, and the methods that draw do
  not re-create or reseed that generator themselves.

A `worker_init_fn` that only seeds the global streams (`np.random.seed(...)`, `random.seed(...)`,
`torch.manual_seed(...)`) does not reseed such an object, and is reported too when the file shows
all of it: a function, lambda or `functools.partial` of the file whose code (and the file's
functions it calls) never names the generator, never reaches the dataset
(`get_worker_info().dataset`) and calls nothing but torch, numpy and the standard library. One
imported from another module, or calling code the file does not show, is taken as a fix.

The global streams (`random.random()`, `np.random.rand()`, `torch.rand()`) are not reported:
PyTorch reseeds them in every worker. With `torch-version` below 1.9, a dataset that draws from
the global `numpy.random` is reported too, because those releases did not reseed it. The related
information points at each generator's creation. A dataset whose class the project does not show
(a library's, a parameter) is not reported. A class of another file gets no fix (the
generators are that file's names): the message and the related information point there.

## Why is this bad?
Each worker process starts as a copy of the main process (forked on Linux; on other platforms
the dataset is pickled into it), so an object such as `self.rng` arrives in every worker with
the same internal state. PyTorch then reseeds, per worker, only the global generators:
`_worker_loop` in `torch/utils/data/_utils/worker.py` calls `random.seed(seed)`,
`torch.manual_seed(seed)` and, since PyTorch 1.9, `np.random.seed(...)` with
`seed = base_seed + worker_id`. A `Generator`, `RandomState`, `random.Random` or
`torch.Generator` object is not touched, so every worker draws the same sequence: with 4 workers
each "random" crop, flip or noise sample appears 4 times per epoch, and augmentation is a
quarter as diverse as intended.

Measured with PyTorch 1.13 and NumPy 1.24 (`DataLoader(..., num_workers=2)`, first item of
each worker): `default_rng(0)`, `Generator(PCG64(0))`, `RandomState(0)`, a module-level
`RandomState(0)`, `random.Random(0)` and a seeded `torch.Generator()` gave identical values in
both workers, while `np.random.rand()`, `random.random()` and `torch.rand(1)` differed. With the
`seed_worker` below, every one of them differed.

## Example
```python
import numpy as np
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)   # copied into every worker

    def __getitem__(self, i):
        return self.rng.random()
    ...

loader = DataLoader(Crops(0), batch_size=32, num_workers=4)
```

## Use instead
```python
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

def seed_worker(worker_id):
    # Each worker reseeds the generators it inherited from the main process.
    info = torch.utils.data.get_worker_info()
    info.dataset.rng = np.random.default_rng([info.seed, 0])

loader = DataLoader(Crops(0), batch_size=32, num_workers=4, worker_init_fn=seed_worker)
```
`get_worker_info().seed` differs per worker and per epoch, and follows `torch.manual_seed` in the
main process, so runs stay reproducible.

## Fix safety
The fix adds `worker_init_fn=seed_worker` and a module-level `seed_worker(worker_id)` that
re-creates (numpy `Generator`s) or reseeds in place (`RandomState.seed`, `Random.seed`,
`torch.Generator.manual_seed`) exactly the generators the dataset draws from, from
`get_worker_info().seed`; each generator gets a seed of its own, distinct from the worker's
global streams. It uses the file's names for `torch` and `numpy` and imports what is missing.
A second dataset of the file whose generators differ gets its own `seed_<dataset>_worker`; a
file whose names for both are taken by other functions gets no fix. It is unsafe: the random streams
a run sees change, and the dataset's own seed argument no longer decides them in workers (the
main process's `torch.manual_seed` does).

## Releases
`torch/utils/data/_utils/worker.py`: each worker reseeds `random`, torch and (from 1.9,
`_generate_state`) NumPy's global generator in 1.13, 2.6 and 2.14, but not a generator object the
dataset holds, which every worker copies: the premise holds 1.13–2.14; below 1.9 NumPy's global
draws are reported too.

## References
- [`_worker_loop` in `torch/utils/data/_utils/worker.py`](https://github.com/pytorch/pytorch/blob/v1.13.0/torch/utils/data/_utils/worker.py):
  the per-worker `random.seed`, `torch.manual_seed` and `np.random.seed`.
- [pytorch/pytorch#56488: "Add Numpy seeding to worker of DataLoader"](https://github.com/pytorch/pytorch/pull/56488),
  released in PyTorch 1.9.
- [Randomness in multi-process data loading](https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading)
- [`torch.utils.data.get_worker_info`](https://pytorch.org/docs/stable/data.html#torch.utils.data.get_worker_info)
)md"};

constexpr size_t kNumWorkersSlot = 5;     // DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
constexpr size_t kWorkerInitFnSlot = 10;  //            collate_fn, pin_memory, drop_last, timeout, worker_init_fn, ...)

// Where a new module-level `seed_worker` goes: before the first top-level statement that

std::optional<GeneratorKind> generatorConstructor(std::string_view qualified) {
  if (qualified == "numpy.random.default_rng") return GeneratorKind::NumpyDefaultRng;
  if (qualified == "numpy.random.Generator" || qualified == "numpy.random._generator.Generator")
    return GeneratorKind::NumpyGenerator;
  if (qualified == "numpy.random.RandomState" || qualified == "numpy.random.mtrand.RandomState")
    return GeneratorKind::NumpyRandomState;
  if (qualified == "random.Random") return GeneratorKind::PythonRandom;
  if (qualified == "torch.Generator" || qualified == "torch._C.Generator") return GeneratorKind::TorchGenerator;
  return std::nullopt;
}



std::string_view generatorName(GeneratorKind kind) {
  switch (kind) {
    case GeneratorKind::NumpyDefaultRng: return "numpy.random.default_rng";
    case GeneratorKind::NumpyGenerator: return "numpy.random.Generator";
    case GeneratorKind::NumpyRandomState: return "numpy.random.RandomState";
    case GeneratorKind::PythonRandom: return "random.Random";
    case GeneratorKind::TorchGenerator: return "torch.Generator";
  }
  return "";
}





// The generator an expression creates: a constructor call, `torch.Generator().manual_seed(s)`,
// a name bound once to one, or either branch of `a if c else b` / `a or b` (`rng or
// default_rng()`: whatever it holds was made before the workers start).
std::optional<Creation> generatorCreation(const analysis::SemanticModel& model, TSNode expr) {
  std::vector<TSNode> work{expr};
  for (int budget = 16; !work.empty() && budget > 0; --budget) {
    TSNode node = analysis::resolveValue(model, work.back());
    work.pop_back();
    analysis::NodeKind kind = kindOf(node);
    if (kind == kind::call) {
      if (auto callee = model.calleeName(node))
        if (auto generator = generatorConstructor(*callee)) return Creation{*generator, node};
      TSNode function = fieldOf(node, "function");
      if (isKind(function, kind::attribute) && model.text(fieldOf(function, "attribute")) == "manual_seed")
        work.push_back(fieldOf(function, "object"));
    } else if (kind == kind::conditional_expression && ts_node_named_child_count(node) == 3) {
      work.push_back(ts_node_named_child(node, 2));
      work.push_back(ts_node_named_child(node, 0));
    } else if (kind == kind::boolean_operator) {
      work.push_back(fieldOf(node, "right"));
      work.push_back(fieldOf(node, "left"));
    }
  }
  return std::nullopt;
}







bool isReseedMethod(std::string_view name) {
  return name == "seed" || name == "manual_seed" || name == "set_state" || name == "setstate" ||
         name == "__setstate__";
}



// Functions of `numpy.random` that construct something rather than draw from the global stream.
bool isNumpyRandomConstructor(std::string_view member) {
  static const std::set<std::string_view, std::less<>> kNames = {
      "default_rng", "Generator", "RandomState", "SeedSequence", "BitGenerator", "PCG64", "PCG64DXSM", "MT19937",
      "Philox", "SFC64", "get_state", "set_state", "seed", "get_bit_generator", "set_bit_generator"};
  return kNames.contains(member);
}



// The file's class a name denotes: a class bound once in its scope.
TSNode classNamed(const analysis::SemanticModel& model, TSNode name) {
  name = analysis::unparenthesize(name);
  if (!isKind(name, kind::identifier)) return {};
  const analysis::Binding* binding = model.resolve(model.text(name), name);
  if (binding == nullptr || binding->kind != analysis::BindingKind::Class) return {};
  const auto* all = model.bindingsOf(*binding->scope, binding->name);
  if (all == nullptr || all->size() != 1) return {};
  return isKind(binding->statement, kind::class_definition) ? binding->statement : TSNode{};
}



// The dataset's class and the file it is in.
struct DatasetClass {
  const analysis::SemanticModel* model = nullptr;  // null: the file checked
  TSNode node{};
  std::string path;  // another file of the project, else empty
};

// The class of the DataLoader's dataset when the project shows it: `DataLoader(MyDataset(...))`,
// `dataset=MyDataset(...)`, a name bound once to such a call, or `self.<attr>` assigned once in
// the class; `MyDataset` a class of the file, or one another file of the project defines
// (`from data import MyDataset`).
DatasetClass datasetClass(const analysis::SemanticModel& model, TSNode call, const Context& ctx) {
  TSNode argument = analysis::argumentFor(call, 0, "dataset", ctx.source());
  if (ts_node_is_null(argument)) return {};
  TSNode value = analysis::resolveValue(model, argument);
  if (isKind(value, kind::attribute)) {
    value = selfAttributeValue(model, value);
    if (ts_node_is_null(value)) return {};
    value = analysis::resolveValue(model, value);
  }
  if (!isKind(value, kind::call)) return {};
  TSNode function = fieldOf(value, "function");
  TSNode local = classNamed(model, function);
  if (!ts_node_is_null(local)) return {nullptr, local, {}};
  const auto& project = ctx.settings().project;
  if (project == nullptr || project->functions == nullptr) return {};
  auto qualified = analysis::importedName(model, function);
  auto found = qualified ? project->functions->definition(*qualified) : std::nullopt;
  if (!found || found->model == nullptr || !isKind(found->node, kind::class_definition)) return {};
  return {found->model, found->node, found->path};
}



DatasetFacts analyseDataset(const analysis::SemanticModel& model, TSNode cls) {
  DatasetFacts facts;
  facts.class_name = std::string(model.text(fieldOf(cls, "name")));
  TSNode body = fieldOf(cls, "body");
  if (ts_node_is_null(body)) return facts;

  // The class and its bases defined in the file (a method of the class hides its bases' own).
  std::vector<TSNode> bodies;
  std::map<std::string, TSNode, std::less<>> methods;
  std::vector<TSNode> inits;
  std::vector<TSNode> classes{cls};
  for (size_t c = 0; c < classes.size() && c < 8; ++c) {
    TSNode class_body = fieldOf(classes[c], "body");
    if (ts_node_is_null(class_body)) continue;
    bodies.push_back(class_body);
    analysis::forEachNamedChild(class_body, [&](TSNode statement) {
      TSNode def = definitionOf(statement);
      if (!isKind(def, kind::function_definition)) return;
      std::string name(model.text(fieldOf(def, "name")));
      if (name == "__init__") inits.push_back(def);  // each runs when it calls `super().__init__()`
      methods.emplace(std::move(name), def);
    });
    TSNode bases = fieldOf(classes[c], "superclasses");
    if (!ts_node_is_null(bases))
      analysis::forEachNamedChild(bases, [&](TSNode base) {
        TSNode found = classNamed(model, base);
        if (!ts_node_is_null(found)) classes.push_back(found);
      });
  }
  auto inClassBody = [&](TSNode function) {
    TSNode parent = ts_node_parent(function);
    if (isKind(parent, kind::decorated_definition)) parent = ts_node_parent(parent);
    return std::any_of(bodies.begin(), bodies.end(), [&](TSNode b) { return analysis::sameNode(b, parent); });
  };

  // Generators stored on the instance in `__init__` (the class's or a base's).
  std::vector<Generator> candidates;
  for (TSNode init : inits) {
    if (ts_node_is_null(fieldOf(init, "body"))) continue;
    std::string self = firstParameter(model, init);
    analysis::walkTree(
        fieldOf(init, "body"),
        [&](TSNode node) {
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) return false;
          if (kind != kind::assignment) return true;
          std::string_view attr = selfAttribute(model, fieldOf(node, "left"), self);
          TSNode right = fieldOf(node, "right");
          if (attr.empty() || ts_node_is_null(right)) return true;
          auto creation = generatorCreation(model, right);
          if (!creation) return true;
          auto same = std::find_if(candidates.begin(), candidates.end(), [&](auto& g) { return g.name == attr; });
          if (same == candidates.end()) candidates.push_back({std::string(attr), true, *creation, {}});
          return true;
        },
        [](TSNode) {});
  }
  // Generators bound once at module level.
  std::map<const analysis::Binding*, size_t> module_generators;
  for (const auto& binding : model.bindings()) {
    if (binding->scope != &model.moduleScope() || binding->kind != analysis::BindingKind::Assignment) continue;
    const auto* all = model.bindingsOf(model.moduleScope(), binding->name);
    if (all == nullptr || all->size() != 1 || ts_node_is_null(binding->value)) continue;
    if (auto creation = generatorCreation(model, binding->value)) {
      module_generators[binding.get()] = candidates.size();
      candidates.push_back({binding->name, false, *creation, {}});
    }
  }

  // What the workers run: the item methods and what they call (`self.helper()`, module functions).
  std::vector<TSNode> work;
  std::set<const void*> seen;
  for (std::string_view entry : {"__getitem__", "__getitems__", "__iter__", "__next__"})
    if (auto it = methods.find(entry); it != methods.end() && seen.insert(it->second.id).second) work.push_back(it->second);
  std::vector<bool> reseeded(candidates.size(), false);
  bool worker_info = false;
  while (!work.empty() && seen.size() < 256) {
    TSNode function = work.back();
    work.pop_back();
    if (ts_node_is_null(fieldOf(function, "body"))) continue;  // broken code
    bool is_method = inClassBody(function);
    std::string self = is_method ? firstParameter(model, function) : std::string();
    analysis::walkTree(
        fieldOf(function, "body"),
        [&](TSNode node) {
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::string || kind == kind::comment) return false;
          if (kind == kind::call) {
            TSNode callee = fieldOf(node, "function");
            if (std::string_view method = selfAttribute(model, callee, self); !method.empty()) {
              if (auto it = methods.find(method); it != methods.end() && seen.insert(it->second.id).second)
                work.push_back(it->second);
            } else if (isKind(callee, kind::identifier)) {
              const analysis::Binding* b = model.resolve(model.text(callee), callee);
              if (b != nullptr && b->kind == analysis::BindingKind::Function && b->scope == &model.moduleScope() &&
                  seen.insert(b->statement.id).second)
                work.push_back(b->statement);
            }
            if (auto q = model.calleeName(node)) {
              if (*q == "torch.utils.data.get_worker_info" || *q == "torch.utils.data._utils.worker.get_worker_info")
                worker_info = true;
              if (q->starts_with("numpy.random.") && q->find('.', 13) == std::string::npos &&
                  !isNumpyRandomConstructor(std::string_view(*q).substr(13)) && ts_node_is_null(facts.global_numpy_draw))
                facts.global_numpy_draw = node;
            }
            return true;
          }
          // A use of a candidate: `self.rng` / `RNG`.
          std::optional<size_t> index;
          if (kind == kind::attribute) {
            std::string_view attr = selfAttribute(model, node, self);
            for (size_t i = 0; i < candidates.size() && !attr.empty(); ++i)
              if (candidates[i].on_self && candidates[i].name == attr) index = i;
          } else if (kind == kind::identifier) {
            TSNode up = ts_node_parent(node);
            if ((isKind(up, kind::attribute) && analysis::sameNode(fieldOf(up, "attribute"), node)) ||
                (isKind(up, kind::keyword_argument) && analysis::sameNode(fieldOf(up, "name"), node)))
              return true;
            const analysis::Binding* b = model.resolve(model.text(node), node);
            if (auto it = module_generators.find(b); b != nullptr && it != module_generators.end()) index = it->second;
          }
          if (!index) return true;
          TSNode parent = ts_node_parent(node);
          if (isKind(parent, kind::assignment) && analysis::sameNode(fieldOf(parent, "left"), node)) {
            reseeded[*index] = true;  // re-created in the worker: `self.rng = default_rng(...)`
          } else if (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "object"), node) &&
                     isReseedMethod(model.text(fieldOf(parent, "attribute"))) &&
                     isKind(ts_node_parent(parent), kind::call)) {
            reseeded[*index] = true;  // `self.rng.seed(index)`
          } else if (ts_node_is_null(candidates[*index].draw)) {
            candidates[*index].draw = node;
          }
          return kind != kind::attribute;
        },
        [](TSNode) {});
  }
  // `get_worker_info()` anywhere in the class: it handles workers itself.
  for (TSNode class_body : bodies) {
    if (worker_info) break;
    analysis::walkTree(
        class_body,
        [&](TSNode node) {
          if (worker_info || isKind(node, kind::string) || isKind(node, kind::comment)) return false;
          if (isKind(node, kind::call)) {
            auto q = model.calleeName(node);
            if (q && (*q == "torch.utils.data.get_worker_info" || *q == "torch.utils.data._utils.worker.get_worker_info"))
              worker_info = true;
          }
          return true;
        },
        [](TSNode) {});
  }
  if (worker_info) return DatasetFacts{facts.class_name, {}, {}};
  for (size_t i = 0; i < candidates.size(); ++i)
    if (!reseeded[i] && !ts_node_is_null(candidates[i].draw)) facts.generators.push_back(candidates[i]);
  return facts;
}


class DataLoaderWorkerInitFn final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDataLoaderWorkerInitFn; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Every call the rule reports resolves to DataLoader through an import or an attribute, which
  // spell it as code: a file that names it only in docstrings and comments is not parsed for it.
  Prefilter prefilter() const override { return {.words = {"DataLoader"}, .words_in_code = true}; }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!isDataLoaderCall(model, call)) return;
    // `**kwargs` / `*args` may carry worker_init_fn.
    if (hasDoubleStarArguments(call) || hasStarArguments(call)) return;
    auto positional = positionalArguments(call);
    // A `worker_init_fn` other than None is read: one that reseeds only the global streams
    // leaves the dataset's generators as they were copied.
    TSNode init_fn = keywordArgument(call, "worker_init_fn", ctx.source());
    if (ts_node_is_null(init_fn) && positional.size() > kWorkerInitFnSlot) init_fn = positional[kWorkerInitFnSlot];
    bool init_argument = !ts_node_is_null(init_fn);
    if (init_argument && isKind(analysis::resolveValue(model, init_fn), kind::none)) init_fn = TSNode{};

    TSNode num_workers = keywordArgument(call, "num_workers", ctx.source());
    if (ts_node_is_null(num_workers) && positional.size() > kNumWorkersSlot) num_workers = positional[kNumWorkersSlot];
    if (ts_node_is_null(num_workers)) return;  // the default is 0: no workers
    auto literal = integerLiteral(analysis::resolveValue(model, num_workers), ctx.source());
    if (literal && *literal == 0) return;

    DatasetClass dataset = datasetClass(model, call, ctx);
    TSNode cls = dataset.node;
    if (ts_node_is_null(cls)) return;
    // A class of another file is read there, as one of this file is here.
    const analysis::SemanticModel& class_model = dataset.model != nullptr ? *dataset.model : model;
    DatasetFacts facts = analyseDataset(class_model, cls);
    // Before 1.9, workers did not reseed the global numpy generator either.
    bool global_numpy = !ctx.torchAtLeast(1, 9) && !ts_node_is_null(facts.global_numpy_draw);
    if (!ts_node_is_null(init_fn)) {
      std::vector<std::string> names;
      for (const Generator& g : facts.generators) names.push_back(g.name);
      if (facts.generators.empty() || !reseedsOnlyGlobals(model, init_fn, names)) return;
      global_numpy = false;  // it may seed the global numpy stream; the generators stay copies
    }
    if (facts.generators.empty() && !global_numpy) return;

    // The message names the generators; the help adds what creates them.
    std::string what, kinds;
    for (size_t i = 0; i < facts.generators.size() && i < 3; ++i) {
      const Generator& g = facts.generators[i];
      what += fmt::format("{}`{}{}`", i == 0 ? "" : ", ", g.on_self ? "self." : "", g.name);
      kinds += fmt::format("{}`{}{}` (`{}`)", i == 0 ? "" : ", ", g.on_self ? "self." : "", g.name,
                           generatorName(g.creation.kind));
    }
    if (facts.generators.size() > 3) what += fmt::format(" and {} more", facts.generators.size() - 3);
    std::string message, help;
    if (!facts.generators.empty())
      help = fmt::format("{} {} created before the workers start; each worker gets a copy.", kinds,
                         facts.generators.size() == 1 ? "is" : "are");
    if (!ts_node_is_null(init_fn)) {
      std::string given = oneLine(ctx.text(init_fn), 40);
      message = fmt::format("`{}` draws from {} with one state in all workers; reseed it in `worker_init_fn`",
                            facts.class_name, what);
      if (!given.empty()) help = fmt::format("`{}` reseeds only the global streams, not {}.", given, what);
    } else if (!facts.generators.empty()) {
      message = fmt::format("`{}` draws from {} with one state in all workers; reseed it in a `worker_init_fn`",
                            facts.class_name, what);
    } else {
      message = fmt::format(
          "`{}` draws from the global `numpy.random`, not reseeded per worker before 1.9; add a `worker_init_fn`",
          facts.class_name);
    }
    Diagnostic& d = ctx.report(call, std::move(message));
    d.help = std::move(help);
    auto related = [&](TSNode node, std::string message) {
      RelatedInfo info{startOf(node), endOf(node), std::move(message)};
      if (dataset.model != nullptr) {  // in the class's file
        analysis::SourcePos at = analysis::sourcePosOf(dataset.model->file(), info.start, info.end);
        info.path = dataset.path;
        info.line = at.line;
        info.column = at.column;
        info.column_utf16 = at.column_utf16;
        info.column_bytes = at.column_bytes;
      }
      d.related.push_back(std::move(info));
    };
    for (const Generator& g : facts.generators)
      related(g.creation.call, fmt::format("`{}{}` is created here, before the workers start", g.on_self ? "self." : "", g.name));
    if (global_numpy) related(facts.global_numpy_draw, "the global `numpy.random` stream, not reseeded per worker before PyTorch 1.9");
    // The fix reseeds what the class's file names (its module-level generators are that
    // module's globals): only for a class of this file.
    if (!init_argument && dataset.model == nullptr)
      d.fix = seedWorkerFix(call, facts, global_numpy, ctx.text(fieldOf(cls, "name")), ctx);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL401, DataLoaderWorkerInitFn)

}  // namespace ptlint::rules
