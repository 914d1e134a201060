// tomlNestingDepth: the pre-scan that keeps documents nested thousands deep away from toml++
// (which recurses per level). Counts header components, dotted keys and value brackets; never
// what is inside strings or comments.
#include <gtest/gtest.h>

#include <string>

#include "workspace/config.h"

using ptlint::workspace::tomlNestingDepth;

namespace {

size_t depth(const std::string& text) { return tomlNestingDepth(text).depth; }

TEST(TomlDepth, CountsHeaderComponentsDottedKeysAndBrackets) {
  EXPECT_EQ(depth("[tool.ptlint]\nselect = [\"PTL\"]\n"), 3u);  // tool.ptlint + the array
  EXPECT_EQ(depth("[a.b.c.d]\n"), 4u);
  EXPECT_EQ(depth("[[a.b]]\n"), 3u);                            // two brackets while in the header
  EXPECT_EQ(depth("[a]\nx.y.z = 1\n"), 3u);
  EXPECT_EQ(depth("x = {a = {b = [[1]]}}\n"), 4u);
}

TEST(TomlDepth, IgnoresStringsAndComments) {
  EXPECT_EQ(depth("x = \"a.b.c.d.e[[[{{{\"\n"), 0u);
  EXPECT_EQ(depth("x = 'a.b.c.d.e[[[{{{'\n"), 0u);
  EXPECT_EQ(depth("x = \"\"\"\n.[.[.[\n\"\"\"\n"), 0u);
  EXPECT_EQ(depth("x = '''\n.[.[.['''\n"), 0u);
  EXPECT_EQ(depth("x = \"a\\\"....\"\n"), 0u);                  // an escaped quote does not end it
  EXPECT_EQ(depth("# [a.b.c.d.e.f]\nx = 1\n"), 0u);
  EXPECT_EQ(depth("[tool.\"a.b.c\".d]\n"), 3u);                 // a quoted key is one component
}

TEST(TomlDepth, ReportsTheLineWhereTheDepthIsReached) {
  auto d = tomlNestingDepth("x = 1\n\n[a.b.c]\ny = \"\"\"\n\n\"\"\"\n[d.e.f.g]\n");
  EXPECT_EQ(d.depth, 4u);
  EXPECT_EQ(d.line, 7u);
}

TEST(TomlDepth, HostileDepthsAreMeasuredWithoutRecursion) {
  std::string header = "[tool.other";
  for (int i = 0; i < 50000; ++i) header += ".a";
  EXPECT_EQ(depth(header + "]\nx = 1\n"), 50002u);
  std::string dotted = "a";
  for (int i = 0; i < 60000; ++i) dotted += ".a";
  EXPECT_EQ(depth(dotted + " = 1\n"), 60000u);
  EXPECT_EQ(depth("x = " + std::string(100000, '[') + std::string(100000, ']') + "\n"), 100000u);
}

}  // namespace
