// Valid Python that tree-sitter-python 0.23.6 rejects, and how a file containing it still parses.
//
// The grammar misses a few constructs (see `rewriteGrammarGaps`). Where the first parse reports a
// syntax error, the statement holding it is rewritten into an equivalent form the grammar accepts,
// byte for byte the same length, and the rewritten text is parsed again: what still fails there is
// a real syntax error. Each rewrite keeps the token stream's validity, so a real error survives it.
#pragma once

#include <tree_sitter/api.h>

#include <string>

namespace ptlint::analysis {

// Rewrites, in `text`, the constructs below wherever they lie inside a statement that holds one of
// `root`'s syntax errors, keeping every byte offset:
//  - a starred operand that is not a name, attribute or subscript (`return a, *(x for x in y)`,
//    `x = *[1], 2`, `d[*(i, j)]`, `a, *(b, c) = seq`, `*await f()`, `*-x`): the `*` becomes a
//    space (the grammar accepts `*name` wherever it accepts an expression);
//  - a type-parameter default (`def f[T = int]()`, `class C[*Ts = *tuple[int]]`,
//    `type A[**P = [int]] = ...`): `=` becomes `|`, and the parameter's stars spaces;
//  - a format spec that starts with `=` (`f"{x:=^10}"`): the `=` becomes a space;
//  - an attribute dot that ends a line inside brackets (`(a.\nb)`): the dot moves to the end of
//    the whitespace before the name.
// Returns whether anything changed.
bool rewriteGrammarGaps(std::string& text, TSNode root);

}  // namespace ptlint::analysis
