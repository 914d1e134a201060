// Rules that say where they look (`Rule::checkRanges`) let the linter walk only the subtrees
// overlapping those ranges. The findings must be exactly those of the walk over every node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_files.h"
#include "analysis/syntax.h"
#include "rules/linter.h"
#include "rules/registry.h"

using namespace ptlint;

namespace {

// Asks for calls without saying where it looks: with it among the rules, the linter walks every
// node, as it did before ranges existed. It never reports.
class SeesEveryCall final : public rules::Rule {
 public:
  const rules::RuleMeta& meta() const override {
    static const rules::RuleMeta meta{.code = "TEST01", .name = "sees-every-call", .summary = "test"};
    return meta;
  }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  void check(TSNode, rules::Context&) const override { ++calls; }
  mutable int calls = 0;
};

// Looks only at the calls overlapping the given ranges, and records the calls it is handed.
class LooksInRanges final : public rules::Rule {
 public:
  explicit LooksInRanges(std::vector<std::pair<uint32_t, uint32_t>> ranges) : ranges_(std::move(ranges)) {}
  const rules::RuleMeta& meta() const override {
    static const rules::RuleMeta meta{.code = "TEST02", .name = "looks-in-ranges", .summary = "test"};
    return meta;
  }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call, kind::module}; }
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel&,
                                                         const rules::Settings&) const override {
    return ranges_;
  }
  void check(TSNode node, rules::Context& ctx) const override { seen.emplace_back(ctx.text(node)); }
  mutable std::vector<std::string> seen;

 private:
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
};

std::string describe(const rules::LintResult& result) {
  std::ostringstream out;
  for (const auto& d : result.diagnostics) {
    out << d.code << ' ' << d.start << '-' << d.end << ' ' << d.message;
    if (d.fix)
      for (const auto& e : d.fix->edits) out << " [" << e.start << '-' << e.end << ':' << e.content << ']';
    for (const auto& r : d.related) out << " {" << r.start << '-' << r.end << ' ' << r.message << '}';
    out << '\n';
  }
  return out.str();
}

TEST(RangedDispatch, HandsOnlyTheNodesOverlappingTheRanges) {
  std::string source = "import torch\nx = f(1)\ny = g(h(2))\nz = k(3)\n";
  auto file = analysis::ParsedFile::parse(source);
  auto at = static_cast<uint32_t>(source.find("h(2)"));
  LooksInRanges rule({{at, at + 1}});
  rules::lintFile(file, rules::Settings{}, {&rule});
  // The module always; then `g(h(2))` and `h(2)`, which overlap the range; not `f(1)` nor `k(3)`.
  ASSERT_EQ(rule.seen.size(), 3u);
  EXPECT_EQ(rule.seen[1], "g(h(2))");
  EXPECT_EQ(rule.seen[2], "h(2)");
}

TEST(RangedDispatch, EveryNodeWhenARuleDoesNotSayWhereItLooks) {
  std::string source = "x = f(1)\ny = g(2)\n";
  auto file = analysis::ParsedFile::parse(source);
  LooksInRanges ranged({});
  SeesEveryCall every;
  rules::lintFile(file, rules::Settings{}, {&ranged, &every});
  EXPECT_EQ(every.calls, 2);
  EXPECT_EQ(ranged.seen.size(), 3u);  // no range: the whole walk hands it everything it asked for
}

// On every fixture, each rule that says where it looks reports exactly what it reports when the
// linter walks every node.
TEST(RangedDispatch, FixturesGiveTheSameFindingsAsTheWholeWalk) {
  SeesEveryCall every;
  int compared = 0;
  for (const auto& path : test_files::pythonFilesUnder(PTLINT_FIXTURES_DIR)) {
    std::string text = test_files::readFile(path);
    auto file = analysis::ParsedFile::parse(text);
    for (const rules::Rule* rule : rules::allRules()) {
      if (!rule->checksWithinRanges()) continue;
      rules::Settings settings;
      settings.select = {std::string(rule->meta().code)};
      auto candidates = rules::rulesThatMayMatch(text, settings);
      if (candidates.empty()) continue;
      auto ranged = rules::lintFile(file, settings, candidates);
      candidates.push_back(&every);
      auto whole = rules::lintFile(file, settings, candidates);
      EXPECT_EQ(describe(ranged), describe(whole)) << path.filename() << " " << rule->meta().code;
      compared += ranged.diagnostics.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(compared, 10);  // the fixtures do exercise the ranged rules
}

}  // namespace
