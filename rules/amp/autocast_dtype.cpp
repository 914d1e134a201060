#include "rules/amp/autocast_dtype.h"

#include <algorithm>
#include <memory>

#include "analysis/code_text.h"
#include "analysis/instrumentation.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "analysis/value_flow.h"
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
  if (!isKind(dict, kind::dictionary)) return {};
  TSNode key_node = fieldOf(subscript, "subscript");
  if (ts_node_is_null(key_node) || !ts_node_is_null(ts_node_next_named_sibling(key_node))) return {};
  std::string_view source = model.file().text();
  auto key = stringLiteral(analysis::resolveValue(model, key_node), source);
  if (!key) return {};
  TSNode found{};
  int matches = 0;
  analysis::forEachNamedChild(dict, [&](TSNode pair) {
    if (!isKind(pair, kind::pair)) {
      if (isKind(pair, kind::dictionary_splat)) matches = 2;  // `**other` may hold the key
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

namespace {

DtypeKind resolveDtypeOnce(const analysis::SemanticModel& model, TSNode expr);

}  // namespace

DtypeKind resolveDtype(const analysis::SemanticModel& model, TSNode expr) {
  DtypeKind kind = resolveDtypeOnce(model, expr);
  if (kind != DtypeKind::Unknown || ts_node_is_null(expr)) return kind;
  auto values = analysis::valuesOf(model, expr);
  if (values.unknown || values.values.empty()) return DtypeKind::Unknown;
  DtypeKind common = DtypeKind::Unknown;
  for (const auto& value : values.values) {
    if (value.kind != analysis::FlowValue::Kind::Expression) return DtypeKind::Unknown;
    DtypeKind one = resolveDtypeOnce(value.in(model), value.node);
    if (one == DtypeKind::Unknown || (common != DtypeKind::Unknown && one != common)) return DtypeKind::Unknown;
    common = one;
  }
  return common;
}

namespace {

DtypeKind resolveDtypeOnce(const analysis::SemanticModel& model, TSNode expr) {
  for (int depth = 0; depth < 8 && !ts_node_is_null(expr); ++depth) {
    TSNode value = analysis::resolveValue(model, expr);
    if (isKind(value, kind::identifier) || isKind(value, kind::attribute)) {
      if (auto name = model.qualifiedName(value)) return dtypeNamed(*name);
      // `self.amp_dtype`, assigned once in the class's methods.
      expr = isKind(value, kind::attribute) ? selfAttributeValue(model, value) : TSNode{};
    } else if (isKind(value, kind::subscript)) {
      expr = dictionaryLookup(model, value);  // `ptdtype = {...}[dtype]`
    } else if (isKind(value, kind::call)) {
      // `getattr(torch, "bfloat16")`
      auto args = positionalArguments(value);
      TSNode function = fieldOf(value, "function");
      if (!isKind(function, kind::identifier) || model.text(function) != "getattr" || args.size() != 2 ||
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

bool isAutocastName(std::string_view name) {
  return name == "torch.amp.autocast" || name == "torch.cuda.amp.autocast" || name == "torch.cpu.amp.autocast";
}

// `autocast` at `at` is a name a `from ... import` line imports as itself (`from torch.cuda.amp
// import GradScaler, autocast`): a use elsewhere spells it, an alias (`autocast as ac`) does not.
bool importedAsItself(std::string_view code, size_t at) {
  constexpr size_t kLength = 8;  // `autocast`
  if (at > 0 && (analysis::isIdentifierByte(code[at - 1]) || code[at - 1] == '.')) return false;
  size_t start = at;
  while (start > 0 && code[start - 1] != '\n' && code[start - 1] != '\r') --start;
  std::string_view head = code.substr(start, at - start);
  head.remove_prefix(std::min(head.find_first_not_of(" \t"), head.size()));
  size_t import = head.find(" import ");
  if (!head.starts_with("from ") || import == std::string_view::npos) return false;
  // Only names of the import between (`from m import a, b as c, autocast`), no `;` or `=`.
  for (char c : head.substr(import + 8))
    if (!analysis::isIdentifierByte(c) && c != ' ' && c != '\t' && c != ',' && c != '(') return false;
  size_t next = at + kLength;
  while (next < code.size() && (code[next] == ' ' || code[next] == '\t')) ++next;
  return next >= code.size() || code[next] == ',' || code[next] == ')' || code[next] == '\n' || code[next] == '\r';
}

// Can a call of the file reach an autocast through a value: a `partial` of one, or an autocast
// named without being called (`amp_autocast = torch.cuda.amp.autocast`)? Either way the code
// (strings and comments aside) spells `autocast` somewhere other than in a call `autocast(...)`
// or a plain import of the name: `partial(torch.autocast, ...)`, `x = autocast`, `import ...
// autocast as ac`. Asked once per file: in most files no call can, and their calls then need no
// value flow.
bool mayCallIndirectly(const analysis::SemanticModel& model) {
  static const int kTag = 0;
  return model.perFileAnalysis<bool>(&kTag, [&] {
    std::string_view code = analysis::codeOrText(model.file());
    bool found = analysis::prefiltersDisabled();
    for (size_t at = code.find("autocast"); !found && at != std::string_view::npos; at = code.find("autocast", at + 1)) {
      size_t next = at + 8;
      while (next < code.size() && (code[next] == ' ' || code[next] == '\t')) ++next;
      found = (next >= code.size() || code[next] != '(') && !importedAsItself(code, at);
    }
    return std::make_shared<const bool>(found);
  });
}

// An autocast reached through the value of a call's callee: the autocast's name and, for a
// `functools.partial` of one, the partial call (whose arguments come first).
struct IndirectAutocast {
  std::string callee;
  TSNode partial{};
};

// Among the values the callee may hold (`amp_autocast = suppress`, then `amp_autocast =
// partial(torch.autocast, ...)`; `self.amp_autocast`), the one autocast: values that are no
// autocast (a `nullcontext`) do not count, two different autocasts leave it undecided.
std::optional<IndirectAutocast> indirectAutocast(const analysis::SemanticModel& model, TSNode call) {
  TSNode function = analysis::unparenthesize(fieldOf(call, "function"));
  // A name, or an attribute of `self`.
  if (!isKind(function, kind::identifier) && !(isKind(function, kind::attribute) && model.text(fieldOf(function, "object")) == "self")) return std::nullopt;
  if (!mayCallIndirectly(model)) return std::nullopt;
  std::optional<IndirectAutocast> found;
  for (const auto& value : analysis::valuesOf(model, function).values) {
    if (value.kind != analysis::FlowValue::Kind::Expression || value.model != nullptr) continue;
    IndirectAutocast one;
    if (isKind(value.node, kind::call)) {
      auto callee = model.calleeName(value.node);
      auto args = positionalArguments(value.node);
      if (!callee || *callee != "functools.partial" || args.empty()) continue;
      auto wrapped = model.qualifiedName(args[0]);
      if (!wrapped || !isAutocastName(*wrapped)) continue;
      one = {*wrapped, value.node};
    } else if (isKind(value.node, kind::identifier) || isKind(value.node, kind::attribute)) {
      if (analysis::sameNode(value.node, function)) continue;
      auto wrapped = model.qualifiedName(value.node);
      if (!wrapped || !isAutocastName(*wrapped)) continue;
      one = {*wrapped, TSNode{}};
    } else {
      continue;
    }
    if (found && (found->callee != one.callee || !analysis::sameNode(found->partial, one.partial))) return std::nullopt;
    found = one;
  }
  return found;
}

TSNode autocastPartial(const analysis::SemanticModel& model, TSNode call) {
  auto indirect = indirectAutocast(model, call);
  return indirect ? indirect->partial : TSNode{};
}

}  // namespace

bool isAutocastCall(const analysis::SemanticModel& model, TSNode call) { return autocastCallee(model, call).has_value(); }

std::optional<std::string> autocastCallee(const analysis::SemanticModel& model, TSNode call) {
  // `a.b.f(...)` resolves to a name ending in `.f`: a method not named `autocast` is not one, and
  // needs no resolution (most calls of a file are such methods).
  TSNode function = analysis::unparenthesize(analysis::fieldOf(call, "function"));
  bool named = !analysis::isKind(function, kind::attribute) || model.text(analysis::fieldOf(function, "attribute")) == "autocast";
  if (named) {
    auto callee = model.calleeName(call);
    if (callee && isAutocastName(*callee)) return callee;
  }
  auto indirect = indirectAutocast(model, call);
  if (!indirect) return std::nullopt;
  return indirect->callee;
}

bool autocastHidesArguments(const analysis::SemanticModel& model, TSNode call) {
  if (hasStarArguments(call) || hasDoubleStarArguments(call)) return true;
  TSNode partial = autocastPartial(model, call);
  return !ts_node_is_null(partial) && (hasStarArguments(partial) || hasDoubleStarArguments(partial));
}

TSNode autocastArgument(const analysis::SemanticModel& model, TSNode call, std::string_view keyword, size_t slot) {
  std::string_view source = model.file().text();
  TSNode value = keywordArgument(call, keyword, source);
  if (!ts_node_is_null(value)) return value;
  TSNode partial = autocastPartial(model, call);
  if (!ts_node_is_null(partial)) {
    value = keywordArgument(partial, keyword, source);
    if (!ts_node_is_null(value)) return value;
  }
  std::vector<TSNode> positional;
  if (!ts_node_is_null(partial)) {
    if (hasStarArguments(partial) || hasDoubleStarArguments(partial)) return {};
    auto bound = positionalArguments(partial);
    positional.assign(bound.begin() + 1, bound.end());
  }
  if (hasStarArguments(call) || hasDoubleStarArguments(call)) return {};
  for (TSNode arg : positionalArguments(call)) positional.push_back(arg);
  return slot < positional.size() ? positional[slot] : TSNode{};
}

AutocastDtype autocastCallDtype(const analysis::SemanticModel& model, TSNode call) {
  AutocastDtype out;
  out.call = call;
  std::string_view source = model.file().text();
  TSNode enabled = keywordArgument(call, "enabled", source);
  if (ts_node_is_null(enabled)) {
    TSNode partial = autocastPartial(model, call);
    if (!ts_node_is_null(partial)) enabled = keywordArgument(partial, "enabled", source);
  }
  if (!ts_node_is_null(enabled) && isFalseLiteral(analysis::resolveValue(model, enabled))) {
    out.kind = DtypeKind::Other;
    return out;
  }
  TSNode dtype = keywordArgument(call, "dtype", source);
  if (ts_node_is_null(dtype)) {
    auto positional = positionalArguments(call);
    if (positional.size() >= 2 && !hasStarArguments(call)) dtype = positional[1];
  }
  if (ts_node_is_null(dtype)) dtype = autocastArgument(model, call, "dtype", 1);
  out.kind = resolveDtype(model, dtype);
  return out;
}

std::vector<ModelNode> autocastValuesOf(const analysis::SemanticModel& model, TSNode expr) {
  std::vector<ModelNode> out;
  expr = analysis::unparenthesize(expr);
  if (isKind(expr, kind::call) && isAutocastCall(model, expr)) return {{nullptr, expr}};
  for (const auto& value : analysis::valuesOf(model, expr).values)
    if (value.kind == analysis::FlowValue::Kind::Expression && isKind(value.node, kind::call) &&
        isAutocastCall(value.in(model), value.node))
      out.push_back({value.model, value.node});
  return out;
}

}  // namespace ptlint::rules::amp
