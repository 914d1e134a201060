// Which scaled_dot_product_attention backends a `sdpa_kernel(...)` / legacy `sdp_kernel(...)`
// call allows, as far as the source fixes them. Shared by PTL602 and PTL604.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <set>
#include <string>

#include "analysis/semantic_model.h"

namespace ptlint::rules::attention {

// Backend names as in `SDPBackend`: "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "MATH",
// "CUDNN_ATTENTION", "OVERRIDEABLE".
using BackendSet = std::set<std::string>;

// The backends `call` allows when it is `torch.nn.attention.sdpa_kernel(...)` with literal
// `SDPBackend` members (one, or a list/tuple/set; through names bound once), or
// `torch.backends.cuda.sdp_kernel(...)` whose `enable_*` flags resolve (absent = True).
// nullopt when `call` is neither, or any part is not resolved.
std::optional<BackendSet> allowedBackends(const analysis::SemanticModel& model, TSNode call);

}  // namespace ptlint::rules::attention
