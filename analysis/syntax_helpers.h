// The syntax questions rules and analyses share, answered once: dotted names, call arguments.
// Built on `syntax.h`; every function tolerates a null or unexpected node (it answers empty).
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ptlint::analysis {

// "a . b" -> "a.b": a `dotted_name` (imports) joined from its identifiers; any other node's text.
std::string dottedNameText(TSNode node, std::string_view source);

// "a.b.c" for an identifier or a chain of attributes on one (parentheses ignored), else empty.
std::string attributeChainText(TSNode expr, std::string_view source);

// A call's `argument_list`, or null (`f(x for x in y)` has none).
TSNode argumentList(TSNode call);
// The first `name=value` argument of a call, or null.
TSNode keywordArgumentNode(TSNode call, std::string_view name, std::string_view source);
// Its value, or null.
TSNode keywordArgument(TSNode call, std::string_view name, std::string_view source);
// The positional arguments in order (no keywords, `*args`, `**kwargs` or comments).
std::vector<TSNode> positionalArguments(TSNode call);
// `f()`: an argument list holding nothing but comments (`f(x for x in y)` has none: false).
bool hasNoArguments(TSNode call);
// What a call passes for the parameter `keyword` at `position`: the keyword argument's value,
// else the positional argument there, else null (the default, or hidden in `*args`/`**kwargs`).
TSNode argumentFor(TSNode call, size_t position, std::string_view keyword, std::string_view source);

}  // namespace ptlint::analysis
