// PTL101's targets (the deprecated `torch.cuda.amp` / `torch.cpu.amp` members and what replaces
// them), where a reference sits (call, decorator, annotation, value) and the edits that rewrite
// it (cuda_amp_targets.cpp). The rule: deprecated_cuda_amp.cpp.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "quickfix/fix.h"
#include "rules/rule.h"

namespace ptlint::rules::cuda_amp {

using analysis::Binding;
using analysis::BindingKind;
using analysis::SemanticModel;
using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::sameNode;
using analysis::startOf;
using quickfix::Edit;
using quickfix::Fix;

enum class Api { Autocast, GradScaler, CustomFwd, CustomBwd };

struct Target {
  std::string_view qualified;  // "torch.cuda.amp.autocast"
  std::string_view member;     // "autocast"
  std::string_view device;     // "cuda"
  Api api;
  int major, minor;            // first PyTorch whose `torch.amp` has the replacement
};

// The target a qualified name spells (`torch.cuda.amp.autocast`), or null.
const Target* findTarget(std::string_view qualified);

// Whether `name` is the last part of some target (`autocast`, `GradScaler`, ...).
bool isMemberName(std::string_view name);

// The deprecated namespaces themselves: "torch.cuda.amp" -> "cuda".
std::optional<std::string_view> deprecatedModuleDevice(std::string_view qualified);

// Whether a qualified name is the new API (`torch.amp...`, `torch.autocast`, `torch.GradScaler`).
bool isNewApi(std::string_view qualified);

// A deprecation is reported only where its replacement exists at the range's oldest release.
bool replacementAvailable(const Target& t, const Context& ctx);

// How the fix message and diagnostic spell the replacement.
std::string replacementSpelling(const Target& t);

enum class Form { Call, Decorator, Annotation, Value };

struct Site {
  TSNode ref{};    // the reference itself: `torch.cuda.amp.autocast`, `amp.autocast`, `ac`
  TSNode range{};  // what the diagnostic covers: the call, the decorator, or the reference
  TSNode call{};   // Form::Call: the call (also when it is a decorator's expression)
  Form form = Form::Value;
};

// `path` runs from the root to the node in question (its last element). Ancestors come from the
// walk's own stack: `ts_node_parent` costs a descent from the root, quadratic on deep input.
using Path = std::span<const TSNode>;

// The ancestor `up` levels above the node, or null.
TSNode ancestor(Path path, size_t up);

// How the reference at the end of `path` is used: called, a decorator, an annotation, a value.
Site classify(Path path);

// `torch.cuda.amp.autocast(torch.bfloat16)`: the old constructor's first parameter is `enabled`,
// so a dtype (or a device string) there was taken as a truthy flag and the region ran in the
// default float16. Such a call is already wrong; rewriting it keeps the bug, so it is not fixed.
bool misplacedAutocastArgument(const Site& site, const Target& t, const SemanticModel& model);

// Edits for one use at `site` once its callee spells the new API: `callee` replaces the
// reference (empty: the reference stays, its import is rewritten instead). nullopt when the use
// cannot be rewritten.
std::optional<std::vector<Edit>> siteEdits(const Site& site, const Target& t, const std::string& callee,
                                           std::string_view source);

}  // namespace ptlint::rules::cuda_amp
