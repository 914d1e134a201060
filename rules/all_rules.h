// One accessor per rule, defined in the rule's own file. Only registry.cpp uses these.
#pragma once

#include "rules/rule.h"

namespace ptlint::rules {

const Rule& deprecatedCudaAmpRule();       // PTL101  rules/amp/deprecated_cuda_amp.cpp
const Rule& gradScalerWithBf16Rule();      // PTL201  rules/amp/gradscaler_with_bf16.cpp
const Rule& ddpFindUnusedParametersRule(); // PTL301  rules/distributed/ddp_find_unused_parameters.cpp
const Rule& dataLoaderWorkerInitFnRule();  // PTL401  rules/data/dataloader_missing_worker_init_fn.cpp
const Rule& itemInCompiledRegionRule();       // PTL501  rules/compile/item_in_compiled_region.cpp
const Rule& handRolledAttentionRule();     // PTL601  rules/attention/hand_rolled_attention.cpp
const Rule& deprecatedTorchFunctionRule();  // PTL106  rules/deprecated/deprecated_torch_function.cpp

}  // namespace ptlint::rules
