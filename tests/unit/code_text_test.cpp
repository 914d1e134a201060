// The code-only view of a file used by byte-level prefilters: strings and comments blanked,
// offsets kept, and no view at all where the lexing is unsure.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/parse.h"
#include "analysis/text_search.h"
#include "rules/linter.h"
#include "rules/registry.h"

using ptlint::analysis::blankStringsAndComments;

TEST(CodeText, BlanksCommentsAndPlainStringsKeepingOffsets) {
  std::string text = "x = torch.log(1 + y)  # log(1 + y)\ns = 'log(1 + y)'\nd = \"\"\"a\nlog(1 + y)\"\"\"\n";
  auto code = blankStringsAndComments(text);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->size(), text.size());
  EXPECT_EQ(*code, "x = torch.log(1 + y)              \ns = '          '\nd = \"\"\" \n          \"\"\"\n");
}

TEST(CodeText, PrefixesEscapesAndFStrings) {
  auto code = blankStringsAndComments("a = rb'\\'x' + f\"{torch.log(1 + y)}\" + B\"#\"  # c\n");
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, "a = rb'   ' + f\"{torch.log(1 + y)}\" + B\" \"     \n");
}

TEST(CodeText, UnsureLexingGivesNoView) {
  EXPECT_FALSE(blankStringsAndComments("s = 'open\nx = 1\n").has_value());    // unterminated
  EXPECT_FALSE(blankStringsAndComments("s = '''open\n").has_value());          // unterminated
  EXPECT_FALSE(blankStringsAndComments("s = xyz'a'\n").has_value());           // unknown prefix
  EXPECT_FALSE(blankStringsAndComments("s = f\"{d[\"k\"]}\"\n").has_value());  // nested same quote
}

TEST(CodeText, PrefiltersIgnoreDocstringMentions) {
  ptlint::rules::Settings ptl704;
  ptl704.select = {"PTL704"};
  EXPECT_TRUE(ptlint::rules::cannotMatch("import torch\n\"\"\"Use torch.log(1 + x).\"\"\"\ny = torch.log(x)\n", ptl704));
  EXPECT_FALSE(ptlint::rules::cannotMatch("import torch\n\"\"\"Doc.\"\"\"\ny = torch.log(1 + x)\n", ptl704));
  ptlint::rules::Settings ptl106;
  ptl106.select = {"PTL106"};
  EXPECT_TRUE(ptlint::rules::cannotMatch("import torch\n# torch.symeig(a) is gone\ny = torch.linalg.eigh(a)\n", ptl106));
  EXPECT_FALSE(ptlint::rules::cannotMatch("import torch\ny = torch.symeig(a)\n", ptl106));
}

TEST(CodeText, Ptl704LooksAtEachLogAndMinusOne) {
  ptlint::rules::Settings ptl704;
  ptl704.select = {"PTL704"};
  // `1 +`, `softmax`, `exp`/`sum` and `- 1` all occur, but never as the rule's operands.
  EXPECT_TRUE(ptlint::rules::cannotMatch(
      "import torch\ny = torch.log(x)\nz = f(1 + x)\nw = g(x).softmax(-1)\nv = x.exp().sum()\nu = n - 1\n", ptl704));
  for (const char* site : {"y = torch.log(1 + x)\n", "y = (x + 1).log()\n", "y = x.exp().sum(-1).log()\n",
                           "y = torch.log(F.softmax(x, -1))\n", "y = torch.exp(x) - 1\n", "y = (x.exp()) - 1.0\n"})
    EXPECT_FALSE(ptlint::rules::cannotMatch(std::string("import torch\n") + site, ptl704)) << site;
}

// PTL704 looks at a `- 1` only where it can be a subtraction: a minus right after `=`, `(`, `[`,
// `,`, `:` or `{` is unary, past blanks, line breaks and comments alike; every other layout of
// `exp(x) - 1` is still found.
TEST(CodeText, Ptl704SkipsUnaryMinusButNoSubtraction) {
  ptlint::rules::Settings ptl704;
  ptl704.select = {"PTL704"};
  auto findings = [&](const std::string& body) {
    // The first subtraction is one the file's prefilter knows; the one under test follows.
    auto file = ptlint::analysis::ParsedFile::parse("import torch\n\ndef f(x):\n    z = torch.exp(x) - 1\n" + body +
                                                   "    return y, z\n");
    return ptlint::rules::lintFile(file, ptl704).diagnostics.size() - 1;
  };
  for (const char* site : {"    y = torch.exp(x) - 1\n", "    y = torch.exp(x)-1\n", "    y = torch.exp(x) - (1)\n",
                           "    y = (torch.exp(x)\n         - 1)\n", "    y = g(torch.exp(x)  # the exp, then\n          - 1)\n",
                           "    y = [torch.exp(x) - 1.0]\n", "    y = {'k': torch.exp(x) - 1}\n",
                           "    y = g(torch.exp(x) - 1, dim=-1)\n"})
    EXPECT_EQ(findings(site), 1u) << site;
  for (const char* site : {"    y = torch.exp(x).sum(dim=-1)\n", "    y = torch.exp(x)[:-1]\n",
                           "    y = torch.exp(x), -1\n", "    y = {'k': -1, 'e': torch.exp(x)}\n"})
    EXPECT_EQ(findings(site), 0u) << site;
}

