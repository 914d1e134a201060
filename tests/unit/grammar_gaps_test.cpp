// Valid Python that tree-sitter-python 0.23 rejects parses without syntax errors, and the
// rewrites that make it parse never hide a real error next to it (see analysis/grammar_gaps.h).
#include <gtest/gtest.h>

#include <string>

#include "analysis/parse.h"
#include "analysis/syntax.h"

using ptlint::analysis::ParsedFile;

namespace {

// Every snippet is valid Python (checked with CPython 3.13's compile()).
const char* const kValid[] = {
    "def f(a, y):\n    return a, *(x for x in y)\n",
    "def f(a, b):\n    return *(a), b\n",
    "def f(a, b):\n    yield a, *[b]\n",
    "async def f(a, b):\n    return a, *await b\n",
    "x = 1, *-a, *~b, *1, *None, *...\n",
    "x = *\"ab\", *f\"{a}\"\n",
    "host, *rest = endpoint, *[]\n",
    "a, *(b, c) = seq\n",
    "[*[*a]] = [[7, 8, 9]]\n",
    "for a, *(b, c) in d:\n    pass\n",
    "for x in a, *(y for y in b):\n    pass\n",
    "x = d[*(a, b)]\n",
    "d[1:2, *(a, b)] = v\n",
    "{}, *{}\n",
    "x = *(a,), b\n",
    "x = f\"{a:=^10}\"\n",
    "x = f\"{a!r:=<{w}}\"\n",
    "def f():\n        (bar.\n    baz)\n",
    "type A[T = int] = list[T]\n",
    "type A[*Ts = *tuple[int], **P = [int]] = int\n",
    "def f[T: int = int, *Ts = *1, **P = 1](): pass\n",
    "class C[T: (int, str) = int]: pass\n",
    "x = 1\ry = 2\rif x:\r    y = 3\r",
};

TEST(GrammarGaps, ValidPythonHasNoSyntaxError) {
  for (const char* source : kValid) {
    auto file = ParsedFile::parse(source);
    EXPECT_FALSE(file.hasSyntaxErrors()) << source << "error at byte " << file.syntaxErrors().front().start;
    EXPECT_EQ(file.text(), source);
  }
}

// Each is a syntax error for CPython 3.13 that tree-sitter reports; a rewrite must not hide it.
const char* const kInvalid[] = {
    "def f(a, y):\n    return a, *(x for x in )\n",
    "x = 1, *(a b)\n",
    "x = 1, *(a, b=1)\n",
    "x = a *(b, c=1)\n",               // a multiplication: its star stays
    "print *(a, c=2)\n",
    "def f(*(a)): pass\n",            // a parameter, not a starred expression
    "f = lambda *(a): 0\n",
    "match x:\n    case [*(a)]:\n        pass\n",
    "class C[*(T)]: pass\n",
    "def f[*(T)](): pass\n",
    "type A[T = ] = int\n",
    "type A[T = int =] = int\n",
    "x = f\"{a:=^10\"\n",
    "x = (a.\n1)\n",
    "x = (a.\n# c\nb\n",
    "x = 1, *(a)\n)\n",
    "x = 1\ry = 2 +\r",
    "a, *(b, c) = \n",
    "host, *rest = endpoint, *[] +\n",
    // Python allows a starred expression only as an element of a list.
    "*(2,)\n",
    "x = *(a)\n",
    "def f(a):\n    return *(a)\n",
    "x = {1: *(a), 2: b}\n",
    "f(x=*(a), y=1)\n",
    "x = [*(a) for a in b]\n",
    "type A[T = *int] = int\n",
    "def f[T = int, U](): pass\n",    // a parameter without a default after a default
    "def f[T = int, *Ts = *tuple=[int]](): pass\n",
    "def f[*Ts = *tuple[int] **P = [int]](): pass\n",
    "class C[T = int, 1 **P = ...]: pass\n",
    "host, * 1rest = endpoint, *[]\n",
    "a, *-b = c\n",
};

TEST(GrammarGaps, RealErrorsStayErrors) {
  for (const char* source : kInvalid) EXPECT_TRUE(ParsedFile::parse(source).hasSyntaxErrors()) << source;
}

// A real error after a gap in the same statement is reported where it is, not at the gap.
TEST(GrammarGaps, RealErrorIsReportedAtItsOwnPlace) {
  std::string source = "def f(a, y):\n    return a, *(x for x in y), )\n";
  auto file = ParsedFile::parse(source);
  ASSERT_TRUE(file.hasSyntaxErrors());
  EXPECT_GE(file.syntaxErrors().front().end, source.find(", )") + 2);
}

// The tree of a rewritten file still describes the text as written, and an edit re-parses from
// the text's own tree.
TEST(GrammarGaps, TreeMatchesTheTextAndReparses) {
  std::string source = "def f(a, y):\n    return a, *(x for x in y)\n";
  auto file = ParsedFile::parse(source);
  ASSERT_FALSE(file.hasSyntaxErrors());
  EXPECT_EQ(ptlint::analysis::endOf(file.root()), source.size());
  EXPECT_NE(ptlint::analysis::textOf(file.root(), file.text()).find("(x for x in y)"), std::string_view::npos);

  // `y)` -> `y) +`: a real error now.
  std::string broken = source.substr(0, source.size() - 1) + " +\n";
  uint32_t at = static_cast<uint32_t>(source.size() - 1);
  TSInputEdit edit{at, at, at + 2, {1, at - 13}, {1, at - 13}, {1, at - 11}};
  auto again = file.reparse(broken, edit);
  EXPECT_TRUE(again.hasSyntaxErrors());
  // And back: valid again.
  TSInputEdit undo{at, at + 2, at, {1, at - 13}, {1, at - 11}, {1, at - 13}};
  EXPECT_FALSE(again.reparse(source, undo).hasSyntaxErrors());
}

}  // namespace
