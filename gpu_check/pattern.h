// The attention pattern PTL601 recognised, as handed to `ptlint-gpu`, and its wire form.
// Shared by the `ptlint` side (client.cpp) and the torch side (ptlint_gpu/); no torch here.
//
// Built from what PTL601 recognised (rules::AttentionFacts, rules/attention_facts.h).
#pragma once

#include <nlohmann/json.hpp>

#include "rules/attention_facts.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptlint::gpu_check {

// The scale used for a pattern whose scale is an expression the rule could not evaluate.
inline constexpr double kRepresentativeScale = 0.1;

struct AttentionPattern {
  enum class Scale { Default, None, Value };
  enum class Mask { None, Boolean, Additive, Causal };
  enum class Layout { BHTD, BTD };

  Scale scale = Scale::Default;
  double scale_value = 1.0;  // only for Scale::Value
  Mask mask = Mask::None;
  double dropout = 0.0;      // recorded; validation runs in eval mode (dropout off)
  Layout layout = Layout::BHTD;
  bool softmax_float32 = false;
  std::string dtype = "unknown";  // float32 | float16 | bfloat16 | unknown

  // Test-only: make `ptlint-gpu` run a deliberately wrong rewrite so that a test can show it
  // is caught. "invert_mask" (attn_mask = mask == 0), "drop_scale" (forget the scale),
  // "drop_causal" (forget is_causal). Never set from facts.
  std::string test_wrong_rewrite;

  // From what PTL601 recognised. A scale of 0 or not finite, or a dropout rate outside [0, 1),
  // gives nullopt, and `*error` says which.
  static std::optional<AttentionPattern> fromFacts(const rules::AttentionFacts& facts, std::string* error = nullptr);
};

std::string_view scaleName(AttentionPattern::Scale scale);
std::string_view maskName(AttentionPattern::Mask mask);
std::string_view layoutName(AttentionPattern::Layout layout);

// Wire form (the request `ptlint-gpu` reads). from_json throws nlohmann::json::exception or
// std::invalid_argument on a malformed pattern.
void to_json(nlohmann::json& j, const AttentionPattern& pattern);
void from_json(const nlohmann::json& j, AttentionPattern& pattern);

// The protocol between `ptlint` and `ptlint-gpu`: one JSON request on stdin, one JSON answer on
// stdout. Bumped on any incompatible change; each side refuses a version it does not know.
inline constexpr int kProtocolVersion = 1;

}  // namespace ptlint::gpu_check
