// Expressions whose value is provably a `torch.Tensor` (or a NumPy array, which Dynamo traces as
// one): a tensor-returning `torch` call, a reduction method of any value (`x.sum()`, `x.max()`:
// numbers, lists and dicts have none), a tensor method on a tensor, arithmetic and comparisons
// with one, a parameter annotated `torch.Tensor`, or a name bound once to one of these. Anything
// else is not known to be a tensor: a bare unannotated parameter may be a number or any object.
#pragma once

#include <tree_sitter/api.h>

#include "analysis/semantic_model.h"

namespace ptlint::analysis {

bool isProvablyTensor(const SemanticModel& model, TSNode expr);

// Where a branch test turns a tensor into a Python `bool` (`x.sum() > 0`, `not x.any(dim=1).all()`
// aside, `bool(x.max())`, `x.sum()`): the sub-expression that does, or a null node. Looks at the
// boolean positions of `test` only (through `not`, `and`, `or`, parentheses and `bool(...)`), so
// `f(x.sum() > 0)`, `x.shape[0] > 1` and `x.numel() > 0` are not such a read.
TSNode tensorTruthRead(const SemanticModel& model, TSNode test);

}  // namespace ptlint::analysis
