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
const Rule& deprecatedBackwardHookRule();  // PTL102  rules/autograd/deprecated_backward_hook.cpp
const Rule& renamedDynamoCacheLimitRule(); // PTL103  rules/compile/renamed_dynamo_cache_limit.cpp
const Rule& fairscaleShardingRule();       // PTL104  rules/distributed/fairscale_sharding.cpp
const Rule& removedDatapipesRule();        // PTL105  rules/data/removed_datapipes.cpp
const Rule& deprecatedTorchFunctionRule();  // PTL106  rules/deprecated/deprecated_torch_function.cpp
const Rule& requiresGradTypoRule();        // PTL107  rules/autograd/requires_grad_typo.cpp
const Rule& checkpointUseReentrantRule();  // PTL108  rules/autograd/checkpoint_use_reentrant.cpp
const Rule& torchvisionPretrainedRule();    // PTL109  rules/vision/torchvision_pretrained.cpp
const Rule& torchvisionToTensorV2Rule();    // PTL110  rules/vision/torchvision_to_tensor_v2.cpp
const Rule& unstableNumericsRule();         // PTL704  rules/numerics/unstable_numerics.cpp
const Rule& torchLoadWithoutWeightsOnlyRule();  // PTL801  rules/serialization/torch_load_without_weights_only.cpp

}  // namespace ptlint::rules
