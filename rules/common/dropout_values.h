// What a dropout probability given to a module's method holds, for the train/eval rules
// (PTL605, PTL706): a value that does not change with `self.training`, or one the analysis
// cannot see (a parameter, a name bound several times), which the rules leave alone.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>

#include "analysis/semantic_model.h"

namespace ptlint::rules {

// True when `value` is literally zero (`0`, `0.0`, `0.`), through names bound once.
bool isZeroProbability(const analysis::SemanticModel& model, TSNode value);

// True when `value` is a probability fixed regardless of the mode, as far as the file shows: a
// non-zero number literal, a `self.<attr>` bound once by the class to something other than
// zero and not a property, an attribute chain through `self` (`self.config.attn_pdrop`,
// `self.drop.p`), or a local name bound once to one of these. Parameters, names bound several
// times and anything else are not known.
bool isModeBlindProbability(const analysis::SemanticModel& model, TSNode value, TSNode cls, std::string_view self);

}  // namespace ptlint::rules