TEST(CodeText, Ptl106NamesAreWholeIdentifiersInCode) {
  ptlint::rules::Settings ptl106;
  ptl106.select = {"PTL106"};
  EXPECT_TRUE(ptlint::rules::cannotMatch("import torch\ny = torch.cholesky_solve(b, u)\n", ptl106));
  EXPECT_FALSE(ptlint::rules::cannotMatch("import torch\ny = torch.cholesky(a)\n", ptl106));
  EXPECT_FALSE(ptlint::rules::cannotMatch("from functorch import vmap\n", ptl106));
}

namespace {

// Does PTL106 itself, run without any prefilter, report on `text`?
bool ptl106Reports(const std::string& text) {
  ptlint::rules::Settings settings;
  settings.select = {"PTL106"};
  const ptlint::rules::Rule* rule = nullptr;
  for (const ptlint::rules::Rule* r : ptlint::rules::allRules())
    if (r->meta().code == "PTL106") rule = r;
  auto result = ptlint::rules::lintFile(ptlint::analysis::ParsedFile::parse(text), settings, {rule});
  return !result.diagnostics.empty();
}

}  // namespace

TEST(CodeText, Ptl106LooksAtTheObjectBeforeTheName) {
  ptlint::rules::Settings ptl106;
  ptl106.select = {"PTL106"};
  // Names no chain can resolve to a deprecated symbol: another module's function of that name,
  // a method, a definition, an assignment, a relative import.
  for (const char* text : {"import torch\ny = torch.linalg.cholesky(a)\n", "y = self.lu_solve(b)\n",
                           "def cholesky(a):\n    return _linalg.linalg_cholesky(a)\n",
                           "cholesky = _add_docstr(_linalg.linalg_cholesky, 'doc')\n",
                           "from .weight_norm import weight_norm, remove_weight_norm\n",
                           "import torch\nx = a[0].symeig()\n"}) {
    EXPECT_FALSE(ptl106Reports(text)) << text;
    EXPECT_TRUE(ptlint::rules::cannotMatch(text, ptl106)) << text;
  }
  // Every spelling that does reach one still passes the prefilter (and is reported).
  for (const char* text : {"import torch\ny = torch.cholesky(a)\n", "import torch as T\ny = T.cholesky(a)\n",
                           "import torch\nt = torch\ny = t.cholesky(a)\n", "import torch\ny = (torch).cholesky(a)\n",
                           "import torch\ny = torch .\\\n  cholesky(a)\n", "from torch import cholesky\ny = cholesky(a)\n",
                           "from  torch  import (\n    zeros,  # first\n    cholesky as c,\n)\ny = c(a)\n",
                           "from torch import nn\nnn.utils.weight_norm(m)\n",
                           "from torch.nn import utils as U\nU.weight_norm(m)\n",
                           "import torch.utils._pytree as pt\npt._register_pytree_node(C, f, g)\n",
                           "from torch.backends.cuda import sdp_kernel\nwith sdp_kernel(enable_math=False):\n    pass\n"}) {
    EXPECT_TRUE(ptl106Reports(text)) << text;
    EXPECT_FALSE(ptlint::rules::cannotMatch(text, ptl106)) << text;
  }
}

// findBytes against std::string_view::find: texts of a few letters (so that first and last bytes
// match often), every start offset, words longer than a vector, hits in the last bytes.
TEST(TextSearch, FindBytesFindsWhatFindFinds) {
  std::mt19937 random(7);
  for (int round = 0; round < 400; ++round) {
    std::string text(random() % 140, 'a');
    for (char& c : text) c = "abc\n"[random() % 4];
    for (int w = 0; w < 6; ++w) {
      std::string word(1 + random() % 40, 'a');
      for (char& c : word) c = "abc\n"[random() % (w < 3 ? 2 : 4)];
      if (w == 5 && text.size() >= 3) word = text.substr(text.size() - 1 - random() % 3);  // at the very end
      std::string_view tv(text), wv(word);
      for (size_t from = 0; from <= text.size(); ++from)
        ASSERT_EQ(ptlint::analysis::findBytes(tv, wv, from), tv.find(wv, from)) << text << " / " << word << " @" << from;
      size_t expected = tv.find(wv);
      size_t end = expected == std::string_view::npos ? text.size() : expected;
      ASSERT_EQ(ptlint::analysis::firstOccurrenceNarrow(text.data(), text.size(), word.data(), word.size()), end)
          << text << " / " << word;
    }
  }
  EXPECT_EQ(ptlint::analysis::findBytes("abc", "", 0), std::string_view::npos);
  EXPECT_EQ(ptlint::analysis::findBytes("abc", "c", 4), std::string_view::npos);
}

