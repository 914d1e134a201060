// torchvision's model builders and the weights their legacy `pretrained=` flags stand for.
#pragma once

#include <string_view>

namespace ptlint::rules::vision {

struct Builder {
  std::string_view exported;   // "torchvision.models.resnet50"
  std::string_view defined;    // "torchvision.models.resnet.resnet50"
  std::string_view weights;    // "torchvision.models.ResNet50_Weights.IMAGENET1K_V1", "None", or ""
  std::string_view quantized;  // the weights when `quantize=True` (quantized builders), or ""
  std::string_view backbone;   // the weights for `pretrained_backbone=True`, or ""
};

// One lookup per resolved callee; null for anything that is not a torchvision builder.
const Builder* findBuilder(std::string_view qualified);

}  // namespace ptlint::rules::vision
