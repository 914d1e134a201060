#include "rules/attention/sdpa_backends.h"

#include <array>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/value_resolution.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules::attention {

using analysis::isKind;

namespace {

std::optional<std::string> backendMember(const analysis::SemanticModel& model, TSNode expr) {
  TSNode value = analysis::resolveValue(model, expr);
  if (!isKind(value, kind::attribute) && !isKind(value, kind::identifier)) return std::nullopt;
  auto name = model.qualifiedName(value);
  if (!name) return std::nullopt;
  for (std::string_view prefix : {"torch.nn.attention.SDPBackend.", "torch.backends.cuda.SDPBackend.",
                                  "torch._C._SDPBackend."}) {
    if (name->starts_with(prefix)) {
      std::string member = name->substr(prefix.size());
      if (member == "FLASH_ATTENTION" || member == "EFFICIENT_ATTENTION" || member == "MATH" ||
          member == "CUDNN_ATTENTION" || member == "OVERRIDEABLE")
        return member;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<BackendSet> allowedBackends(const analysis::SemanticModel& model, TSNode call) {
  auto callee = model.calleeName(call);
  if (!callee) return std::nullopt;
  std::string_view source = model.file().text();
  if (hasStarArguments(call) || hasDoubleStarArguments(call)) return std::nullopt;
  if (*callee == "torch.nn.attention.sdpa_kernel") {
    TSNode arg = analysis::argumentFor(call, 0, "backends", source);
    if (ts_node_is_null(arg)) return std::nullopt;
    TSNode value = analysis::resolveValue(model, arg);
    BackendSet out;
    if (isKind(value, kind::list) || isKind(value, kind::tuple) || isKind(value, kind::set)) {
      bool ok = true;
      analysis::forEachNamedChild(value, [&](TSNode element) {
        if (isKind(element, kind::comment)) return;
        auto member = backendMember(model, element);
        if (!member) ok = false;
        else out.insert(*member);
      });
      if (!ok || out.empty()) return std::nullopt;
      return out;
    }
    auto member = backendMember(model, value);
    if (!member) return std::nullopt;
    out.insert(*member);
    return out;
  }
  if (*callee == "torch.backends.cuda.sdp_kernel") {
    // sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True)
    constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kFlags{{
        {"enable_flash", "FLASH_ATTENTION"},
        {"enable_math", "MATH"},
        {"enable_mem_efficient", "EFFICIENT_ATTENTION"},
        {"enable_cudnn", "CUDNN_ATTENTION"},
    }};
    auto positional = positionalArguments(call);
    BackendSet out;
    for (size_t i = 0; i < kFlags.size(); ++i) {
      TSNode arg = keywordArgument(call, kFlags[i].first, source);
      if (ts_node_is_null(arg) && positional.size() > i) arg = positional[i];
      bool on = true;
      if (!ts_node_is_null(arg)) {
        auto value = boolValue(model, arg);
        if (!value) return std::nullopt;
        on = *value;
      }
      if (on) out.insert(std::string(kFlags[i].second));
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace ptlint::rules::attention
