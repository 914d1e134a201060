#include "rules/amp/autocast_dtype.h"

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/helpers.h"

namespace ptlint::rules::amp {

using analysis::isKind;

DtypeKind resolveDtype(const analysis::SemanticModel& model, TSNode expr) {
  if (ts_node_is_null(expr)) return DtypeKind::Unknown;
  TSNode value = analysis::resolveValue(model, expr);
  if (!isKind(value, "identifier") && !isKind(value, "attribute")) return DtypeKind::Unknown;
  auto name = model.qualifiedName(value);
  if (!name) return DtypeKind::Unknown;
  if (*name == "torch.bfloat16") return DtypeKind::BFloat16;
  if (*name == "torch.float16" || *name == "torch.half") return DtypeKind::Float16;
  if (name->starts_with("torch.")) return DtypeKind::Other;
  return DtypeKind::Unknown;
}

bool isAutocastCall(const analysis::SemanticModel& model, TSNode call) {
  auto callee = model.calleeName(call);
  if (!callee) return false;
  return *callee == "torch.amp.autocast" || *callee == "torch.cuda.amp.autocast" || *callee == "torch.cpu.amp.autocast";
}

AutocastDtype autocastCallDtype(const analysis::SemanticModel& model, TSNode call) {
  AutocastDtype out;
  out.call = call;
  std::string_view source = model.file().text();
  TSNode enabled = keywordArgument(call, "enabled", source);
  if (!ts_node_is_null(enabled) && isFalseLiteral(analysis::resolveValue(model, enabled))) {
    out.kind = DtypeKind::Other;
    return out;
  }
  TSNode dtype = keywordArgument(call, "dtype", source);
  if (ts_node_is_null(dtype)) {
    auto positional = positionalArguments(call);
    if (positional.size() >= 2 && !hasStarArguments(call)) dtype = positional[1];
  }
  out.kind = resolveDtype(model, dtype);
  return out;
}

TSNode autocastCallOf(const analysis::SemanticModel& model, TSNode expr) {
  TSNode value = analysis::resolveValue(model, expr);
  if (isKind(value, "call") && isAutocastCall(model, value)) return value;
  return {};
}

}  // namespace ptlint::rules::amp
