// The generated node kinds (analysis/node_kinds.h) against the grammar the parser runs: every
// constant names a kind of the grammar, and every kind a tree can hold has a constant.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "analysis/parse.h"
#include "analysis/syntax.h"

namespace ptlint::analysis {
namespace {

TEST(NodeKinds, EveryConstantNamesAKindOfTheGrammar) {
  const TSLanguage* language = pythonLanguage();
  for (const NodeKindEntry& entry : kAllNodeKinds) {
    std::string_view name = entry.kind.name();
    auto shape = static_cast<uint8_t>(entry.shape);
    for (bool named : {true, false}) {
      if (!(shape & (named ? 1 : 2))) continue;
      TSSymbol symbol = ts_language_symbol_for_name(language, name.data(), static_cast<uint32_t>(name.size()), named);
      EXPECT_NE(symbol, 0) << "kind::" << name << (named ? " (named)" : " (anonymous)") << " is not in the grammar";
      if (symbol != 0) {
        EXPECT_EQ(std::string_view(ts_language_symbol_name(language, symbol)), name);
      }
    }
  }
}

TEST(NodeKinds, EveryVisibleKindOfTheGrammarHasAConstant) {
  const TSLanguage* language = pythonLanguage();
  std::set<std::string_view> constants;
  for (const NodeKindEntry& entry : kAllNodeKinds) constants.insert(entry.kind.name());
  uint32_t count = ts_language_symbol_count(language);
  for (TSSymbol symbol = 1; symbol < count; ++symbol) {
    TSSymbolType type = ts_language_symbol_type(language, symbol);
    if (type != TSSymbolTypeRegular && type != TSSymbolTypeAnonymous) continue;  // hidden rules
    std::string_view name = ts_language_symbol_name(language, symbol);
    if (name.empty() || name == "\n") continue;  // a newline token, never a node's kind
    EXPECT_TRUE(constants.count(name)) << "no constant for the grammar's kind \"" << name << "\"";
  }
}

TEST(NodeKinds, NodesCompareWithTheConstants) {
  ParsedFile file = ParsedFile::parse("with open(p) as f:\n    x = f.read() ** 2\n");
  TSNode root = file.root();
  EXPECT_EQ(kindOf(root), kind::module);
  EXPECT_TRUE(isKind(root, kind::module));
  EXPECT_FALSE(isKind(root, kind::call));
  EXPECT_FALSE(isKind(TSNode{}, kind::module));
  EXPECT_EQ(kindName(TSNode{}), "");
  std::set<std::string> seen;
  walkTree(root, [&](TSNode n) { seen.insert(std::string(kindName(n))); return true; }, [](TSNode) {});
  // The alias for a `with` target is a kind of its own, which node-types.json does not list.
  EXPECT_TRUE(seen.count(std::string(kind::as_pattern_target.name())));
  EXPECT_TRUE(seen.count(std::string(kind::star_star.name())));
  EXPECT_TRUE(seen.count(std::string(kind::with.name())));
  EXPECT_EQ(kind::float_.name(), "float");
  EXPECT_EQ(kind::is_not.name(), "is not");
  EXPECT_EQ(kind::error.name(), "ERROR");
}

}  // namespace
}  // namespace ptlint::analysis
