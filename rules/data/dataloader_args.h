// What a `DataLoader(...)` call fixes about its workers, for the data-loading rules
// (PTL402-PTL405). Values resolve through names bound once; anything else is unknown.
#pragma once

#include <vector>

#include <tree_sitter/api.h>

#include <optional>

#include "analysis/semantic_model.h"

namespace ptlint::rules::data {

// `torch.utils.data.DataLoader(...)` through any import or alias.
bool isDataLoaderCall(const analysis::SemanticModel& model, TSNode call);

// The argument for one of DataLoader's parameters: the keyword, or the positional slot when
// the parameter can be passed positionally. Null when absent.
TSNode dataLoaderArgument(TSNode call, std::string_view name, std::string_view source);

// The number of workers when the source fixes it: 0 when `num_workers` is absent (its default)
// and nothing (`*args`, `**kwargs`) could pass it; the literal integer otherwise; nullopt when
// unknown.
std::optional<long long> numWorkers(const analysis::SemanticModel& model, TSNode call);

// The DataLoader call an iterable denotes: the call itself or a name bound once to it, also
// through `enumerate(x)`, `zip(x, ...)` (every argument tried), `tqdm(x)` / `tqdm.tqdm(x)`
// / `tqdm.auto.tqdm(x)`. Null when none.
TSNode dataLoaderOfIterable(const analysis::SemanticModel& model, TSNode iterable);

// The DataLoader calls an iterable may denote where it stands, by value flow: through names
// bound in branches, the returns of a function of the file (`train, val = get_loaders()`), the
// arguments the file's calls pass to a parameter (`def fit(model, loader)`), and the same
// wrappers. Empty when none.
std::vector<TSNode> dataLoadersOfIterable(const analysis::SemanticModel& model, TSNode iterable);

}  // namespace ptlint::rules::data
