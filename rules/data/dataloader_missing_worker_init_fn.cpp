// PTL401 dataloader-missing-worker-init-fn: a multi-worker DataLoader without `worker_init_fn` in
// a file that uses numpy or random.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/all_rules.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kDataLoaderWorkerInitFn{
    .code = "PTL401",
    .name = "dataloader-missing-worker-init-fn",
    .summary = "A multi-worker DataLoader without worker_init_fn in code that uses numpy or random",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.9",
    .docs = R"md(
## What it does
Reports `torch.utils.data.DataLoader(...)` (through any import path: `from torch.utils import
data; data.DataLoader`, `torch.utils.data.dataloader.DataLoader`, aliases) whose `num_workers`
is not literally 0 — a positive number or any expression — when it has no `worker_init_fn` and no
`**kwargs` that could carry one, in a file that imports `numpy` or `random` (importing
`torch.utils.data.random_split` is not importing `random`). A `num_workers` that is absent, `0`,
or a name bound once to `0` is not reported.

## Why is this bad?
Worker processes are forked from the main process and inherit a copy of its memory, including
the state of every random generator created before the fork. Since PyTorch 1.9 each worker
reseeds the *global* `random`, `torch` and legacy `numpy.random` generators from
`base_seed + worker_id`, but generator *objects* created earlier — `np.random.default_rng()` or
`np.random.RandomState()` in a Dataset's `__init__`, a `random.Random()` instance — are copied
into every worker with the same state, so each worker draws the same "random" augmentations and
crops. Before 1.9 the global numpy generator was duplicated as well. PyTorch's reproducibility
notes give the remedy: a `worker_init_fn` that derives each worker's seed from
`torch.initial_seed()`.

## Example
```python
import numpy as np
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()   # copied into every worker
    ...

loader = DataLoader(Crops(), batch_size=32, num_workers=4)
```

## Use instead
```python
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, get_worker_info

def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(worker_seed)  # per-worker generator objects too

loader = DataLoader(Crops(), batch_size=32, num_workers=4, worker_init_fn=seed_worker)
```

