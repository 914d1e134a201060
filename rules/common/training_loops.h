// Loops of training code, for the per-step rules (PTL709, PTL710): the innermost `for`/`while`
// around a node within its function, and whether a loop's body runs a backward pass.
#pragma once

#include <tree_sitter/api.h>

#include "analysis/semantic_model.h"

namespace ptlint::rules {

// The innermost `for`/`while` statement whose body holds `node`, within its function; null when
// none (a `for` clause of a comprehension is not a loop statement).
TSNode enclosingLoop(TSNode node);

// True when the loop's body (not its nested defs) calls `.backward()`, `torch.autograd.backward`
// or `accelerator.backward(...)`, or steps an optimizer (`x.step()` on a name spelling `optim`).
bool loopRunsTrainingStep(const analysis::SemanticModel& model, TSNode loop);

// True when, between `node` and `loop`, an `if`/`elif` or conditional expression decides whether
// it runs by a logging interval: its condition has a `%` or names an interval
// (`log_every`, `print_freq`, `verbose`, `debug`, ...).
bool underIntervalCondition(TSNode node, TSNode loop, std::string_view source);

// True when `receiver` (of `.step()`) is an optimizer as far as the file shows: a name or
// `self.<attr>` bound once to a `torch.optim.*` construction, else a name spelling `optim` or
// `opt` and no scheduler (`sched`, `lr`).
bool looksLikeOptimizer(const analysis::SemanticModel& model, TSNode receiver);

// True when `node` is checked by a test: inside an `assert` statement or an argument of a call
// whose name starts with `assert` (`self.assertEqual(...)`, `torch.testing.assert_close(...)`).
bool insideAssertion(TSNode node, std::string_view source);

// True when the value of `call` decides whether `loop` stops: the call is in the condition of an
// `if` that breaks, returns, raises or exits, or is assigned to a name such a condition (or an
// `assert`) reads (a convergence test, a NaN check).
bool decidesLoopExit(TSNode call, TSNode loop, std::string_view source);

// True when anything between `node` and `loop` makes it conditional (`if`, `try` handler, ...).
bool conditionalWithinLoop(TSNode node, TSNode loop);

}  // namespace ptlint::rules
