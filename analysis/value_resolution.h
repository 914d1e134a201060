// Constant-like values of names: what a name bound exactly once evaluates to. Rules use it to see
// through `amp_dtype = torch.bfloat16`, `NUM_WORKERS = 0`, `ctx = torch.autocast(...)` without
// guessing: anything bound more than once, a parameter, a loop target or an import is opaque.
#pragma once

#include <tree_sitter/api.h>

#include "analysis/semantic_model.h"

namespace ptlint::analysis {

// The right-hand side of the only binding of the identifier `name` in the scope it resolves to,
// when that binding is a plain assignment (`x = value`, `x := value`); a null node otherwise
// (a parameter, a name bound twice, a for-target, an import, a builtin, not an identifier).
TSNode singleAssignedValue(const SemanticModel& model, TSNode name);

// Follows identifiers through singleAssignedValue (with a depth limit, so `a = b; b = a` ends)
// and strips parentheses. Returns the last expression reached: `expr` itself, unparenthesised,
// when it is not such a name. Never null for a non-null input.
TSNode resolveValue(const SemanticModel& model, TSNode expr);

}  // namespace ptlint::analysis
