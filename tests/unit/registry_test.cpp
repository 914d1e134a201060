// The rule table: one PTLINT_REGISTER_RULE per rule (rules/register.h), each under the code its
// metadata declares, every code once, and the same codes as the documentation lists.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "rules/registry.h"
#include "test_files.h"

namespace ptlint::rules {
#define PTLINT_RULE(CODE) const Rule& registeredRule_##CODE();
#include "rules/rule_list.inc"
#undef PTLINT_RULE
}  // namespace ptlint::rules

namespace {

namespace fs = std::filesystem;
using namespace ptlint;

const fs::path kRepo = fs::path(PTLINT_FIXTURES_DIR).parent_path().parent_path();

struct Registered {
  std::string code;
  const rules::Rule* rule;
};

std::vector<Registered> registered() {
  return {
#define PTLINT_RULE(CODE) {#CODE, &rules::registeredRule_##CODE()},
#include "rules/rule_list.inc"
#undef PTLINT_RULE
  };
}

std::vector<std::string> allCodes() {
  std::vector<std::string> codes;
  for (const rules::RuleMeta* meta : rules::allMetas()) codes.emplace_back(meta->code);
  return codes;
}

TEST(Registry, EachRuleIsRegisteredUnderItsOwnCode) {
  for (const auto& [code, rule] : registered()) EXPECT_EQ(rule->meta().code, code);
}

TEST(Registry, EveryRegisteredRuleIsInTheTableOnce) {
  auto all = rules::allRules();
  ASSERT_EQ(all.size(), registered().size());
  std::set<std::string> codes;
  for (const rules::Rule* rule : all) EXPECT_TRUE(codes.emplace(rule->meta().code).second) << rule->meta().code;
  for (const auto& [code, rule] : registered()) {
    EXPECT_EQ(rules::findRule(code), rule) << code;
  }
  auto metas = allCodes();
  EXPECT_EQ(std::set<std::string>(metas.begin(), metas.end()).size(), metas.size());
}

TEST(Registry, DocsListEveryCode) {
  std::vector<std::string> pages;
  for (const auto& entry : fs::directory_iterator(kRepo / "docs" / "rules"))
    if (entry.path().extension() == ".md" && entry.path().stem() != "README") pages.push_back(entry.path().stem().string());
  std::sort(pages.begin(), pages.end());
  EXPECT_EQ(pages, allCodes()) << "run scripts/gen_rule_docs.sh";
}

TEST(Registry, ReadmeTableListsEveryCode) {
  std::string readme = test_files::readFile(kRepo / "README.md");
  std::vector<std::string> rows;
  std::regex row(R"(\n\| \[(PTL[0-9]{3})\]\()");
  for (std::sregex_iterator it(readme.begin(), readme.end(), row), end; it != end; ++it) rows.push_back((*it)[1]);
  EXPECT_EQ(rows, allCodes()) << "run scripts/gen_rule_docs.sh";
}

}  // namespace
