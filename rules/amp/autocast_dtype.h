// Autocast regions and their dtype, as far as the source pins it down. Shared by the AMP rules.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"

namespace ptlint::rules::amp {

// What a dtype expression is known to be. `Unknown` whenever the source does not fix it: a
// parameter, an attribute of an unknown object, values that disagree (`torch.bfloat16 if bf16
// else torch.float16`).
enum class DtypeKind { Unknown, BFloat16, Float16, Other };

// Resolves `expr` through aliases (`T.bfloat16`, `from torch import bfloat16 as bf16`), names
// bound once (`amp_dtype = torch.bfloat16`) and module constants, then through the value flow:
// every value the expression may hold resolves to the same kind (names bound in branches,
// `self.<attr>` across methods, dict and dataclass configuration, a helper's returns).
DtypeKind resolveDtype(const analysis::SemanticModel& model, TSNode expr);

// `torch.autocast` / `torch.amp.autocast` / `torch.cuda.amp.autocast` / `torch.cpu.amp.autocast`
// (any import path or alias), or a call of a `functools.partial` of one (`autocast =
// partial(torch.autocast, device_type="cuda", dtype=torch.bfloat16)`, then `autocast()`).
bool isAutocastCall(const analysis::SemanticModel& model, TSNode call);

// The autocast an autocast call runs (`torch.amp.autocast`, `torch.cuda.amp.autocast`, ...),
// through a `partial` too; nullopt for another call.
std::optional<std::string> autocastCallee(const analysis::SemanticModel& model, TSNode call);

// True when `*args` / `**kwargs` in the call (or in the `partial` it calls) may carry any argument.
bool autocastHidesArguments(const analysis::SemanticModel& model, TSNode call);

// The slot to give autocastArgument for an argument read by keyword only.
inline constexpr size_t kKeywordOnly = static_cast<size_t>(-1);

// An argument of an autocast call, by keyword or positional slot, where a `partial` may have
// bound it: the call's own first, then the partial's (whose positional arguments come first).
// Null when absent or when `*args` / `**kwargs` hide it.
TSNode autocastArgument(const analysis::SemanticModel& model, TSNode call, std::string_view keyword, size_t slot);

struct AutocastDtype {
  DtypeKind kind = DtypeKind::Unknown;
  TSNode call{};  // the autocast call the dtype came from
};

// The dtype of an autocast call: `dtype=` or the second positional argument (the slot is the
// same in `torch.autocast(device_type, dtype)` and the legacy `torch.cuda.amp.autocast(enabled,
// dtype)`). No explicit dtype means the device default, which is not resolved: Unknown. An
// autocast with literal `enabled=False` casts nothing: Other.
AutocastDtype autocastCallDtype(const analysis::SemanticModel& model, TSNode call);

// The autocasts an expression may denote where it stands, by value flow: `ctx = nullcontext();
// if amp: ctx = torch.autocast(...)`, `self.ctx` set in `__init__`, a function of the file that
// returns one (`with get_autocast():`), or one of another file of the project (then with the
// model of its file; null: `model`'s). Empty when none.
struct ModelNode {
  const analysis::SemanticModel* model = nullptr;
  TSNode node{};
  const analysis::SemanticModel& in(const analysis::SemanticModel& asking) const { return model ? *model : asking; }
};
std::vector<ModelNode> autocastValuesOf(const analysis::SemanticModel& model, TSNode expr);

}  // namespace ptlint::rules::amp
