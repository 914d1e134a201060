// Small helpers shared by the rules that rewrite calls to renamed or moved PyTorch APIs
// (PTL102-PTL110, PTL704, PTL801): argument texts, the spelling of `torch` at a use, and
// edit normalisation.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"
#include "quickfix/fix.h"

namespace ptlint::rules::rewrite {

// `a.b.c` -> the node `a`.
TSNode baseOf(TSNode ref);

// The spelling of `torch` for a rewritten reference: the reference's own base when that is torch
// under any alias (`T.qr` keeps `T`), else a visible torch binding, else "torch" with
// `needs_import` set. Empty when no spelling works at `ref`.
std::string torchPrefix(TSNode ref, const analysis::SemanticModel& model, bool& needs_import);

// Texts of a call's arguments, split in positional and keyword (`name=value` kept whole), or
// nullopt when the call has `*args`/`**kwargs` or a comment inside its argument list (a
// regenerated argument list would lose it).
struct CallArgs {
  std::vector<TSNode> positional;
  std::vector<std::pair<std::string_view, TSNode>> keywords;  // name -> the keyword_argument node
  TSNode keywordValue(std::string_view name) const;
  bool hasKeyword(std::string_view name) const { return !ts_node_is_null(keywordValue(name)); }
};
std::optional<CallArgs> plainArguments(TSNode call, std::string_view source);

// `text` as an operand of `+`: parenthesised unless it is a primary expression.
std::string asOperand(TSNode node, std::string_view source);

// Keyword argument text as written: `name=value`.
std::string_view nodeText(TSNode node, std::string_view source);

}  // namespace ptlint::rules::rewrite
