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

// isKind and kindOf compare grammar symbols through a table made from the grammar; they must
// answer as the names do, for every node of a tree that holds most of the grammar (errors and
// aliased nodes included) and every constant.
TEST(NodeKinds, SymbolComparisonsAnswerAsNamesDo) {
  ParsedFile file = ParsedFile::parse(
      "import a.b as c\nfrom . import (d, e as f)\n@dec\nasync def g(x: int = 1, *args, y, **kw) -> None:\n"
      "    global h\n    with open(p) as q, r:\n        await s\n    async for t in u: yield t\n"
      "    return [v for v in w if v is not None], {k: v for k, v in z}, lambda m: m ** 2\n"
      "class C(B, metaclass=M):\n    type X = int\n    def m[T](self) -> T: ...\n"
      "match p:\n    case [1, *rest] | {\"k\": _} if rest: pass\n    case Point(x=0) as pt: pass\n"
      "try:\n    pass\nexcept* E as e:\n    raise F from e\nfinally:\n    del x[1:2, ...]\n"
      "print(f\"{a!r:>{w}}\", b'x', -1.5j, not a, a @ b, a // b, ~c)\nx += 1; y: int = 2; assert x, y\n"
      "while True:\n    break\nelse:\n    continue\nexec 'x'\nprint >> f, x\ndef broken(:\n    )\n");
  size_t nodes = 0;
  bool saw_error = false;
  walkTree(
      file.root(),
      [&](TSNode n) {
        ++nodes;
        std::string_view type = ts_node_type(n);
        saw_error = saw_error || type == "ERROR";
        EXPECT_EQ(kindName(n), type);
        for (const NodeKindEntry& entry : kAllNodeKinds)
          EXPECT_EQ(isKind(n, entry.kind), entry.kind.name() == type) << "kind::" << entry.kind.name() << " at a " << type;
        EXPECT_TRUE(kindOf(n) == kindOf(n));
        return true;
      },
      [](TSNode) {});
  EXPECT_GT(nodes, 300u);
  EXPECT_TRUE(saw_error);
  EXPECT_FALSE(kindOf(TSNode{}) == kind::module);
  EXPECT_TRUE(kindOf(TSNode{}) == kindOf(TSNode{}));
}

TEST(NodeKinds, FieldsAreFoundByName) {
  const TSLanguage* language = pythonLanguage();
  uint32_t count = ts_language_field_count(language);
  ASSERT_GT(count, 10u);
  for (uint32_t id = 1; id <= count; ++id) {
    const char* name = ts_language_field_name_for_id(language, static_cast<TSFieldId>(id));
    ASSERT_NE(name, nullptr);
    EXPECT_EQ(fieldIdNamed(name), id) << name;
  }
  EXPECT_EQ(fieldIdNamed(""), 0);
  EXPECT_EQ(fieldIdNamed("no_such_field"), 0);
  EXPECT_EQ(fieldIdNamed("functio"), 0);
  ParsedFile file = ParsedFile::parse("f(x).y\n");
  TSNode call = ts_node_named_child(ts_node_named_child(ts_node_named_child(file.root(), 0), 0), 0);
  ASSERT_TRUE(isKind(call, kind::call));
  EXPECT_EQ(textOf(fieldOf(call, "function"), file.text()), "f");
  EXPECT_EQ(textOf(fieldOf(call, "arguments"), file.text()), "(x)");
  EXPECT_TRUE(ts_node_is_null(fieldOf(call, "body")));
}

}  // namespace
}  // namespace ptlint::analysis
