// Lexical questions the second-wave rules share: which `with` blocks enclose a node inside its
// function, whether a node runs only under a condition, what a builtin call is, and the
// statement a node belongs to. Syntactic, per file; walks only up the parent chain.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string_view>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/semantic_model.h"

namespace ptlint::rules {

// True for the nodes that start a new body of code run at another time: `def`, `lambda`,
// `class` (its body runs once, at definition).
bool isCodeBoundary(TSNode node);

// The context-manager expressions (`x` in `with x as y:`) of every `with` statement that
// encloses `node` within its function (innermost first; stops at a def, lambda or class).
// Only the `with` BODY counts: an expression in the with-items themselves is not enclosed.
std::vector<TSNode> enclosingWithItems(TSNode node);

// True when `node` is lexically under an `if`/`elif`/`else` branch, a conditional expression,
// a `try`'s `except` handler, a `while` or a boolean `and`/`or` operand, within its function.
bool isUnderCondition(TSNode node);

// True when `call` calls the builtin `name` (`print(...)`): the callee is that identifier and it
// is not bound anywhere the call can see (no import, def, assignment or parameter of that name).
bool isBuiltinCall(const analysis::SemanticModel& model, TSNode call, std::string_view name);

// The method name of `x.name(...)`, else empty.
std::string_view methodName(TSNode call, std::string_view source);

// The innermost def enclosing `node`, or the module root.
TSNode enclosingFunctionOrModule(TSNode node);

// The statement (a child of a block or the module) that contains `node`.
TSNode enclosingStatement(TSNode node);

// True when `a` and `b` lie in different branches of one `if` statement (`if`/`elif`/`else`)
// or one `try` (the body against a handler), so they never both run in one pass.
bool inExclusiveBranches(TSNode a, TSNode b);

// A value's literal truth when the source fixes it: resolved through names bound once, or the
// one literal every value the expression may hold is (value flow).
std::optional<bool> boolValue(const analysis::SemanticModel& model, TSNode expr);

}  // namespace ptlint::rules

namespace ptlint::rules {

// The content of a plain string literal (`"cuda"`, `'cuda'`; no prefix, no interpolation,
// no escapes), resolved through names bound once, or the one string every value the expression
// may hold is (value flow); nullopt otherwise.
std::optional<std::string_view> stringValue(const analysis::SemanticModel& model, TSNode expr);

// A call of the method `backward` (`loss.backward()`, `scaler.scale(loss).backward()`) or of
// `torch.autograd.backward(...)`.
bool isBackwardCall(const analysis::SemanticModel& model, TSNode call);

}  // namespace ptlint::rules

namespace ptlint::rules {

// True when some whole-word occurrence of `word` in the file is an identifier of the tree (not a
// string, a comment or part of a longer name). Cheap enough for a prefilter on the tree: one byte search
// and a descent per occurrence, no semantic model.
bool namesIdentifier(const analysis::ParsedFile& file, std::string_view word);

// True when some whole-word occurrence of `word` in the file names what a call calls: the
// callee identifier (`word(...)`) or the method of an attribute callee (`x.word(...)`). As cheap
// as namesIdentifier (Prefilter::tree_calls).
bool callsNamed(const analysis::ParsedFile& file, std::string_view word);

// Pre-parse helpers on a code view (strings and comments blanked): the byte just past the
// bracket that closes the one at `open` (or the text's end), and the argument list text of the
// call `word(...)` at `at` (empty when no `(` follows the word).
size_t closingBracket(std::string_view code, size_t open);
std::string_view callArgumentsAt(std::string_view code, size_t at, size_t word_size);
// True when the code view (or, without one, the text) calls `word`: the whole word followed by
// `(`; with `method`, also preceded by `.` (spaces skipped); with `no_arguments`, by `()` only.
// Without `method`, `word as ...` (an import alias that may be called instead) counts too.
bool codeCalls(const analysis::PrefilterText& source, std::string_view word, bool method = false,
               bool no_arguments = false);

}  // namespace ptlint::rules