// offsetsOfBytes against a byte loop, across the blocks it takes at once and the bytes after them.
TEST(TextSearch, OffsetsOfBytesFindsEveryByte) {
  std::mt19937 random(11);
  for (int round = 0; round < 300; ++round) {
    std::string text(random() % 200, 'a');
    for (char& c : text) c = "ab([{}])\"'"[random() % 10];
    for (std::string_view bytes : {std::string_view("()[]{}"), std::string_view("\"'"), std::string_view("a")}) {
      std::vector<uint32_t> expected, seen;
      for (size_t i = 0; i < text.size(); ++i)
        if (bytes.find(text[i]) != std::string_view::npos) expected.push_back(static_cast<uint32_t>(i));
      ptlint::analysis::offsetsOfBytes(text, bytes, seen);
      ASSERT_EQ(seen, expected) << text << " / " << bytes;
    }
  }
}

TEST(TextSearch, WordSetFindsWhatMemmemFinds) {
  std::vector<std::string_view> words{"log", "exp", "logsumexp", "amp", "am", "(1 +", "", "p"};
  ptlint::analysis::WordSet set(words);
  for (std::string_view text : {"", "logsumexp", "x = torch.log(1 + y)", "example amp _amp amp_ ampé", "aaaamp",
                                "(1 + 1 +", "log\nexp", "xlogx logsumexpx"}) {
    auto found = set.scan(text);
    for (size_t k = 0; k < words.size(); ++k) {
      bool sub = !words[k].empty() && ptlint::analysis::findBytes(text, words[k]) != std::string_view::npos;
      bool whole = ptlint::analysis::forEachWholeWord(text, words[k], [](size_t) { return true; });
      EXPECT_EQ(found.substring(k), sub) << text << " / " << words[k];
      EXPECT_EQ(found.wholeWord(k), whole) << text << " / " << words[k];
    }
    // Every occurrence, overlapping ones included, once.
    for (size_t k = 0; k < words.size(); ++k) {
      std::vector<size_t> expected, seen;
      if (!words[k].empty()) ptlint::analysis::forEachOccurrence(text, words[k], [&](size_t at) { expected.push_back(at); });
      set.forEachMatch(text, [&](size_t id, size_t at) {
        if (id == k) seen.push_back(at);
        return false;
      });
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, expected) << text << " / " << words[k];
    }
  }
}

// A large text is scanned in parts at once: words at, across and right after each part's start,
// and in the bytes left over at the end, are found as a scan of the whole text would find them.
TEST(TextSearch, WordSetScansLargeTextsInPartsWithoutLosingBoundaries) {
  auto expectSameAsMemmem = [](const ptlint::analysis::WordSet& set, const std::vector<std::string_view>& words,
                               const std::string& text) {
    auto found = set.scan(text);
    for (size_t k = 0; k < words.size(); ++k) {
      bool sub = ptlint::analysis::findBytes(text, words[k]) != std::string_view::npos;
      bool whole = ptlint::analysis::forEachWholeWord(text, words[k], [](size_t) { return true; });
      EXPECT_EQ(found.substring(k), sub) << words[k];
      EXPECT_EQ(found.wholeWord(k), whole) << words[k];
    }
  };
  std::vector<std::string_view> placed{"alpha", "beta", "gamma", "delta", "omega", "kappa", "absent"};
  ptlint::analysis::WordSet placed_set(placed);
  for (size_t size : {size_t{65536}, size_t{262147}, size_t{300001}}) {
    std::string text(size, '.');
    size_t part = size / 4;
    text.replace(0, 5, "omega");                 // the first byte of the first part
    text.replace(part - 2, 5, "alpha");          // across the second part's start
    text.replace(2 * part - 4, 4, "beta");       // ends on the last byte before the third part
    text.replace(3 * part, 5, "gamma");          // the first byte of the last part
    text.replace(size - 5, 5, "delta");          // the last bytes of the text
    text.replace(3 * part - 6, 6, "xkappa");     // inside a longer identifier: no whole word
    expectSameAsMemmem(placed_set, placed, text);
  }
  // Random texts over few letters: words of ten letters occur in some and not in others.
  std::mt19937 random(7);
  std::vector<std::string> owned;
  for (int w = 0; w < 12; ++w) {
    std::string word;
    for (int i = 0; i < 9 + w % 3; ++i) word += "abcd"[random() % 4];
    owned.push_back(word);
  }
  owned.push_back("ab");
  std::vector<std::string_view> words(owned.begin(), owned.end());
  ptlint::analysis::WordSet set(words);
  for (int round = 0; round < 12; ++round) {
    std::string text(70000 + random() % 50000, ' ');
    for (char& c : text) c = "abcd _"[random() % 6];
    expectSameAsMemmem(set, words, text);
  }
}
