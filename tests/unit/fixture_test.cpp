// The rule-fixture harness. Each tests/fixtures/<area>/<CODE>[_topic].py is a Python file whose
// expectations live inside it (clang-tidy's CHECK-MESSAGES, Ruff's snapshots):
//
//   # ptlint-test: select=PTL501 torch-version=>=2.3,<2.9 unsafe-fixes error-ok compile-decorators=a.b
//   x.item()   # expect: PTL501
//
// - `# expect: CODE[, CODE]`: findings that start on that line, exactly. Any finding no line
//   expects fails the test; a fixture with no expectations must produce nothing.
// - `<fixture>.py.fixed`: the byte-exact result of the fix loop (safe fixes, or also unsafe with
//   `unsafe-fixes`). A fixture whose findings offer applicable fixes must have one. The golden
//   must parse, the loop must converge, and re-linting it must offer no further fix.
// - A fixture that does not parse fails unless its header says `error-ok`.
// Set PTLINT_UPDATE_GOLDENS=1 to (re)write the `.fixed` files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "test_files.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"

namespace fs = std::filesystem;
using namespace ptlint;

namespace {

std::vector<std::string> splitCodes(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

struct Fixture {
  fs::path path;
  std::string text;
  rules::Settings settings;
  bool error_ok = false;
  std::map<uint32_t, std::vector<std::string>> expected;  // 0-based row -> codes
};

Fixture loadFixture(const fs::path& path) {
  Fixture f;
  f.path = path;
  f.text = test_files::readFile(path);
  std::string stem = path.stem().string();
  f.settings.select = {stem.substr(0, stem.find('_'))};
  std::istringstream lines(f.text);
  std::string line;
  uint32_t row = 0;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (auto pos = line.find("# ptlint-test:"); pos != std::string::npos) {
      std::istringstream opts(line.substr(pos + 14));
      std::string opt;
      while (opts >> opt) {
        if (opt.starts_with("select=")) f.settings.select = splitCodes(opt.substr(7));
        else if (opt.starts_with("torch-version=")) f.settings.setTorchRange(*rules::TorchRange::parse(opt.substr(14)));
        else if (opt == "unsafe-fixes") f.settings.unsafe_fixes = true;
        else if (opt == "error-ok") f.error_ok = true;
        else if (opt.starts_with("compile-decorators=")) {
          std::string list = opt.substr(19);
          for (size_t start = 0; start <= list.size();) {
            size_t comma = list.find(',', start);
            if (comma == std::string::npos) comma = list.size();
            f.settings.compile_decorators.push_back(list.substr(start, comma - start));
            start = comma + 1;
          }
        } else ADD_FAILURE() << path << ": unknown ptlint-test option " << opt;
      }
    }
    if (auto pos = line.find("# expect:"); pos != std::string::npos) {
      for (auto& code : splitCodes(line.substr(pos + 9))) f.expected[row].push_back(code);
    }
    ++row;
  }
  for (auto& [r, codes] : f.expected) std::sort(codes.begin(), codes.end());
  return f;
}

// tests/fixtures/<area>/ (the area of rules/<area>/ the code lives in) and, for fixtures added
// before the split, tests/fixtures/ itself.
std::vector<fs::path> fixturePaths() { return test_files::pythonFilesUnder(PTLINT_FIXTURES_DIR); }

quickfix::Applicability minimumFor(const rules::Settings& s) {
  return s.unsafe_fixes ? quickfix::Applicability::Unsafe : quickfix::Applicability::Safe;
}

std::vector<quickfix::Fix> fixesOf(const analysis::ParsedFile& file, const rules::Settings& settings) {
  std::vector<quickfix::Fix> fixes;
  for (auto& d : rules::lintFile(file, settings).diagnostics)
    if (d.fix) fixes.push_back(*d.fix);
  return fixes;
}

class FixtureTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(FixtureTest, FindingsMatchExpectations) {
  Fixture f = loadFixture(GetParam());
  auto file = analysis::ParsedFile::parse(f.text);
  if (!f.error_ok) {
    ASSERT_FALSE(file.hasSyntaxErrors()) << f.path << " does not parse at byte "
                                         << file.syntaxErrors().front().start;
  }
  auto result = rules::lintFile(file, f.settings);
  std::map<uint32_t, std::vector<std::string>> actual;
  for (const auto& d : result.diagnostics) {
    actual[file.lines().lineOf(d.start)].emplace_back(d.code);
    EXPECT_LE(d.start, d.end);
    EXPECT_LE(d.end, f.text.size());
    if (d.fix) {
      for (const auto& e : d.fix->edits) {
        EXPECT_LE(e.start, e.end);
        EXPECT_LE(e.end, f.text.size());
      }
    }
  }
  for (auto& [r, codes] : actual) std::sort(codes.begin(), codes.end());
  for (const auto& [row, codes] : actual) {
    auto it = f.expected.find(row);
    std::string got;
    for (auto& c : codes) got += c + " ";
    if (it == f.expected.end()) {
      ADD_FAILURE() << f.path.filename().string() << ":" << row + 1 << ": unexpected finding(s): " << got;
      for (const auto& d : result.diagnostics)
        if (file.lines().lineOf(d.start) == row) ADD_FAILURE() << "  " << d.code << " " << d.message;
    } else {
      EXPECT_EQ(it->second, codes) << f.path.filename().string() << ":" << row + 1;
    }
  }
  for (const auto& [row, codes] : f.expected)
    if (!actual.count(row))
      ADD_FAILURE() << f.path.filename().string() << ":" << row + 1 << ": expected " << codes.front()
                    << " but nothing was reported";
}

TEST_P(FixtureTest, FixesMatchGoldenAndConverge) {
  Fixture f = loadFixture(GetParam());
  auto file = analysis::ParsedFile::parse(f.text);
  if (file.hasSyntaxErrors()) GTEST_SKIP() << "fixtures with syntax errors get no fixes";
  auto minimum = minimumFor(f.settings);
  bool offers_fix = false;
  for (auto& fix : fixesOf(file, f.settings)) offers_fix = offers_fix || fix.applicability >= minimum;

  fs::path golden = f.path;
  golden += ".fixed";
  auto provider = [&](const analysis::ParsedFile& pf) { return fixesOf(pf, f.settings); };
  auto outcome = quickfix::fixToFixpoint(f.text, minimum, provider);
  EXPECT_FALSE(outcome.reverted) << f.path << ": a fix introduced a syntax error";
  EXPECT_FALSE(outcome.hit_pass_cap) << f.path << ": fixes did not converge";

  if (std::getenv("PTLINT_UPDATE_GOLDENS") != nullptr && offers_fix) {
    std::ofstream(golden, std::ios::binary) << outcome.text;
  }
  if (!offers_fix) {
    EXPECT_FALSE(fs::exists(golden)) << golden << " exists but the fixture offers no applicable fix";
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << f.path << " offers fixes but has no .py.fixed golden "
                                  << "(PTLINT_UPDATE_GOLDENS=1 writes it; review it by eye)";
  std::string expected = test_files::readFile(golden);
  EXPECT_EQ(expected, outcome.text) << "fix result differs from " << golden;

  // The golden itself: parses, and offers nothing further to fix.
  auto fixed = analysis::ParsedFile::parse(expected);
  EXPECT_FALSE(fixed.hasSyntaxErrors()) << golden << " does not parse";
  for (auto& fix : fixesOf(fixed, f.settings))
    EXPECT_LT(fix.applicability, minimum) << golden << " still offers: " << fix.message;
}

std::string fixtureName(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(fixturePaths()), fixtureName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureTest);

}  // namespace
