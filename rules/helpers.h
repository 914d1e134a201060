// Syntax helpers shared by rules: call arguments, literals, and where to add an import.
#pragma once

#include <tree_sitter/api.h>

#include <initializer_list>
#include <optional>
#include <utility>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "quickfix/fix.h"

namespace ptlint::rules {

// The value of `name=` in a call's argument list, or a null node.
TSNode keywordArgument(TSNode call, std::string_view name, std::string_view source);
// The `keyword_argument` node itself (for deleting or replacing the whole `name=value`).
TSNode keywordArgumentNode(TSNode call, std::string_view name, std::string_view source);
// Positional arguments in order (not `*args`, not keywords).
std::vector<TSNode> positionalArguments(TSNode call);
bool hasStarArguments(TSNode call);        // f(*args)
bool hasDoubleStarArguments(TSNode call);  // f(**kwargs)
TSNode argumentList(TSNode call);          // the `argument_list` node, or null

// Literal tests on an expression (parentheses ignored).
bool isFalseLiteral(TSNode node);
bool isTrueLiteral(TSNode node);
std::optional<long long> integerLiteral(TSNode node, std::string_view source);
// The value of a plain string literal (`"bf16"`, `'a' 'b'` concatenated); nullopt for f-strings,
// bytes, escapes, anything else.
std::optional<std::string> stringLiteral(TSNode node, std::string_view source);

// Classes and methods.
// The function or class a statement defines, under its decorators.
TSNode definitionOf(TSNode statement);
// The name of a function's first parameter (`self`), or empty.
std::string firstParameter(const analysis::SemanticModel& model, TSNode function);
// `self.<attr>` with `self` the given name: the attribute's name, else empty.
std::string_view selfAttribute(const analysis::SemanticModel& model, TSNode node, std::string_view self);
// The value a `self.<attr>` read in a method holds when the methods of its class assign that
// attribute exactly once, not counting `= None` (`self.amp_dtype = torch.bfloat16` in
// `__init__`, read in `train_step`), or, when no method assigns it, the class body binds it once
// (`amp_dtype = torch.bfloat16`, a class-level default); null otherwise.
TSNode selfAttributeValue(const analysis::SemanticModel& model, TSNode attribute);


// The text to use for the `torch` module at `at`: an existing binding (`torch`, `T`) if one is
// visible and unshadowed, else "torch" plus `needs_import` set (the caller adds `import torch`).
std::string torchModuleName(const analysis::SemanticModel& model, TSNode at, bool& needs_import);

// Appends the insertion/deletion that joins arguments: `f()` + "x" -> `f(x)`, `f(a)` -> `f(a, x)`.
// Inserts at the end of the argument list; with one argument per line and a trailing comma, as
// a new line (`    x,`) so that the closing parenthesis keeps its own line.
// The byte ranges of every whole-identifier occurrence of each word in `text` (in strings and
// comments too): ranges for Rule::checkRanges that never miss an identifier spelled so.
std::vector<std::pair<uint32_t, uint32_t>> wordRanges(std::string_view text, std::initializer_list<std::string_view> words);
// The same, for the occurrences inside `outer` only (as rangesWithin(wordRanges(...), outer)),
// searched for only there: a rule that looks in a few compiled functions of a large file does
// not scan all of it.
std::vector<std::pair<uint32_t, uint32_t>> wordRangesWithin(std::string_view text, std::span<const std::string_view> words,
                                                            std::vector<std::pair<uint32_t, uint32_t>> outer);

// The ranges of `inner` that lie inside one of `outer` (a word inside a compiled function).
std::vector<std::pair<uint32_t, uint32_t>> rangesWithin(std::vector<std::pair<uint32_t, uint32_t>> inner,
                                                        std::vector<std::pair<uint32_t, uint32_t>> outer);

quickfix::Edit appendArgument(TSNode call, std::string_view argument, std::string_view source);

}  // namespace ptlint::rules
