// PTL106: what a use of a deprecated symbol reports, its rewrite, and the fallbacks for old
// releases that are left alone (deprecated_function_use.h).
#include "rules/deprecated/deprecated_function_use.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "rules/deprecated/call_rewrite.h"
#include "rules/deprecated/deprecated_symbols.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules::deprecated_function {

bool atLeast(const Context& ctx, Version v) { return ctx.torchAtLeast(v.major, v.minor); }

static std::string versionText(Version v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

// "since PyTorch 1.9", or "since PyTorch 1.13 or earlier" where 1.13 is only the oldest release
// whose sources were checked.
static std::string sinceText(Version v) { return "since PyTorch " + versionText(v) + (v.or_earlier ? " or earlier" : ""); }

bool isRemoved(const Symbol& s, const Context& ctx) { return s.removed.known() && atLeast(ctx, s.removed); }

static std::string_view parentOf(std::string_view qualified) {
  size_t dot = qualified.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : qualified.substr(0, dot);
}

static std::string_view lastOf(std::string_view qualified) {
  size_t dot = qualified.rfind('.');
  return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

// A module-level import the replacement needs beyond `torch` itself.
static std::string_view moduleToImport(const Symbol& s) {
  if (s.replacement.starts_with("torch.func.")) return "torch.func";
  if (s.replacement.starts_with("torch.nn.attention.")) return "torch.nn.attention";
  return {};
}

std::string message(const Symbol& s, const Context& ctx, std::string_view written) {
  (void)written;  // the underlined code shows how the file spells it
  std::string name = "`" + std::string(s.qualified) + "`";
  std::string use = "; use `" + std::string(s.replacement) + "`";
  if (isRemoved(s, ctx))
    return name + " was removed in PyTorch " + versionText(s.removed) + use + versions::judgedFor(ctx.settings());
  return name + " is deprecated" + use + versions::judgedFor(ctx.settings());
}

std::string deprecatedHelp(const Symbol& s) { return "Deprecated " + sinceText(s.deprecated) + "."; }

// The replacement's callee text at `ref`, and whether `import torch` is needed.
static std::optional<std::string> calleeText(const Symbol& s, TSNode ref, const SemanticModel& model,
                                             std::vector<std::string_view>& imports) {
  // Same module: only the member changes (`nn.UpsamplingNearest2d` -> `nn.Upsample`).
  if (isKind(ref, kind::attribute)) {
    TSNode object = fieldOf(ref, "object");
    auto q = model.qualifiedName(object);
    if (q && *q == parentOf(s.replacement))
      return std::string(model.text(object)) + "." + std::string(lastOf(s.replacement));
  }
  bool needs_import = false;
  std::string prefix = rewrite::torchPrefix(ref, model, needs_import);
  if (prefix.empty()) return std::nullopt;
  std::string_view module = moduleToImport(s);
  if (!module.empty() && !model.importsModule(module)) imports.push_back(module);
  else if (needs_import) imports.push_back("torch");
  return prefix + std::string(s.replacement.substr(5));  // "torch.linalg.qr" -> prefix + ".linalg.qr"
}

std::string joinArgs(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// The new call text for `use.call`, or nullopt when the arguments do not map.
static std::optional<std::string> rewrittenCall(const Symbol& s, const std::string& callee, TSNode call,
                                                const SemanticModel& model) {
  std::string_view source = model.file().text();
  auto args = rewrite::plainArguments(call, source);
  if (!args) return std::nullopt;
  auto text = [&](TSNode n) { return std::string(analysis::textOf(n, source)); };
  std::vector<std::string> out;
  auto keepKeywords = [&](std::initializer_list<std::string_view> allowed) {
    for (const auto& [name, node] : args->keywords) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) return false;
      out.push_back(text(node));
    }
    return true;
  };
  const auto& p = args->positional;
  switch (s.rewrite) {
    case Rewrite::None: return std::nullopt;
    case Rewrite::Rename:
      return callee + std::string(analysis::textOf(argumentList(call), source));
    case Rewrite::PytreeRegister: {
      if (p.size() > 3 || args->hasKeyword("to_str_fn") || args->hasKeyword("maybe_from_str_fn")) return std::nullopt;
      return callee + std::string(analysis::textOf(argumentList(call), source));
    }
    case Rewrite::Qr: {
      if (p.empty() || p.size() > 2) return std::nullopt;
      TSNode some = p.size() == 2 ? p[1] : args->keywordValue("some");
      if (p.size() == 2 && args->hasKeyword("some")) return std::nullopt;
      out.push_back(text(p[0]));
      for (const auto& [name, node] : args->keywords) {
        if (name == "some") continue;
        if (name != "out") return std::nullopt;
        out.push_back(text(node));
      }
      if (!ts_node_is_null(some)) {
        if (isFalseLiteral(some)) out.push_back("mode=\"complete\"");
        else if (!isTrueLiteral(some)) return std::nullopt;
      }
      return callee + "(" + joinArgs(out) + ")";
    }
    case Rewrite::Cholesky: {
      if (p.empty() || p.size() > 2) return std::nullopt;
      TSNode upper = p.size() == 2 ? p[1] : args->keywordValue("upper");
      for (const auto& [name, node] : args->keywords)
        if (name != "upper") return std::nullopt;
      if (p.size() == 2 && args->hasKeyword("upper")) return std::nullopt;
      bool transpose = false;
      if (!ts_node_is_null(upper)) {
        if (isTrueLiteral(upper)) transpose = true;
        else if (!isFalseLiteral(upper)) return std::nullopt;
      }
      return callee + "(" + text(p[0]) + ")" + (transpose ? ".mH" : "");
    }
    case Rewrite::ChainMatmul: {
      if (p.size() < 2 || !args->keywords.empty()) return std::nullopt;
      for (TSNode n : p) out.push_back(text(n));
      return callee + "([" + joinArgs(out) + "])";
    }
    case Rewrite::LuSolve: {
      if (p.size() != 3 || !args->keywords.empty()) return std::nullopt;
      return callee + "(" + text(p[1]) + ", " + text(p[2]) + ", " + text(p[0]) + ")";
    }
    case Rewrite::Range: {
      if (p.size() < 2 || p.size() > 3) return std::nullopt;
      out.push_back(text(p[0]));
      std::string step = p.size() == 3 ? rewrite::asOperand(p[2], source) : "1";
      out.push_back(rewrite::asOperand(p[1], source) + " + " + step);
      if (p.size() == 3) out.push_back(text(p[2]));
      if (!keepKeywords({"dtype", "layout", "device", "requires_grad", "out"})) return std::nullopt;
      // `range` makes the default floating dtype whatever its bounds are; `arange` infers it from
      // them (int64 for integers). Floating-point bounds give the default dtype either way.
      bool floating = false;
      for (TSNode n : p) floating = floating || isKind(analysis::unparenthesize(n), kind::float_);
      if (!args->hasKeyword("dtype") && !args->hasKeyword("out") && !floating)
        out.push_back("dtype=" + callee.substr(0, callee.rfind('.')) + ".get_default_dtype()");
      return callee + "(" + joinArgs(out) + ")";
    }
    case Rewrite::UpsampleNearest:
    case Rewrite::UpsampleBilinear: {
      if (p.size() > 2) return std::nullopt;
      for (TSNode n : p) out.push_back(text(n));
      if (!keepKeywords({"size", "scale_factor"})) return std::nullopt;
      out.push_back(s.rewrite == Rewrite::UpsampleNearest ? "mode=\"nearest\""
                                                          : "mode=\"bilinear\", align_corners=True");
      return callee + "(" + joinArgs(out) + ")";
    }
    case Rewrite::SdpKernel: {
      // sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True)
      static constexpr std::array<std::string_view, 4> kParams{"enable_flash", "enable_math", "enable_mem_efficient",
                                                               "enable_cudnn"};
      if (p.size() > kParams.size()) return std::nullopt;
      std::array<bool, 4> on{true, true, true, true};
      for (size_t i = 0; i < p.size(); ++i) {
        if (!isTrueLiteral(p[i]) && !isFalseLiteral(p[i])) return std::nullopt;
        on[i] = isTrueLiteral(p[i]);
      }
      for (const auto& [name, node] : args->keywords) {
        auto it = std::find(kParams.begin(), kParams.end(), name);
        if (it == kParams.end()) return std::nullopt;
        size_t i = static_cast<size_t>(it - kParams.begin());
        if (i < p.size()) return std::nullopt;
        TSNode value = fieldOf(node, "value");
        if (!isTrueLiteral(value) && !isFalseLiteral(value)) return std::nullopt;
        on[i] = isTrueLiteral(value);
      }
      // The order PyTorch's sdp_kernel builds its list in: flash, efficient, math, cuDNN.
      std::string module = callee.substr(0, callee.rfind('.'));
      static constexpr std::array<std::pair<size_t, std::string_view>, 4> kOrder{
          {{0, "FLASH_ATTENTION"}, {2, "EFFICIENT_ATTENTION"}, {1, "MATH"}, {3, "CUDNN_ATTENTION"}}};
      for (auto [i, backend] : kOrder)
        if (on[i]) out.push_back(module + ".SDPBackend." + std::string(backend));
      if (out.empty()) return std::nullopt;
      return callee + "([" + joinArgs(out) + "])";
    }
  }
  return std::nullopt;
}

bool movesWithImport(const Symbol& s);

bool isAssignedValue(TSNode node) {
  TSNode parent = ts_node_parent(node);
  return isKind(parent, kind::assignment) && sameNode(fieldOf(parent, "right"), node);
}

std::optional<Fix> useFix(const Symbol& s, const Use& use, const Context& ctx) {
  if (s.rewrite == Rewrite::None || !atLeast(ctx, s.replacement_since)) return std::nullopt;
  const SemanticModel& model = ctx.model();
  std::vector<std::string_view> imports;
  auto callee = calleeText(s, use.ref, model, imports);
  if (!callee) return std::nullopt;
  std::vector<Edit> edits;
  if (!ts_node_is_null(use.call)) {
    auto call = rewrittenCall(s, *callee, use.call, model);
    if (!call) return std::nullopt;
    edits.push_back({startOf(use.call), endOf(use.call), *call});
  } else if (s.rewrite == Rewrite::Rename && (movesWithImport(s) || isAssignedValue(use.ref))) {
    // `f = functorch.vmap`, `outer = torch.ger`. Elsewhere a reference can be a dict key or
    // stand for the function object itself (`{torch.ger: ...}`, `add_docstr(torch.ger, ...)`),
    // where the replacement, a different object, would change what the code does.
    edits.push_back({startOf(use.ref), endOf(use.ref), *callee});
  } else {
    return std::nullopt;
  }
  for (std::string_view module : imports) {
    auto edit = quickfix::addImport(ctx.model(), "import " + std::string(module));
    if (!edit) return std::nullopt;
    edits.push_back(std::move(*edit));
  }
  if (!quickfix::normalizeEdits(edits)) return std::nullopt;
  return Fix{s.applicability, "Use `" + std::string(s.replacement) + "` instead of `" + std::string(s.qualified) + "`",
             std::move(edits)};
}

// --- Compatibility fallbacks ---------------------------------------------------------------

// Does `root`, outside `skip`, refer to the replacement (`torch.nn.attention.sdpa_kernel`) or
// import from its module?
static bool mentionsReplacement(TSNode root, TSNode skip, const Symbol& s, const SemanticModel& model) {
  if (ts_node_is_null(root)) return false;
  std::string_view replacement = s.replacement;
  bool found = false;
  analysis::walkTree(
      root,
      [&](TSNode node) {
        if (found || (!ts_node_is_null(skip) && sameNode(node, skip))) return false;
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::import_from_statement) {
          std::string_view from = model.text(fieldOf(node, "module_name"));
          found = !from.empty() && replacement.starts_with(from) &&
                  (replacement.size() == from.size() || replacement[from.size()] == '.');
          return false;
        }
        if (kind == kind::attribute || kind == kind::identifier) {
          auto q = model.qualifiedName(node);
          if (q && *q == replacement) found = true;
          return !found && kind == kind::attribute && !q;
        }
        return true;
      },
      [](TSNode) {});
  return found;
}

