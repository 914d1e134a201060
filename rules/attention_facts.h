// What PTL601 recognised about the attention it reports, kept with the diagnostic as its finding
// data (rules/finding_data.h: rules::findingData<AttentionFacts>(d)) for checks outside the rule: gpu_check rebuilds the computation from it and compares the fix with the
// original on a device. Plain data, no tree-sitter: gpu_check's protocol library includes it.
#pragma once

#include <optional>

namespace ptlint::rules {

struct AttentionFacts {
  enum class Scale { Default, None, Value, Expression };
  enum class Mask { None, Boolean, Additive, Causal };
  enum class Layout { BHTD, BTD };
  enum class Dtype { Unknown, Float32, Float16, BFloat16 };

  // Default: 1/sqrt(head dim). None: no scaling (1.0). Value: `scale_value`. Expression: an
  // expression the rule cannot evaluate, which the fix passes on as `scale=`.
  Scale scale = Scale::Default;
  double scale_value = 1.0;
  // Boolean: `masked_fill(mask == 0, -inf)`; Additive: `scores + mask`; Causal: a lower
  // triangle, which becomes `is_causal=True`.
  Mask mask = Mask::None;
  // The dropout rate on the probabilities; nullopt for an `nn.Dropout` whose rate is unknown.
  std::optional<double> dropout = 0.0;
  Layout layout = Layout::BHTD;  // BHTD: 4-D q/k/v; BTD: 3-D (bmm)
  bool softmax_float32 = false;  // the code upcasts the scores before softmax
  Dtype dtype = Dtype::Unknown;  // from an enclosing autocast, when known
};

}  // namespace ptlint::rules
