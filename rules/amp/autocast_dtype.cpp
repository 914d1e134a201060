#include "rules/amp/autocast_dtype.h"

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/helpers.h"

namespace ptlint::rules::amp {

using analysis::fieldOf;
using analysis::isKind;

namespace {

DtypeKind dtypeNamed(std::string_view name) {
  if (name == "torch.bfloat16") return DtypeKind::BFloat16;
  if (name == "torch.float16" || name == "torch.half") return DtypeKind::Float16;
  if (name.starts_with("torch.")) return DtypeKind::Other;
  return DtypeKind::Unknown;
}

// `{"float32": torch.float32, "bfloat16": torch.bfloat16}[key]` with a key the file fixes: the
// entry's value expression; null otherwise.
TSNode dictionaryLookup(const analysis::SemanticModel& model, TSNode subscript) {
  TSNode dict = analysis::resolveValue(model, fieldOf(subscript, "value"));
  if (!isKind(dict, "dictionary")) return {};
  TSNode key_node = fieldOf(subscript, "subscript");
  if (ts_node_is_null(key_node) || !ts_node_is_null(ts_node_next_named_sibling(key_node))) return {};
  std::string_view source = model.file().text();
  auto key = stringLiteral(analysis::resolveValue(model, key_node), source);
  if (!key) return {};
  TSNode found{};
  int matches = 0;
  analysis::forEachNamedChild(dict, [&](TSNode pair) {
    if (!isKind(pair, "pair")) {
      if (isKind(pair, "dictionary_splat")) matches = 2;  // `**other` may hold the key
      return;
    }
    auto text = stringLiteral(fieldOf(pair, "key"), source);
    if (text && *text == *key) {
      found = fieldOf(pair, "value");
      ++matches;
    }
  });
  return matches == 1 ? found : TSNode{};
}

}  // namespace

DtypeKind resolveDtype(const analysis::SemanticModel& model, TSNode expr) {
  for (int depth = 0; depth < 8 && !ts_node_is_null(expr); ++depth) {
    TSNode value = analysis::resolveValue(model, expr);
    if (isKind(value, "identifier") || isKind(value, "attribute")) {
      if (auto name = model.qualifiedName(value)) return dtypeNamed(*name);
      // `self.amp_dtype`, assigned once in the class's methods.
      expr = isKind(value, "attribute") ? selfAttributeValue(model, value) : TSNode{};
    } else if (isKind(value, "subscript")) {
      expr = dictionaryLookup(model, value);  // `ptdtype = {...}[dtype]`
    } else if (isKind(value, "call")) {
      // `getattr(torch, "bfloat16")`
      auto args = positionalArguments(value);
      TSNode function = fieldOf(value, "function");
      if (!isKind(function, "identifier") || model.text(function) != "getattr" || args.size() != 2 ||
          model.resolve("getattr", function) != nullptr)
        return DtypeKind::Unknown;
      auto module = model.qualifiedName(args[0]);
      auto member = stringLiteral(analysis::resolveValue(model, args[1]), model.file().text());
      if (!module || *module != "torch" || !member) return DtypeKind::Unknown;
      return dtypeNamed("torch." + *member);
    } else {
      return DtypeKind::Unknown;
    }
  }
  return DtypeKind::Unknown;
}

bool isAutocastCall(const analysis::SemanticModel& model, TSNode call) {
  // `a.b.f(...)` resolves to a name ending in `.f`: a method not named `autocast` is not one, and
  // needs no resolution (most calls of a file are such methods).
  TSNode function = analysis::unparenthesize(analysis::fieldOf(call, "function"));
  if (analysis::isKind(function, "attribute") && model.text(analysis::fieldOf(function, "attribute")) != "autocast")
    return false;
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
