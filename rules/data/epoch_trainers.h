// The training frameworks that own a `DistributedSampler`'s epoch: their loops call `set_epoch`
// on the samplers they create or wrap (PTL406 is silent where one is imported, in the file or
// anywhere in its project).
#pragma once

#include <array>
#include <string_view>

namespace ptlint::rules {

inline constexpr std::array<std::string_view, 10> kEpochSettingTrainers{
    "pytorch_lightning", "lightning", "accelerate", "transformers", "deepspeed",
    "ignite",            "composer",  "mmengine",   "mmcv",         "detectron2"};

}  // namespace ptlint::rules
