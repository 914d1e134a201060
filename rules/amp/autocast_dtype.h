// Autocast regions and their dtype, as far as the source pins it down. Shared by the AMP rules.
#pragma once

#include <tree_sitter/api.h>

#include "analysis/semantic_model.h"

namespace ptlint::rules::amp {

// What a dtype expression is known to be. `Unknown` whenever the source does not fix it: a
// parameter, an attribute (`cfg.dtype`), a conditional, a name bound more than once.
enum class DtypeKind { Unknown, BFloat16, Float16, Other };

// Resolves `expr` through aliases (`T.bfloat16`, `from torch import bfloat16 as bf16`), names
// bound once (`amp_dtype = torch.bfloat16`) and module constants.
DtypeKind resolveDtype(const analysis::SemanticModel& model, TSNode expr);

// `torch.autocast` / `torch.amp.autocast` / `torch.cuda.amp.autocast` / `torch.cpu.amp.autocast`
// (any import path or alias).
bool isAutocastCall(const analysis::SemanticModel& model, TSNode call);

struct AutocastDtype {
  DtypeKind kind = DtypeKind::Unknown;
  TSNode call{};  // the autocast call the dtype came from
};

// The dtype of an autocast call: `dtype=` or the second positional argument (the slot is the
// same in `torch.autocast(device_type, dtype)` and the legacy `torch.cuda.amp.autocast(enabled,
// dtype)`). No explicit dtype means the device default, which is not resolved: Unknown. An
// autocast with literal `enabled=False` casts nothing: Other.
AutocastDtype autocastCallDtype(const analysis::SemanticModel& model, TSNode call);

// The autocast an expression denotes: the call itself, or a name bound once to such a call
// (`ctx = torch.autocast(...)`, entered later with `with ctx:`). Null when it is neither.
TSNode autocastCallOf(const analysis::SemanticModel& model, TSNode expr);

}  // namespace ptlint::rules::amp
