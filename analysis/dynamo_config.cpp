#include "analysis/dynamo_config.h"

#include "analysis/environment_writes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {
namespace {

constexpr std::string_view kOption = "capture_scalar_outputs";
constexpr std::string_view kVariable = "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS";

// Is `node` (a keyword or a dict pair) inside the arguments of a `patch(...)` call (the config's
// scoped form: a context manager or decorator)?
bool insidePatchCall(TSNode node, std::string_view source) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    analysis::NodeKind kind = kindOf(up);
    if (kind == kind::call) {
      TSNode callee = unparenthesize(fieldOf(up, "function"));
      TSNode name = isKind(callee, kind::attribute) ? fieldOf(callee, "attribute") : callee;
      return isKind(name, kind::identifier) && textOf(name, source) == "patch";
    }
    if (kind != kind::argument_list && kind != kind::dictionary && kind != kind::pair && kind != kind::keyword_argument &&
        kind != kind::parenthesized_expression)
      return false;
  }
  return false;
}

bool isStringOf(TSNode node, std::string_view source, std::string_view text) {
  if (!isKind(node, kind::string)) return false;
  std::string_view s = textOf(node, source);
  return s.size() == text.size() + 2 && s.substr(1, text.size()) == text && (s[0] == '"' || s[0] == '\'');
}

}  // namespace

bool mayHoldCaptureSetting(std::string_view text) {
  return findBytes(text, kOption) != std::string_view::npos || findBytes(text, kVariable) != std::string_view::npos;
}

bool mayTurnCaptureOn(TSNode value, std::string_view source) {
  value = unparenthesize(value);
  if (ts_node_is_null(value)) return false;
  if (isKind(value, kind::false_) || isKind(value, kind::none)) return false;
  if (isKind(value, kind::integer)) return textOf(value, source) != "0";
  return true;
}

std::optional<std::pair<uint32_t, uint32_t>> processWideCaptureSetting(const SemanticModel& model) {
  std::string_view source = model.file().text();
  if (findBytes(source, kOption) == std::string_view::npos) {
    size_t at = findBytes(source, kVariable);
    if (at == std::string_view::npos || !setsEnvironmentVariable(model.file(), kVariable)) return std::nullopt;
    return std::make_pair(static_cast<uint32_t>(at), static_cast<uint32_t>(at + kVariable.size()));
  }
  auto isDynamoConfig = [&](TSNode config) {
    auto q = model.qualifiedName(config);
    return q && q->starts_with("torch.");
  };
  std::optional<std::pair<uint32_t, uint32_t>> found;
  walkTree(
      model.file().root(),
      [&](TSNode node) {
        if (found) return false;
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::comment || kind == kind::string) return false;
        if (kind == kind::assignment) {
          // `torch._dynamo.config.capture_scalar_outputs = v`
          TSNode left = unparenthesize(fieldOf(node, "left"));
          if (isKind(left, kind::attribute) && textOf(fieldOf(left, "attribute"), source) == kOption &&
              mayTurnCaptureOn(fieldOf(node, "right"), source) && isDynamoConfig(left))
            found = {startOf(node), endOf(node)};
        } else if (kind == kind::call) {
          // `setattr(torch._dynamo.config, "capture_scalar_outputs", v)`
          TSNode callee = fieldOf(node, "function");
          TSNode args = fieldOf(node, "arguments");
          if (isKind(callee, kind::identifier) && textOf(callee, source) == "setattr" && isKind(args, kind::argument_list) &&
              ts_node_named_child_count(args) == 3 && isStringOf(ts_node_named_child(args, 1), source, kOption) &&
              mayTurnCaptureOn(ts_node_named_child(args, 2), source) && isDynamoConfig(ts_node_named_child(args, 0)))
            found = {startOf(node), endOf(node)};
        } else if (kind == kind::keyword_argument) {
          // `config.load_config(capture_scalar_outputs=True)`-like; not `config.patch(...)`.
          if (textOf(fieldOf(node, "name"), source) == kOption && mayTurnCaptureOn(fieldOf(node, "value"), source) &&
              !insidePatchCall(node, source))
            found = {startOf(node), endOf(node)};
        } else if (kind == kind::pair) {
          // `{"capture_scalar_outputs": True}` given to anything but `patch(...)`.
          if (isStringOf(fieldOf(node, "key"), source, kOption) && mayTurnCaptureOn(fieldOf(node, "value"), source) &&
              !insidePatchCall(node, source))
            found = {startOf(node), endOf(node)};
        }
        return !found;
      },
      [](TSNode) {});
  if (found) return found;
  size_t at = findBytes(source, kVariable);
  if (at != std::string_view::npos && setsEnvironmentVariable(model.file(), kVariable))
    return std::make_pair(static_cast<uint32_t>(at), static_cast<uint32_t>(at + kVariable.size()));
  return std::nullopt;
}

}  // namespace ptlint::analysis