## Fix safety
The fix adds `worker_init_fn=seed_worker` and, unless the file already has a `seed_worker`, a
module-level `def seed_worker(worker_id):` that reseeds numpy and random from
`torch.initial_seed()` (the recipe of PyTorch's reproducibility notes), using the file's names
for `torch`, `numpy` (`np`) and `random` and importing what is missing. It is unsafe: it changes
the random streams a training run sees, it may add an `import numpy`, and generator objects kept
on the dataset still need to be reseeded in `seed_worker` by hand (see *Use instead*).

## References
- [`torch/utils/data/_utils/worker.py`](https://github.com/pytorch/pytorch/blob/main/torch/utils/data/_utils/worker.py)
  (`_worker_loop` seeds `random`, `torch` and, since 1.9, `numpy.random` in each worker).
- [Randomness in multi-process data loading](https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading)
- [Reproducibility: DataLoader](https://pytorch.org/docs/stable/notes/randomness.html#dataloader)
)md"};

constexpr size_t kNumWorkersSlot = 5;     // DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
constexpr size_t kWorkerInitFnSlot = 10;  //            collate_fn, pin_memory, drop_last, timeout, worker_init_fn, ...)

bool isDataLoaderCall(const analysis::SemanticModel& model, TSNode call) {
  auto callee = model.calleeName(call);
  return callee && *callee == "torch.utils.data.DataLoader";
}

// Where a new module-level `seed_worker` goes: before the first top-level statement that
// contains any DataLoader call, so that every fix in a file agrees on one place (two fixes in one
// pass then clash, and the next pass reuses the definition the first one added).
struct SeedWorkerPlacement {
  bool found = false;
  TSNode statement{};
};

const SeedWorkerPlacement& placementFor(const analysis::SemanticModel& model) {
  static const char kKey = 0;
  return model.perFileAnalysis<SeedWorkerPlacement>(&kKey, [&] {
    auto out = std::make_shared<SeedWorkerPlacement>();
    TSNode root = model.file().root();
    uint32_t count = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < count && !out->found; ++i) {
      TSNode statement = ts_node_named_child(root, i);
      analysis::walkTree(
          statement,
          [&](TSNode node) {
            if (out->found || isKind(node, "string") || isKind(node, "comment")) return false;
            if (isKind(node, "call") && isDataLoaderCall(model, node)) {
              out->found = true;
              out->statement = statement;
              return false;
            }
            return true;
          },
          [](TSNode) {});
    }
    return out;
  });
}

bool boundAtModuleLevel(const analysis::SemanticModel& model, std::string_view name) {
  const auto* bindings = model.bindingsOf(model.moduleScope(), name);
  return bindings != nullptr && !bindings->empty();
}

// The module-level name bound to the module `qualified` by imports only (`np` for
// `import numpy as np`); empty when there is none.
std::string moduleImportName(const analysis::SemanticModel& model, std::string_view qualified) {
  for (const auto& binding : model.bindings()) {
    if (binding->kind != analysis::BindingKind::Import || binding->scope != &model.moduleScope() ||
        binding->qualified_name != qualified || binding->is_fallback)
      continue;
    const auto* all = model.bindingsOf(model.moduleScope(), binding->name);
    bool only_this_module = std::all_of(all->begin(), all->end(), [&](const analysis::Binding* b) {
      return b->kind == analysis::BindingKind::Import && b->qualified_name == qualified;
    });
    if (only_this_module) return binding->name;
  }
  return {};
}

// The name to use for module `qualified`: the file's own, else the first free candidate, which
// then needs `import_line`. Empty when every candidate is taken by something else.
std::string nameForModule(const analysis::SemanticModel& model, std::string_view qualified,
                          std::initializer_list<std::string_view> candidates, std::vector<std::string>& imports) {
  std::string existing = moduleImportName(model, qualified);
  if (!existing.empty()) return existing;
  for (std::string_view candidate : candidates) {
    if (boundAtModuleLevel(model, candidate)) continue;
    if (candidate == qualified) imports.push_back(fmt::format("import {}", qualified));
    else imports.push_back(fmt::format("import {} as {}", qualified, candidate));
    return std::string(candidate);
  }
  return {};
}

// Start of the line where the `def` goes: the statement's line, moved above the comment lines
// directly attached to it.
uint32_t definitionInsertionPoint(const analysis::ParsedFile& file, TSNode statement) {
  const auto& lines = file.lines();
  uint32_t row = lines.lineOf(analysis::startOf(statement));
  for (TSNode prev = ts_node_prev_named_sibling(statement); isKind(prev, "comment");
       prev = ts_node_prev_named_sibling(prev)) {
    uint32_t prev_row = lines.lineOf(analysis::startOf(prev));
    if (prev_row + 1 != row || lines.lineStart(prev_row) != analysis::startOf(prev)) break;
    row = prev_row;
  }
  return lines.lineStart(row);
}

bool isBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::optional<quickfix::Fix> seedWorkerFix(TSNode call, Context& ctx) {
  const auto& model = ctx.model();
  const auto& file = ctx.file();
  quickfix::Fix fix;
  fix.applicability = quickfix::Applicability::Unsafe;
  fix.message = "Add `worker_init_fn=seed_worker`";

  const analysis::Binding* existing = model.resolve("seed_worker", call);
  if (existing != nullptr) {
    // Reuse the file's own `seed_worker` (a def, or an import of one).
    if (existing->kind != analysis::BindingKind::Function && existing->kind != analysis::BindingKind::Import)
      return std::nullopt;
    fix.edits.push_back(appendArgument(call, "worker_init_fn=seed_worker", ctx.source()));
    return fix;
  }
  if (boundAtModuleLevel(model, "seed_worker")) return std::nullopt;
  const SeedWorkerPlacement& placement = placementFor(model);
  if (!placement.found) return std::nullopt;

  std::vector<std::string> imports;  // standard library first
  std::string random = nameForModule(model, "random", {"random", "py_random"}, imports);
  std::string numpy = nameForModule(model, "numpy", {"np", "numpy"}, imports);
  std::string torch = nameForModule(model, "torch", {"torch"}, imports);
  if (torch.empty() || numpy.empty() || random.empty()) return std::nullopt;

  std::string_view source = ctx.source();
  uint32_t top = moduleLevelInsertion(file, "").start;
  uint32_t def_at = std::max(definitionInsertionPoint(file, placement.statement), top);
  std::vector<quickfix::Edit> edits;
  if (!imports.empty()) {
    std::string joined;
    for (const auto& line : imports) joined += line + "\n";
    // Below the file's own module-level imports that precede the def, else at the top.
    quickfix::Edit edit = moduleLevelInsertion(file, "");
    TSNode root = file.root();
    for (uint32_t i = 0, n = ts_node_named_child_count(root); i < n; ++i) {
      TSNode child = ts_node_named_child(root, i);
      if (analysis::endOf(child) > def_at) break;
      if (!isKind(child, "import_statement") && !isKind(child, "import_from_statement")) continue;
      uint32_t row = file.lines().lineOf(analysis::endOf(child));
      if (row + 1 < file.lines().lineCount()) edit = {file.lines().lineStart(row + 1), 0, ""};
    }
    edit.end = edit.start;
    edit.content = edit.content.starts_with("\n") ? "\n" + joined : joined;
    edits.push_back(std::move(edit));
  }
  std::string definition = fmt::format(
      "def seed_worker(worker_id):\n"
      "    # Each worker reseeds the generators it inherited from the parent process.\n"
      "    worker_seed = {}.initial_seed() % 2**32\n"
      "    {}.random.seed(worker_seed)\n"
      "    {}.seed(worker_seed)\n\n\n",
      torch, numpy, random);
  if (!edits.empty() && edits.front().start == def_at) {
    // Same place as the new imports: imports, two blank lines, the def.
    edits.front().content += "\n\n" + definition;
  } else {
    // Two blank lines above the new def, counting those already there.
    uint32_t row = file.lines().lineOf(def_at);
    int blank_above = 0;
    for (uint32_t r = row; r > 0 && blank_above < 2 && isBlankLine(file.lines().lineText(r - 1, source)); --r)
      ++blank_above;
    if (row > 0) definition.insert(0, std::string(2 - blank_above, '\n'));
    edits.push_back({def_at, def_at, definition});
  }
  edits.push_back(appendArgument(call, "worker_init_fn=seed_worker", source));
  fix.edits = std::move(edits);
  return fix;
}

class DataLoaderWorkerInitFn final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDataLoaderWorkerInitFn; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"DataLoader"}; }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (!isDataLoaderCall(model, call)) return;
    // Only files whose code can hold numpy or random generators.
    if (!model.importsModule("numpy") && !model.importsModule("random")) return;
    // `**kwargs` / `*args` may carry worker_init_fn.
    if (hasDoubleStarArguments(call) || hasStarArguments(call)) return;
    if (!ts_node_is_null(keywordArgumentNode(call, "worker_init_fn", ctx.source()))) return;
    auto positional = positionalArguments(call);
    if (positional.size() > kWorkerInitFnSlot) return;

    TSNode num_workers = keywordArgument(call, "num_workers", ctx.source());
    if (ts_node_is_null(num_workers) && positional.size() > kNumWorkersSlot) num_workers = positional[kNumWorkersSlot];
    if (ts_node_is_null(num_workers)) return;  // the default is 0: no workers
    auto literal = integerLiteral(analysis::resolveValue(model, num_workers), ctx.source());
    if (literal && *literal == 0) return;

    std::string_view workers_text = ctx.text(num_workers);
    std::string workers = workers_text.size() <= 40 && workers_text.find('\n') == std::string_view::npos
                              ? fmt::format("`num_workers={}`", workers_text)
                              : std::string("worker processes");
    Diagnostic& d = ctx.report(
        call, fmt::format("`DataLoader` with {} and no `worker_init_fn`: random generators created before the fork "
                          "(e.g. `np.random.default_rng()` in a Dataset's `__init__`) are copied into every worker, "
                          "which then draw the same numbers",
                          workers));
    d.fix = seedWorkerFix(call, ctx);
  }
};

}  // namespace

const Rule& dataLoaderWorkerInitFnRule() {
  static const DataLoaderWorkerInitFn rule;
  return rule;
}

}  // namespace ptlint::rules
