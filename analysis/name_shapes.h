// Byte-level questions about names in a file's code (its text with strings and comments blanked,
// `code_text.h`), for prefilters that must never hide a finding: what a name can be bound to,
// what an attribute is read from, what a call is given. Each answer errs towards "it may".
#pragma once

#include <cstddef>
#include <string_view>

namespace ptlint::analysis {

// Offsets past the spaces, tabs, line breaks and line continuations before / after `at`.
size_t skipSpaceBack(std::string_view code, size_t at);
size_t skipSpaceForward(std::string_view code, size_t at);

// Can `name` be bound in `code` to something of torch's that the semantic model resolves
// through (an import or an alias assignment)? `import name` binds the module `name` and `from m
// import name` binds `m.name`, which callers check by the name itself; every other such binding
// spells the name after `as` (counted when the import's module path starts with `torch`, or the
// line is not a one-line import), before `=` with a name or attribute chain as the value (a
// keyword argument `name=x` counts too), or before `:` in `name := value` or `name: T = value`
// (same values). `torch_imports_only` false: every `as name` counts, whatever it imports.
bool mayBeRebound(std::string_view code, std::string_view name, bool torch_imports_only = true);

// What the word at `at` is read from: None (a bare name), Name (`X.word`, X a bare name),
// Unresolved (`f(x).word`, `x[0].word`, `(-x).word`: what no qualified name is made of), Other (a
// longer chain `a.b.word`, a parenthesised name, anything unclear).
struct Receiver {
  enum class Kind { None, Name, Unresolved, Other } kind = Kind::None;
  std::string_view name;  // Kind::Name only
};
Receiver receiverOf(std::string_view code, size_t at);

// The arguments of a call whose `(` is at `open` in `code`: positional ones before the first
// keyword, and whether a keyword `keyword=` is among them; `complete` is false when the call does
// not close or holds `*`/`**` (then nothing is known).
struct CallArguments {
  bool complete = false;
  size_t positional = 0;
  bool has_keyword = false;
};
CallArguments callArguments(std::string_view code, size_t open, std::string_view keyword);

// Can a whole-word `word` of `code` be called with at least `count` positional arguments: some
// `word(` given that many (keywords do not count; a `lambda` or a prefixed string at the call's
// depth, or a call left open, may), or `word` where it is not called but may be bound to
// another name (after `.`, `=`, `,`, `(` or `import`)? `def word(` does not count.
bool mayCallWithPositional(std::string_view code, std::string_view word, size_t count);

}  // namespace ptlint::analysis
