// PTL401's fix: a `seed_worker` function that re-creates or reseeds, per worker, each generator
// the dataset holds (seed_worker_fix.cpp), and the facts about those generators it is built from.
// The rule: dataloader_missing_worker_init_fn.cpp.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"
#include "rules/rule.h"

namespace ptlint::rules::seed_worker {

enum class GeneratorKind { NumpyDefaultRng, NumpyGenerator, NumpyRandomState, PythonRandom, TorchGenerator };

struct Creation {
  GeneratorKind kind{};
  TSNode call{};
};

// A generator the dataset draws from: `self.<name>` (made in `__init__`) or a module-level name.
struct Generator {
  std::string name;
  bool on_self = true;
  Creation creation;
  TSNode draw{};  // the first use in what `__getitem__` / `__iter__` runs
};

struct DatasetFacts {
  std::string class_name;
  std::vector<Generator> generators;  // drawn from and never reseeded per worker, in creation order
  TSNode global_numpy_draw{};         // a `numpy.random.<function>(...)` call in what the workers run
};

// `text` itself when it is one line of at most `limit` bytes, else empty (for messages).
std::string oneLine(std::string_view text, size_t limit = 60);

// The fix for the DataLoader `call`: a `seed_worker` that reseeds `facts.generators` (and the
// global numpy stream when `global_numpy`), passed as `worker_init_fn=`; nullopt where it cannot
// be placed or named.
std::optional<quickfix::Fix> seedWorkerFix(TSNode call, const DatasetFacts& facts, bool global_numpy,
                                           std::string_view dataset_class, Context& ctx);

}  // namespace ptlint::rules::seed_worker
