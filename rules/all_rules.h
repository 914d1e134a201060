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
const Rule& workerOptionWithoutWorkersRule();  // PTL404  rules/data/worker_option_without_workers.cpp
const Rule& graphBreakCallInCompiledRegionRule();  // PTL502  rules/compile/graph_break_call_in_compiled_region.cpp
const Rule& dataDependentBranchInCompiledRegionRule();  // PTL504  rules/compile/data_dependent_branch_in_compiled_region.cpp
const Rule& anomalyDetectionEnabledRule();  // PTL701  rules/numerics/anomaly_detection_enabled.cpp
const Rule& deterministicWithoutCublasConfigRule();  // PTL702  rules/numerics/deterministic_without_cublas_config.cpp
const Rule& cudnnBenchmarkWithDeterminismRule();  // PTL703  rules/numerics/cudnn_benchmark_with_determinism.cpp
const Rule& dynamoSuppressErrorsRule();  // PTL505  rules/compile/dynamo_suppress_errors.cpp
const Rule& raisedRecompileLimitRule();  // PTL503  rules/compile/raised_recompile_limit.cpp
const Rule& backwardInsideAutocastRule();  // PTL204  rules/amp/backward_inside_autocast.cpp
const Rule& fp16AutocastWithoutGradScalerRule();  // PTL202  rules/amp/fp16_autocast_without_gradscaler.cpp
const Rule& flashBackendWithMaskRule();  // PTL602  rules/attention/flash_backend_with_mask.cpp
const Rule& forcedMathSdpaBackendRule();  // PTL604  rules/attention/forced_math_sdpa_backend.cpp
const Rule& flexAttentionNotCompiledRule();  // PTL603  rules/attention/flex_attention_not_compiled.cpp
const Rule& pinMemoryWithoutNonBlockingRule();  // PTL402  rules/data/pin_memory_without_non_blocking.cpp
const Rule& lowPrecisionGradientReduceRule();  // PTL203  rules/distributed/low_precision_gradient_reduce.cpp
const Rule& fsdp1InNewCodeRule();  // PTL302  rules/distributed/fsdp1_in_new_code.cpp
const Rule& synchronousDataLoaderRule();  // PTL405  rules/data/synchronous_dataloader.cpp
const Rule& dataLoaderPersistentWorkersRule();  // PTL403  rules/data/dataloader_persistent_workers.cpp
const Rule& graphBreakRule();  // PTL901  rules/compile/graph_break.cpp
const Rule& recompileRule();  // PTL902  rules/compile/recompile.cpp
const Rule& invalidAllocConfRule();  // PTL705  rules/numerics/invalid_alloc_conf.cpp
const Rule& legacyTf32ApiRule();  // PTL111  rules/deprecated/legacy_tf32_api.cpp
const Rule& torchscriptDeprecatedRule();  // PTL112  rules/deprecated/torchscript_deprecated.cpp
const Rule& deprecatedArgumentRule();  // PTL113  rules/deprecated/deprecated_argument.cpp
const Rule& torchVersionAsNumberRule();  // PTL114  rules/deprecated/torch_version_as_number.cpp
const Rule& localRankArgumentRule();  // PTL303  rules/distributed/local_rank_argument.cpp
const Rule& sdpaDropoutInEvalRule();  // PTL605  rules/attention/sdpa_dropout_in_eval.cpp
const Rule& functionalDropoutInEvalRule();  // PTL706  rules/numerics/functional_dropout_in_eval.cpp
const Rule& mhaWeightsDiscardedRule();  // PTL606  rules/attention/mha_weights_discarded.cpp
const Rule& stateDictOfWrapperRule();  // PTL802  rules/serialization/state_dict_of_wrapper.cpp
const Rule& clipWithoutUnscaleRule();  // PTL205  rules/amp/clip_without_unscale.cpp
const Rule& lossAccumulatedWithGraphRule();  // PTL708  rules/autograd/loss_accumulated_with_graph.cpp
const Rule& evalWithGradRule();  // PTL707  rules/autograd/eval_with_grad.cpp
const Rule& loadStateDictUncheckedRule();  // PTL803  rules/serialization/load_state_dict_unchecked.cpp
const Rule& perStepHostSyncRule();  // PTL709  rules/numerics/per_step_host_sync.cpp
const Rule& emptyCacheInLoopRule();  // PTL710  rules/numerics/empty_cache_in_loop.cpp
const Rule& distributedSamplerWithoutSetEpochRule();  // PTL406  rules/data/distributed_sampler_without_set_epoch.cpp

}  // namespace ptlint::rules
