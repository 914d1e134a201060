#include "gpu_check/pattern.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ptlint::gpu_check {
namespace {

// A finite decimal number, the whole string. from_chars: locale-independent, no exceptions.
std::optional<double> parseNumber(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool isTrue(std::string_view value) { return value == "true" || value == "True" || value == "1"; }

bool setField(AttentionPattern& p, std::string_view key, std::string_view value, std::string& error) {
  auto bad = [&] {
    error = "PTL601 fact `" + std::string(key) + "` has an unsupported value `" + std::string(value) + "`";
    return false;
  };
  if (key == "scale") {
    if (value == "default") {
      p.scale = AttentionPattern::Scale::Default;
    } else if (value == "none") {
      p.scale = AttentionPattern::Scale::None;
    } else if (value == "unknown") {
      // Not known statically (`* self.scale`): the fix passes the same expression as `scale=`, so
      // the rewrite's structure is validated with a representative value.
      p.scale = AttentionPattern::Scale::Value;
      p.scale_value = kRepresentativeScale;
    } else if (auto number = parseNumber(value); number && *number != 0) {
      p.scale = AttentionPattern::Scale::Value;
      p.scale_value = *number;
    } else {
      return bad();
    }
  } else if (key == "mask") {
    if (value == "none") {
      // keep a causal mask already set by a `causal` fact
    } else if (value == "boolean") {
      p.mask = AttentionPattern::Mask::Boolean;
    } else if (value == "additive") {
      p.mask = AttentionPattern::Mask::Additive;
    } else if (value == "causal") {
      p.mask = AttentionPattern::Mask::Causal;
    } else {
      return bad();
    }
  } else if (key == "causal") {
    if (isTrue(value)) {
      if (p.mask != AttentionPattern::Mask::None && p.mask != AttentionPattern::Mask::Causal) {
        error = "PTL601 facts combine a causal mask with another mask";
        return false;
      }
      p.mask = AttentionPattern::Mask::Causal;
    } else if (!(value == "false" || value == "False" || value == "0" || value.empty())) {
      return bad();
    }
  } else if (key == "dropout") {
    // "module" / "unknown": an nn.Dropout whose p is not known. Validation runs in eval mode
    // (dropout off) either way.
    if (value == "module" || value == "unknown") return true;
    auto number = parseNumber(value.empty() ? "0" : value);
    if (!number || *number < 0 || *number >= 1) return bad();
    p.dropout = *number;
  } else if (key == "layout") {
    if (value == "bhtd") {
      p.layout = AttentionPattern::Layout::BHTD;
    } else if (value == "btd") {
      p.layout = AttentionPattern::Layout::BTD;
    } else {
      return bad();
    }
  } else if (key == "softmax_dtype") {
    if (value == "float32") {
      p.softmax_float32 = true;
    } else if (value.empty()) {
      p.softmax_float32 = false;
    } else {
      return bad();
    }
  } else if (key == "dtype") {
    if (value == "float32" || value == "float16" || value == "bfloat16" || value == "unknown") {
      p.dtype = std::string(value);
    } else if (value.empty()) {
      p.dtype = "unknown";
    } else {
      return bad();
    }
  }
  return true;
}

}  // namespace

std::optional<AttentionPattern> AttentionPattern::fromFacts(const rules::AttentionFacts& facts,
                                                           std::string* error) {
  using Facts = rules::AttentionFacts;
  auto refuse = [&](std::string why) -> std::optional<AttentionPattern> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  AttentionPattern pattern;
  switch (facts.scale) {
    case Facts::Scale::Default: pattern.scale = Scale::Default; break;
    case Facts::Scale::None: pattern.scale = Scale::None; break;
    case Facts::Scale::Value:
      if (!std::isfinite(facts.scale_value) || facts.scale_value == 0)
        return refuse("PTL601 scale " + std::to_string(facts.scale_value) + " is not a usable number");
      pattern.scale = Scale::Value;
      pattern.scale_value = facts.scale_value;
      break;
    case Facts::Scale::Expression:
      // Not known statically (`* self.scale`): the fix passes the same expression as `scale=`,
      // so the rewrite's structure is validated with a representative value.
      pattern.scale = Scale::Value;
      pattern.scale_value = kRepresentativeScale;
      break;
  }
  switch (facts.mask) {
    case Facts::Mask::None: pattern.mask = Mask::None; break;
    case Facts::Mask::Boolean: pattern.mask = Mask::Boolean; break;
    case Facts::Mask::Additive: pattern.mask = Mask::Additive; break;
    case Facts::Mask::Causal: pattern.mask = Mask::Causal; break;
  }
  // An nn.Dropout of unknown rate: validation runs in eval mode (dropout off) either way.
  if (facts.dropout) {
    if (!(*facts.dropout >= 0 && *facts.dropout < 1))
      return refuse("PTL601 dropout rate " + std::to_string(*facts.dropout) + " is outside [0, 1)");
    pattern.dropout = *facts.dropout;
  }
  pattern.layout = facts.layout == Facts::Layout::BTD ? Layout::BTD : Layout::BHTD;
  pattern.softmax_float32 = facts.softmax_float32;
  switch (facts.dtype) {
    case Facts::Dtype::Unknown: pattern.dtype = "unknown"; break;
    case Facts::Dtype::Float32: pattern.dtype = "float32"; break;
    case Facts::Dtype::Float16: pattern.dtype = "float16"; break;
    case Facts::Dtype::BFloat16: pattern.dtype = "bfloat16"; break;
  }
  return pattern;
}

std::string_view scaleName(AttentionPattern::Scale scale) {
  switch (scale) {
    case AttentionPattern::Scale::Default: return "default";
    case AttentionPattern::Scale::None: return "none";
    case AttentionPattern::Scale::Value: return "value";
  }
  return "default";
}

std::string_view maskName(AttentionPattern::Mask mask) {
  switch (mask) {
    case AttentionPattern::Mask::None: return "none";
    case AttentionPattern::Mask::Boolean: return "boolean";
    case AttentionPattern::Mask::Additive: return "additive";
    case AttentionPattern::Mask::Causal: return "causal";
  }
  return "none";
}

std::string_view layoutName(AttentionPattern::Layout layout) {
  return layout == AttentionPattern::Layout::BTD ? "btd" : "bhtd";
}

void to_json(nlohmann::json& j, const AttentionPattern& p) {
  j = nlohmann::json{{"scale", scaleName(p.scale)},
                     {"mask", maskName(p.mask)},
                     {"dropout", p.dropout},
                     {"layout", layoutName(p.layout)},
                     {"softmax_float32", p.softmax_float32},
                     {"dtype", p.dtype}};
  if (p.scale == AttentionPattern::Scale::Value) j["scale_value"] = p.scale_value;
  if (!p.test_wrong_rewrite.empty()) j["test_wrong_rewrite"] = p.test_wrong_rewrite;
}

void from_json(const nlohmann::json& j, AttentionPattern& p) {
  p = AttentionPattern{};
  std::string error;
  auto field = [&](const char* key, const std::string& value) {
    if (!setField(p, key, value, error)) throw std::invalid_argument(error);
  };
  const std::string scale = j.value("scale", "default");
  if (scale == "value") {
    p.scale = AttentionPattern::Scale::Value;
    p.scale_value = j.at("scale_value").get<double>();
    if (!std::isfinite(p.scale_value) || p.scale_value == 0) throw std::invalid_argument("bad scale_value");
  } else {
    field("scale", scale);
  }
  field("mask", j.value("mask", "none"));
  p.dropout = j.value("dropout", 0.0);
  if (!(p.dropout >= 0 && p.dropout < 1)) throw std::invalid_argument("bad dropout");
  field("layout", j.value("layout", "bhtd"));
  p.softmax_float32 = j.value("softmax_float32", false);
  field("dtype", j.value("dtype", "unknown"));
  p.test_wrong_rewrite = j.value("test_wrong_rewrite", "");
  if (!(p.test_wrong_rewrite.empty() || p.test_wrong_rewrite == "invert_mask" ||
        p.test_wrong_rewrite == "drop_scale" || p.test_wrong_rewrite == "drop_causal")) {
    throw std::invalid_argument("unknown test_wrong_rewrite `" + p.test_wrong_rewrite + "`");
  }
}

}  // namespace ptlint::gpu_check
