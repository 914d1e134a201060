// PTL101's targets, sites and edits (cuda_amp_targets.h).
#include "rules/amp/cuda_amp_targets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules::cuda_amp {

constexpr std::array<Target, 5> kTargets{{
    {"torch.cuda.amp.autocast", "autocast", "cuda", Api::Autocast, 1, 13},
    {"torch.cuda.amp.GradScaler", "GradScaler", "cuda", Api::GradScaler, 2, 3},
    {"torch.cuda.amp.custom_fwd", "custom_fwd", "cuda", Api::CustomFwd, 2, 4},
    {"torch.cuda.amp.custom_bwd", "custom_bwd", "cuda", Api::CustomBwd, 2, 4},
    {"torch.cpu.amp.autocast", "autocast", "cpu", Api::Autocast, 1, 13},
}};

const Target* findTarget(std::string_view qualified) {
  for (const Target& t : kTargets)
    if (t.qualified == qualified) return &t;
  return nullptr;
}

bool isMemberName(std::string_view name) {
  return name == "autocast" || name == "GradScaler" || name == "custom_fwd" || name == "custom_bwd";
}

std::optional<std::string_view> deprecatedModuleDevice(std::string_view qualified) {
  if (qualified == "torch.cuda.amp") return "cuda";
  if (qualified == "torch.cpu.amp") return "cpu";
  return std::nullopt;
}

bool isNewApi(std::string_view qualified) {
  // `torch.GradScaler` and `torch.autocast` are torch.amp's re-exports.
  return qualified == "torch.amp" || qualified.starts_with("torch.amp.") || qualified == "torch.GradScaler" ||
         qualified == "torch.autocast";
}

// The torch.amp API that replaces a target, as the release table names it.
static std::string_view replacementKey(Api api) {
  switch (api) {
    case Api::Autocast: return "torch.amp.autocast";
    case Api::GradScaler: return "torch.amp.GradScaler";
    case Api::CustomFwd: return "torch.amp.custom_fwd";
    case Api::CustomBwd: return "torch.amp.custom_bwd";
  }
  return {};
}

bool replacementAvailable(const Target& t, const Context& ctx) {
  return releases::existsAt(replacementKey(t.api), ctx.settings().torch_version);
}

// Positional parameters of the old constructors, in order; the new ones take the device first,
// so each old positional argument must become a keyword.
static std::span<const std::string_view> oldPositionalNames(Api api) {
  static constexpr std::array<std::string_view, 3> kAutocast{"enabled", "dtype", "cache_enabled"};
  static constexpr std::array<std::string_view, 5> kScaler{"init_scale", "growth_factor", "backoff_factor",
                                                           "growth_interval", "enabled"};
  if (api == Api::Autocast) return kAutocast;
  if (api == Api::GradScaler) return kScaler;
  return {};
}

static std::string quoted(std::string_view device) { return "\"" + std::string(device) + "\""; }

std::string replacementSpelling(const Target& t) {
  switch (t.api) {
    case Api::Autocast: return "torch.amp.autocast(" + quoted(t.device) + ", ...)";
    case Api::GradScaler: return "torch.amp.GradScaler(" + quoted(t.device) + ", ...)";
    case Api::CustomFwd: return "torch.amp.custom_fwd(device_type=" + quoted(t.device) + ", ...)";
    case Api::CustomBwd: return "torch.amp.custom_bwd(device_type=" + quoted(t.device) + ")";
  }
  return {};
}

TSNode ancestor(Path path, size_t up) { return path.size() > up ? path[path.size() - 1 - up] : TSNode{}; }

static bool inAnnotation(Path path) {
  for (size_t up = 1; up <= 16 && up < path.size(); ++up) {
    analysis::NodeKind kind = kindOf(ancestor(path, up));
    if (kind == kind::type) return true;
    if (kind != kind::generic_type && kind != kind::type_parameter && kind != kind::subscript && kind != kind::binary_operator &&
        kind != kind::union_type && kind != kind::tuple && kind != kind::list)
      return false;
  }
  return false;
}

Site classify(Path path) {
  TSNode ref = path.back();
  TSNode parent = ancestor(path, 1);
  if (isKind(parent, kind::call) && sameNode(fieldOf(parent, "function"), ref)) {
    TSNode outer = ancestor(path, 2);
    return {ref, isKind(outer, kind::decorator) ? outer : parent, parent, Form::Call};
  }
  if (isKind(parent, kind::decorator)) return {ref, parent, {}, Form::Decorator};
  if (inAnnotation(path)) return {ref, ref, {}, Form::Annotation};
  return {ref, ref, {}, Form::Value};
}

