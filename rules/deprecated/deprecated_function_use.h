// PTL106's reports (deprecated_function_use.cpp: the message, the rewrite of one use, the
// fallbacks for old releases left alone) and its imports (deprecated_function_imports.cpp: an
// import and the uses of the names it binds, fixed together). The rule: deprecated_torch_function.cpp.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "quickfix/fix.h"
#include "rules/deprecated/call_rewrite.h"
#include "rules/deprecated/deprecated_symbols.h"
#include "rules/rule.h"

namespace ptlint::rules::deprecated_function {

using analysis::Binding;
using analysis::BindingKind;
using analysis::SemanticModel;
using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::sameNode;
using analysis::startOf;
using deprecated::Rewrite;
using deprecated::Symbol;
using deprecated::Version;
using quickfix::Edit;
using quickfix::Fix;
using rewrite::CallArgs;

// Whether the configured `torch-version` (its oldest release) is at least `v`.
bool atLeast(const Context& ctx, Version v);

// Whether `s` is already removed there (an error, not a warning).
bool isRemoved(const Symbol& s, const Context& ctx);

// What is wrong and what to use first; the dates after, in one parenthesis with the range judged.
std::string message(const Symbol& s, const Context& ctx, std::string_view written);

struct Use {
  TSNode ref{};   // `torch.qr`, `T.qr`, `torch_qr`
  TSNode call{};  // the call whose callee is `ref`, or null
};

// "a, b, c".
std::string joinArgs(const std::vector<std::string>& args);

// `name = <node>`: the value of a plain assignment.
bool isAssignedValue(TSNode node);

// The rewrite of one use, where the configured release has the replacement and the argument
// forms are understood; nullopt otherwise.
std::optional<Fix> useFix(const Symbol& s, const Use& use, const Context& ctx);

// True when `node` is the old-release side of code that also uses the replacement: an `except`
// handler whose `try` uses it, or a branch of an `if` (or conditional expression) chosen by a
// version or feature test whose other branch uses it. Such code supports old PyTorch releases.
bool inCompatibilityFallback(TSNode node, const Symbol& s, const Context& ctx);

// Reports `use` of `s` with its fix, unless it sits in a compatibility fallback.
void reportUse(const Symbol& s, const Use& use, Context& ctx);

// The call whose callee is `ref`, or null.
TSNode callOf(TSNode ref);

// A functorch name moved unchanged to torch.func: the import alone is rewritten.
bool movesWithImport(const Symbol& s);

// Imports of deprecated names and every use of the names they bind, in one pass over the file:
// an import whose names are all rewritten at their uses is removed by the same fix, so that the
// import and its uses are fixed together.
void checkImports(TSNode root, Context& ctx);

}  // namespace ptlint::rules::deprecated_function
