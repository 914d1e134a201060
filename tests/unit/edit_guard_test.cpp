// The guard every edit passes (quickfix/edit_guard.h) and the notebook edit tracker
// (workspace/notebook_edits.h): comments only where Python reads a comment, edits within one
// token context, magics followed by position.
#include <gtest/gtest.h>

#include <string>

#include "quickfix/edit_guard.h"
#include "quickfix/fix_loop.h"
#include "workspace/notebook.h"
#include "workspace/notebook_edits.h"

namespace ptlint {
namespace {

using quickfix::Edit;
using quickfix::LexicalMap;

std::optional<Edit> noqaAt(const std::string& text, const std::string& line) {
  LexicalMap map(text);
  return quickfix::noqaInsertion(text, map, static_cast<uint32_t>(text.find(line)), "PTL101", std::nullopt);
}

TEST(EditGuard, NoqaGoesAtTheEndOfACodeLine) {
  std::string text = "x = f(1)   \ny = 2\n";
  auto edit = noqaAt(text, "x =");
  ASSERT_TRUE(edit);
  EXPECT_EQ(edit->start, text.find("   \n"));
  EXPECT_EQ(edit->content, "  # noqa: PTL101");
  // After another comment, and after a comment ending with a backslash (still a comment).
  EXPECT_TRUE(noqaAt("x = 1  # note\n", "x ="));
  EXPECT_TRUE(noqaAt("x = 1  # a \\\n", "x ="));
  // Inside brackets a comment is fine.
  EXPECT_TRUE(noqaAt("x = (f(1),\n     2)\n", "x ="));
}

TEST(EditGuard, NoqaNeverInsideAStringNorAfterAContinuation) {
  for (const char* text : {
           "x = f(\"\"\"\n\"\"\")\n", "x = f('''\n''')\n", "x = f(r'''\\\n''')\n", "x = f(b\"\"\"\n\"\"\")\n",
           "x = f(Rb'''\n''')\n", "x = f\"\"\"{f(1)}\n\"\"\"\n", "x = f'''{f\"{g()!r:>{10}}\"} {{\n'''\n",
           "x = f'''{d[\"k\"]}\n'''\n", "x = f(1) if y \\\n    else 2\n", "x = (f(1) if y \\\n    else 2)\n",
           "s = '''\nx = f(1)\n",  // unterminated: the rest of the file is string text
       }) {
    std::string s(text);
    EXPECT_FALSE(noqaAt(s, "x =")) << s;
  }
  // The line after the string's end can take one.
  std::string after = "s = '''\n'''\nx = f(1)\n";
  EXPECT_TRUE(noqaAt(after, "x = f"));
}

TEST(EditGuard, EditsStayInTheirTokens) {
  std::string text = "x = f('a b', 1)  # c\n";
  LexicalMap map(text);
  uint32_t a = static_cast<uint32_t>(text.find('a'));
  EXPECT_TRUE(map.allows(Edit{a, a + 1, "z"}));                        // inside one string
  EXPECT_FALSE(map.allows(Edit{a, a + 6, "z"}));                       // from a string into code
  EXPECT_TRUE(map.allows(Edit{0, 1, "y"}));                            // code
  EXPECT_FALSE(map.allows(Edit{a, a, "  # noqa: PTL101"}));            // a comment into a string
  uint32_t c = static_cast<uint32_t>(text.find("c\n"));
  EXPECT_FALSE(map.allows(Edit{c, c, "\ny = 1"}));                     // a line break into a comment
  std::string continued = "x = 1 + \\\n    2\n";
  LexicalMap cmap(continued);
  uint32_t end = static_cast<uint32_t>(continued.find('\n'));
  EXPECT_FALSE(cmap.allows(Edit{end, end, " 3"}));                     // text after the backslash
}

TEST(EditGuard, EndsOpen) {
  for (const char* open : {"x = f(\n", "x = 1 + \\\n", "s = '''abc\n", "d = {1:\n", "x = 'abc", "x = [f'{a}'"})
    EXPECT_TRUE(LexicalMap(open).endsOpen()) << open;
  for (const char* closed : {"x = f()\n", "x = 1  # (\n", "s = '''(\n'''\n", "x = ')'\n", "x = f'{a}('\n", ""})
    EXPECT_FALSE(LexicalMap(closed).endsOpen()) << closed;
}

TEST(EditGuard, DeeplyNestedFieldsAreBounded) {
  std::string nested = "x = ";
  for (int k = 0; k < 100000; ++k) nested += "f'{";
  LexicalMap map(nested);  // no unbounded recursion
  EXPECT_TRUE(map.endsOpen());
  EXPECT_FALSE(map.commentPointOfLine(0));
}

TEST(JoinedTracker, MagicsFollowedByPositionAndNeverEdited) {
  // `%pdb` is masked as `    pass`, which the real line under `except` already is.
  workspace::Notebook nb = workspace::notebookFromCells(
      {"try:\n    import a\nexcept ImportError:\n    pass\nif D:\n    %pdb\nx = 1\n", "!ls\ny = 2\n"});
  workspace::JoinedTracker tracker(nb);
  ASSERT_EQ(tracker.masked().size(), 2u);
  std::string text = nb.joined;
  uint32_t magic = tracker.masked()[0].offset;
  EXPECT_FALSE(tracker.allows(Edit{magic, magic + 4, "x"}));
  EXPECT_FALSE(tracker.allows(Edit{magic + 8, magic + 8, "  # noqa: X"}));
  EXPECT_TRUE(tracker.allows(Edit{magic, magic, "z = 0\n"}));     // a whole line before it
  uint32_t sep = static_cast<uint32_t>(text.find(workspace::kCellSeparator));
  EXPECT_FALSE(tracker.allows(Edit{sep - 2, sep + 3, ""}));        // across the boundary
  EXPECT_EQ(tracker.cellOf(0), 0);
  EXPECT_EQ(tracker.cellOf(sep + 3), -1);
  EXPECT_EQ(tracker.cellOf(static_cast<uint32_t>(text.size())), 1);
  // A line inserted at the top: the magic moves down with it and comes back there.
  std::vector<Edit> pass = {Edit{0, 0, "import b\n"}};
  std::string fixed = quickfix::applyEdits(text, pass, "\n");
  tracker.apply(pass);
  std::string error;
  auto sources = tracker.cellSources(fixed, error);
  ASSERT_TRUE(sources) << error;
  EXPECT_EQ((*sources)[0], "import b\ntry:\n    import a\nexcept ImportError:\n    pass\nif D:\n    %pdb\nx = 1\n");
  EXPECT_EQ((*sources)[1], "!ls\ny = 2\n");
  // Without following the edit, the text does not match where the magic was: refused.
  EXPECT_FALSE(workspace::JoinedTracker(nb).cellSources(fixed, error));
}

}  // namespace
}  // namespace ptlint