bool misplacedAutocastArgument(const Site& site, const Target& t, const SemanticModel& model) {
  if (t.api != Api::Autocast || site.form != Form::Call) return false;
  std::vector<TSNode> positional = positionalArguments(site.call);
  if (positional.empty()) return false;
  TSNode first = analysis::unparenthesize(positional[0]);
  if (isKind(first, kind::string) || isKind(first, kind::concatenated_string) || isKind(first, kind::float_)) return true;
  static constexpr std::array<std::string_view, 9> kDtypes{"torch.float16", "torch.half",    "torch.bfloat16",
                                                           "torch.float32", "torch.float",   "torch.float64",
                                                           "torch.double",  "torch.float8_e4m3fn", "torch.float8_e5m2"};
  auto q = model.qualifiedName(first);
  return q && std::find(kDtypes.begin(), kDtypes.end(), *q) != kDtypes.end();
}

// Edits that turn an old argument list into the new one: the device first and old positional
// arguments as keywords (autocast, GradScaler), or `device_type=` appended (custom_fwd/bwd).
// nullopt when the arguments cannot be mapped.
static std::optional<std::vector<Edit>> argumentEdits(TSNode call, const Target& t, std::string_view source) {
  TSNode args = argumentList(call);
  if (ts_node_is_null(args) || hasStarArguments(call)) return std::nullopt;
  std::vector<TSNode> positional = positionalArguments(call);
  std::vector<Edit> edits;
  if (t.api == Api::Autocast || t.api == Api::GradScaler) {
    auto names = oldPositionalNames(t.api);
    if (positional.size() > names.size()) return std::nullopt;
    if (!ts_node_is_null(keywordArgumentNode(call, "device_type", source)) ||
        !ts_node_is_null(keywordArgumentNode(call, "device", source)))
      return std::nullopt;
    for (size_t i = 0; i < positional.size(); ++i)
      if (!ts_node_is_null(keywordArgumentNode(call, names[i], source))) return std::nullopt;
    // The device goes before the first argument (on its line, when arguments start on a new
    // line), or inside the empty parentheses.
    TSNode first{};
    analysis::forEachNamedChild(args, [&](TSNode arg) {
      if (ts_node_is_null(first) && !isKind(arg, kind::comment)) first = arg;
    });
    uint32_t at = ts_node_is_null(first) ? startOf(args) + 1 : startOf(first);
    edits.push_back({at, at, quoted(t.device) + (ts_node_is_null(first) ? "" : ", ")});
    for (size_t i = 0; i < positional.size(); ++i)
      edits.push_back({startOf(positional[i]), startOf(positional[i]), std::string(names[i]) + "="});
    return edits;
  }
  // custom_fwd(fwd=None, *, cast_inputs=None) / custom_bwd(bwd): at most the function positionally.
  if (positional.size() > 1 || !ts_node_is_null(keywordArgumentNode(call, "device_type", source)))
    return std::nullopt;
  edits.push_back(appendArgument(call, "device_type=" + quoted(t.device), source));
  return edits;
}

std::optional<std::vector<Edit>> siteEdits(const Site& site, const Target& t, const std::string& callee,
                                           std::string_view source) {
  std::vector<Edit> edits;
  auto replaceRef = [&](std::string suffix) {
    if (!callee.empty()) edits.push_back({startOf(site.ref), endOf(site.ref), callee + suffix});
    else if (!suffix.empty()) edits.push_back({endOf(site.ref), endOf(site.ref), std::move(suffix)});
  };
  switch (site.form) {
    case Form::Call: {
      auto args = argumentEdits(site.call, t, source);
      if (!args) return std::nullopt;
      edits = std::move(*args);
      replaceRef("");
      return edits;
    }
    case Form::Decorator:
      // `@custom_fwd` -> `@custom_fwd(device_type="cuda")`; autocast or GradScaler used as a bare
      // decorator is not something the old API supported either.
      if (t.api != Api::CustomFwd && t.api != Api::CustomBwd) return std::nullopt;
      replaceRef("(device_type=" + quoted(t.device) + ")");
      return edits;
    case Form::Annotation:
      // The old classes subclass the new ones, so an annotation may name the new one.
      replaceRef("");
      return edits;
    case Form::Value:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ptlint::rules::cuda_amp
