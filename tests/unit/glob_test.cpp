// globMatches: `exclude`, `extend-exclude` and `per-file-ignores` patterns against paths
// relative to the config root.
#include <gtest/gtest.h>

#include <string>

#include "workspace/config.h"

using ptlint::workspace::globMatches;

namespace {

TEST(Glob, StarAndQuestionMarkStayInOneComponent) {
  EXPECT_TRUE(globMatches("src/*.py", "src/train.py"));
  EXPECT_FALSE(globMatches("src/*.py", "src/sub/train.py"));
  EXPECT_TRUE(globMatches("src/?.py", "src/a.py"));
  EXPECT_FALSE(globMatches("src/?.py", "src/ab.py"));
  EXPECT_FALSE(globMatches("src?x.py", "src/x.py"));
}

TEST(Glob, DoubleStarSpansComponents) {
  EXPECT_TRUE(globMatches("src/**/test_*.py", "src/test_a.py"));
  EXPECT_TRUE(globMatches("src/**/test_*.py", "src/a/b/test_a.py"));
  EXPECT_TRUE(globMatches("**/generated/*.py", "x/generated/a.py"));
  EXPECT_FALSE(globMatches("src/**/test_*.py", "lib/a/test_a.py"));
}

TEST(Glob, WithoutSlashMatchesAnyComponent) {
  EXPECT_TRUE(globMatches("build", "build/lib/x.py"));
  EXPECT_TRUE(globMatches("*.egg-info", "pkg/ptlint.egg-info/PKG-INFO"));
  EXPECT_TRUE(globMatches("test_*.py", "a/b/test_x.py"));
  EXPECT_FALSE(globMatches("build", "rebuild/x.py"));
}

TEST(Glob, FolderGlobsCoverTheirContents) {
  EXPECT_TRUE(globMatches("third_party/vendored", "third_party/vendored/a/b.py"));
  EXPECT_TRUE(globMatches("./docs/", "docs/conf.py"));
  EXPECT_FALSE(globMatches("third_party/vendored", "third_party/vendored2/a.py"));
}

TEST(Glob, CharacterClasses) {
  EXPECT_TRUE(globMatches("v[0-9].py", "v3.py"));
  EXPECT_FALSE(globMatches("v[0-9].py", "vx.py"));
  EXPECT_TRUE(globMatches("v[!0-9].py", "vx.py"));
  EXPECT_FALSE(globMatches("v[^0-9].py", "v3.py"));
}

// Many stars against a long name that almost matches: a backtracking matcher tries every way to
// split the name between them and never finishes; this one decides each state once.
TEST(Glob, ManyStarsDoNotBacktrackExponentially) {
  std::string name(200, 'a');
  std::string stars;
  for (int i = 0; i < 60; ++i) stars += "*a";
  EXPECT_FALSE(globMatches(stars + "b", name));
  EXPECT_TRUE(globMatches(stars, name));
  EXPECT_FALSE(globMatches(std::string(126, '*') + "bSu", "pkg/" + std::string(300, 'x') + "/train.py"));
  EXPECT_FALSE(globMatches("**/" + stars + "b/**", "x/" + name + "/y/" + name));
}

}  // namespace
