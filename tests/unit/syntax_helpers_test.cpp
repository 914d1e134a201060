// The shared syntax questions: dotted names, attribute chains, empty calls, and what a call
// passes for a parameter. Each test names a piece of source text; the node under test is the
// smallest one covering it.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "analysis/parse.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"

using namespace ptlint::analysis;

namespace {

class Source {
 public:
  explicit Source(std::string text) : file_(ParsedFile::parse(std::move(text))) {}

  // The smallest named node spanning the first match of `needle`.
  TSNode node(std::string_view needle) const {
    size_t pos = file_.text().find(needle);
    EXPECT_NE(pos, std::string_view::npos) << needle;
    if (pos == std::string_view::npos) pos = 0;
    return ts_node_named_descendant_for_byte_range(file_.root(), static_cast<uint32_t>(pos),
                                                   static_cast<uint32_t>(pos + needle.size()));
  }
  // The first node of `kind` at or above the smallest one spanning `needle`.
  TSNode enclosing(std::string_view needle, NodeKind kind) const {
    TSNode n = node(needle);
    while (!ts_node_is_null(n) && !isKind(n, kind)) n = ts_node_parent(n);
    return n;
  }
  std::string_view text(TSNode n) const { return ts_node_is_null(n) ? "<null>" : textOf(n, file_.text()); }
  std::string_view source() const { return file_.text(); }

 private:
  ParsedFile file_;
};

TEST(SyntaxHelpers, DottedNameTextJoinsTheIdentifiersOfAnImport) {
  Source s("import torch . cuda . amp as A\nfrom torch.nn import functional\n");
  EXPECT_EQ(dottedNameText(s.enclosing("torch . cuda", ptlint::kind::dotted_name), s.source()), "torch.cuda.amp");
  EXPECT_EQ(dottedNameText(s.enclosing("torch.nn", ptlint::kind::dotted_name), s.source()), "torch.nn");
  // Any other node: its text as written.
  EXPECT_EQ(dottedNameText(s.node("A"), s.source()), "A");
}

TEST(SyntaxHelpers, AttributeChainTextNeedsANameAtItsRoot) {
  Source s("x = (torch.compiler).disable\ny = f().disable\n");
  EXPECT_EQ(attributeChainText(s.enclosing("(torch.compiler).disable", ptlint::kind::attribute), s.source()),
            "torch.compiler.disable");
  EXPECT_EQ(attributeChainText(s.enclosing("f().disable", ptlint::kind::attribute), s.source()), "");
}

TEST(SyntaxHelpers, ArgumentForTakesTheKeywordThenThePosition) {
  Source s(
      "sdpa(q, k, v, m, 0.1)\n"
      "sdpa(q, k, v, dropout_p=0.2)\n"
      "sdpa(q, k, v, *rest)\n"
      "sdpa(x for x in y)\n");
  TSNode positional = s.enclosing("sdpa(q, k, v, m", ptlint::kind::call);
  EXPECT_EQ(s.text(argumentFor(positional, 4, "dropout_p", s.source())), "0.1");
  EXPECT_EQ(s.text(argumentFor(positional, 3, "attn_mask", s.source())), "m");
  TSNode keyword = s.enclosing("sdpa(q, k, v, dropout_p", ptlint::kind::call);
  EXPECT_EQ(s.text(argumentFor(keyword, 4, "dropout_p", s.source())), "0.2");
  EXPECT_EQ(s.text(keywordArgumentNode(keyword, "dropout_p", s.source())), "dropout_p=0.2");
  // A `*args` is no positional argument: what it holds is unknown.
  TSNode splat = s.enclosing("sdpa(q, k, v, *rest", ptlint::kind::call);
  EXPECT_TRUE(ts_node_is_null(argumentFor(splat, 3, "attn_mask", s.source())));
  EXPECT_EQ(positionalArguments(splat).size(), 3u);
  // A generator argument is no argument list.
  TSNode generator = s.enclosing("sdpa(x for", ptlint::kind::call);
  EXPECT_TRUE(ts_node_is_null(argumentList(generator)));
  EXPECT_TRUE(ts_node_is_null(argumentFor(generator, 0, "q", s.source())));
}

TEST(SyntaxHelpers, HasNoArgumentsCountsCommentsAsNothing) {
  Source s("a.item()\nb.item(  # why\n)\nc.item(1)\nd.item(x for x in y)\n");
  EXPECT_TRUE(hasNoArguments(s.enclosing("a.item", ptlint::kind::call)));
  EXPECT_TRUE(hasNoArguments(s.enclosing("b.item", ptlint::kind::call)));
  EXPECT_FALSE(hasNoArguments(s.enclosing("c.item", ptlint::kind::call)));
  EXPECT_FALSE(hasNoArguments(s.enclosing("d.item", ptlint::kind::call)));
}

}  // namespace
