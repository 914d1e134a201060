// What a DataLoader's `worker_init_fn` reseeds (PTL401): a function of the file that seeds only
// the global streams (`np.random.seed(...)`, `random.seed(...)`, `torch.manual_seed(...)`) leaves
// a generator object the dataset holds as every worker copied it.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <vector>

#include "analysis/semantic_model.h"

namespace ptlint::rules {

// True when the `worker_init_fn` value `fn` is seen whole and can touch none of `names` (the
// dataset's generators: `rng` for `self.rng`, a module-level `RNG`): a function, lambda or
// `functools.partial` of one of the file, whose body (and the file's functions it calls) never
// names them, never reaches a dataset (`get_worker_info().dataset`) and calls nothing the file
// does not show but torch, numpy and the standard library. False when anything is unknown.
bool reseedsOnlyGlobals(const analysis::SemanticModel& model, TSNode fn, const std::vector<std::string>& names);

}  // namespace ptlint::rules
