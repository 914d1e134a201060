// PTL601's facts and fix: the scale's kind and value, the autocast dtype, and the
// `scaled_dot_product_attention` call that replaces a matched pattern (attention_matcher.h).
#pragma once

#include <optional>
#include <string>

#include "quickfix/fix.h"
#include "rules/attention/attention_matcher.h"

namespace ptlint::rules::hand_rolled {

struct ScaleInfo {
  AttentionFacts::Scale kind = AttentionFacts::Scale::None;
  double value = 1.0;  // for AttentionFacts::Scale::Value
  bool provably_default = false;  // exactly 1/sqrt(q.size(-1))
  bool conventional = false;      // 1/sqrt(<something>): the usual head-dim scale
};

ScaleInfo classifyScale(const Pattern& p, Matcher& m, std::string_view source, int depth = 0,
                        TSNode factor_override = {}, bool divides_override = false, bool use_override = false);

AttentionFacts::Dtype autocastDtype(TSNode node, Context& ctx);

// The rewrite, or nullopt with `why` saying (for the message) what keeps it from being faithful.
std::optional<quickfix::Fix> buildFix(const Pattern& p, const ScaleInfo& scale, const FunctionFlow& flow, Matcher& m,
                                      Context& ctx, std::string& why);

}  // namespace ptlint::rules::hand_rolled