// A condition that tests the PyTorch release or a feature: `torch_version >= version.parse("2.3")`,
// `hasattr(torch.nn, "attention")`, `_TORCH_GREATER_EQUAL_2_3`.
static bool isFeatureTest(TSNode condition, std::string_view source) {
  if (ts_node_is_null(condition)) return false;
  std::string text(analysis::textOf(condition, source));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  bool version_flag = false;
  if (text.find("torch") != std::string::npos)
    for (size_t i = 1; i + 1 < text.size() && !version_flag; ++i)
      version_flag = text[i] == '_' && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                     std::isdigit(static_cast<unsigned char>(text[i + 1]));
  return version_flag || text.find("version") != std::string::npos || text.find("hasattr") != std::string::npos;
}

// Does any condition of an `if` statement (its own or an `elif`'s) test a release or feature?
static bool chainTestsFeature(TSNode if_statement, std::string_view source) {
  if (isFeatureTest(fieldOf(if_statement, "condition"), source)) return true;
  bool found = false;
  analysis::forEachNamedChild(if_statement, [&](TSNode clause) {
    if (!found && isKind(clause, kind::elif_clause)) found = isFeatureTest(fieldOf(clause, "condition"), source);
  });
  return found;
}

bool inCompatibilityFallback(TSNode node, const Symbol& s, const Context& ctx) {
  const SemanticModel& model = ctx.model();
  TSNode child = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent);
       child = parent, parent = ts_node_parent(parent)) {
    analysis::NodeKind kind = kindOf(parent);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::module) return false;
    if (kind == kind::try_statement && isKind(child, kind::except_clause)) {
      if (mentionsReplacement(fieldOf(parent, "body"), {}, s, model)) return true;
    } else if (kind == kind::if_statement || kind == kind::conditional_expression) {
      TSNode condition = kind == kind::if_statement ? fieldOf(parent, "condition") : ts_node_named_child(parent, 1);
      bool feature = kind == kind::if_statement ? chainTestsFeature(parent, ctx.source())
                                            : isFeatureTest(condition, ctx.source());
      if (!sameNode(condition, child) && feature && mentionsReplacement(parent, child, s, model))
        return true;
    }
  }
  return false;
}

void reportUse(const Symbol& s, const Use& use, Context& ctx) {
  if (inCompatibilityFallback(use.ref, s, ctx)) return;
  TSNode range = ts_node_is_null(use.call) ? use.ref : use.call;
  Diagnostic& d = ctx.report(range, message(s, ctx, ctx.text(use.ref)));
  d.help = deprecatedHelp(s);
  if (isRemoved(s, ctx)) d.severity = Severity::Error;
  d.fix = useFix(s, use, ctx);
}

TSNode callOf(TSNode ref) {
  TSNode parent = ts_node_parent(ref);
  if (isKind(parent, kind::call) && sameNode(fieldOf(parent, "function"), ref)) return parent;
  return {};
}

}  // namespace ptlint::rules::deprecated_function
