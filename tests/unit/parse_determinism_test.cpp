// A text parses to the same tree whatever was parsed before it on the thread. With one
// tree-sitter 0.20 parser reused for every parse, a file of the second layout (a `def` whose
// body opens a call it never closes, then a control character) got another tree after the
// files of both layouts had been parsed: the project index then lost a function, and two links
// of one project disagreed (found by fuzz_project). The layouts are fuzzer inputs: files, each
// introduced by a line `### <name>`.
#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/parse.h"

namespace ptlint::analysis {
namespace {

std::vector<std::string> filesOf(const std::string& name) {
  std::ifstream in(std::string(PTLINT_FIXTURES_DIR) + "/../unit/data/parse_determinism/" + name, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  std::vector<std::string> files;
  std::string line;
  while (std::getline(all, line)) {
    if (line.rfind("### ", 0) == 0) files.emplace_back();
    else if (!files.empty()) files.back() += line + "\n";
  }
  return files;
}

std::string treeOf(const std::string& text) {
  ParsedFile parsed = ParsedFile::parse(text);
  char* sexp = ts_node_string(parsed.root());
  std::string out(sexp);
  std::free(sexp);
  return out;
}

TEST(ParseDeterminism, ATextGetsTheSameTreeWhateverWasParsedBefore) {
  std::vector<std::string> texts = filesOf("first_layout.txt");
  std::vector<std::string> second = filesOf("second_layout.txt");
  ASSERT_EQ(texts.size(), 8u);
  ASSERT_EQ(second.size(), 8u);
  texts.insert(texts.end(), second.begin(), second.end());
  std::vector<std::string> first_trees;
  for (const std::string& text : texts) first_trees.push_back(treeOf(text));
  // Again, several rounds: each text is now parsed after all the others.
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(treeOf(texts[i]), first_trees[i]) << "file " << i;
}

}  // namespace
}  // namespace ptlint::analysis
