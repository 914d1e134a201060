// lintFileConcurrently (the server's call: two threads per file) must give exactly what lintFile
// gives: every finding, message, range, related location and fix, in the same order, on every
// fixture and fixture project, with the default rules and with every rule.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "rules/linter.h"
#include "test_files.h"

using namespace ptlint;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> describe(const rules::LintResult& result) {
  std::vector<std::string> out;
  for (const auto& d : result.diagnostics) {
    std::string line = std::string(d.code) + " " + std::to_string(d.start) + "-" + std::to_string(d.end) + " " + d.message;
    if (!d.help.empty()) line += " | help " + d.help;
    for (const auto& related : d.related) line += " | related " + std::to_string(related.start) + " " + related.message;
    if (d.fix) {
      line += " | fix " + d.fix->message;
      for (const auto& edit : d.fix->edits)
        line += " [" + std::to_string(edit.start) + "," + std::to_string(edit.end) + ") " + edit.content;
    }
    out.push_back(std::move(line));
  }
  if (result.has_syntax_errors) out.push_back("(syntax errors)");
  return out;
}

int compareOn(const fs::path& root) {
  int files = 0;
  rules::Settings defaults, all;
  all.select = {"ALL"};
  for (const fs::path& path : test_files::pythonFilesUnder(root, 2'000'000)) {
    SCOPED_TRACE(path.string());
    auto file = analysis::ParsedFile::parse(test_files::readFile(path));
    for (const rules::Settings* settings : {&defaults, &all})
      EXPECT_EQ(describe(rules::lintFileConcurrently(file, *settings)), describe(rules::lintFile(file, *settings)));
    ++files;
  }
  return files;
}

TEST(ConcurrentLint, SameResultAsOneThreadOnEveryFixture) {
  fs::path fixtures = PTLINT_FIXTURES_DIR;
  int files = compareOn(fixtures) + compareOn(fixtures.parent_path() / "projects");
  EXPECT_GT(files, 100);
}

// The same over a corpus of one's choosing (not part of the suite's default run):
//   PTLINT_CONCURRENT_LINT_CORPUS=/usr/lib/python3/dist-packages ptlint_unit_tests --gtest_filter='ConcurrentLint*'
TEST(ConcurrentLint, SameResultAsOneThreadOnACorpus) {
  const char* corpus = std::getenv("PTLINT_CONCURRENT_LINT_CORPUS");
  if (corpus == nullptr) GTEST_SKIP() << "PTLINT_CONCURRENT_LINT_CORPUS not set";
  EXPECT_GT(compareOn(corpus), 0);
}

}  // namespace
