// workspace/pipeline.h: the one per-file path every front end calls. The same findings from a
// text and from its already parsed tree (the server's), the selection and the lexical guard in
// both, fix-all's loop equal to --fix's, the size limit, and the fixed text given back in the
// file's own form.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rules/attention_facts.h"
#include "rules/linter.h"
#include "workspace/pipeline.h"

using namespace ptlint;

namespace {

const std::string kSource =
    "import torch\n"
    "w = torch.zeros(3, require_grad=True)\n"
    "with torch.cuda.amp.autocast():\n"
    "    pass\n";

workspace::LintRequest requestFor(std::vector<std::string> unfixable = {}) {
  workspace::LintRequest request;
  request.settings.select = {"PTL101", "PTL107"};
  request.fixes.unfixable = std::move(unfixable);
  return request;
}

std::vector<std::pair<std::string, bool>> summary(const std::vector<rules::Diagnostic>& diagnostics) {
  std::vector<std::pair<std::string, bool>> out;
  for (const auto& d : diagnostics) out.emplace_back(std::string(d.code), d.fix.has_value());
  return out;
}

TEST(Pipeline, TheServersTreeGivesTheCliFindingsAndSelection) {
  auto request = requestFor({"PTL107"});
  auto from_text = workspace::lintSource(kSource, request, workspace::LoneCr::None, nullptr);
  request.parsed = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(kSource));
  request.concurrent = true;
  auto from_tree = workspace::lintSource(kSource, request, workspace::LoneCr::None, nullptr);
  std::vector<std::pair<std::string, bool>> expected{{"PTL107", false}, {"PTL101", true}};
  EXPECT_EQ(summary(from_text.diagnostics), expected);
  EXPECT_EQ(summary(from_tree.diagnostics), expected);
}

TEST(Pipeline, FixTextIsTheLoopOfFix) {
  auto request = requestFor({"PTL107"});
  request.fix = true;
  auto outcome = workspace::lintSource(kSource, request, workspace::LoneCr::None, nullptr);
  auto fixed = workspace::fixText(kSource, request);
  EXPECT_TRUE(outcome.changed);
  EXPECT_EQ(fixed.text, outcome.text);
  EXPECT_NE(fixed.text.find("require_grad=True"), std::string::npos);  // unfixable: left as it is
  EXPECT_EQ(fixed.text.find("torch.cuda.amp"), std::string::npos);
}

TEST(Pipeline, CancellationAbandonsTheLoop) {
  auto request = requestFor();
  request.check_cancelled = [] { throw std::runtime_error("cancelled"); };
  EXPECT_THROW(workspace::fixText(kSource, request), std::runtime_error);
}

TEST(Pipeline, ATextOverTheLimitIsNotLinted) {
  std::string big = kSource + std::string(workspace::kMaxFileBytes, '#');
  auto outcome = workspace::lintSource(big, requestFor(), workspace::LoneCr::None, nullptr);
  EXPECT_TRUE(outcome.too_large);
  EXPECT_TRUE(outcome.diagnostics.empty());
  ASSERT_TRUE(outcome.notice);
  EXPECT_TRUE(workspace::isTooLargeMessage(*outcome.notice));
  EXPECT_EQ(*outcome.notice, workspace::tooLargeMessage(big.size()));
}

TEST(Pipeline, RenderTextGivesTheFileItsOwnForm) {
  std::string error;
  workspace::SourceForm bom{true, workspace::LoneCr::None, nullptr, {}};
  EXPECT_EQ(*workspace::renderText(bom, "a\n", {}, error), "\xEF\xBB\xBF" "a\n");
  workspace::SourceForm lone_cr{false, workspace::LoneCr::Only, nullptr, {}};
  EXPECT_EQ(*workspace::renderText(lone_cr, "a\nb\n", {}, error), "a\rb\r");
  EXPECT_EQ(workspace::renderOriginal(lone_cr, "a\n"), "a\r");
  workspace::SourceForm mixed{false, workspace::LoneCr::Mixed, nullptr, {}};
  EXPECT_FALSE(workspace::renderText(mixed, "a\nb\n", {}, error));
  EXPECT_FALSE(error.empty());
}

TEST(Pipeline, FindingDataIsTheRulesOwn) {
  rules::Settings settings;
  settings.select = {"PTL601"};
  auto parsed = analysis::ParsedFile::parse(
      "import torch\n"
      "def attn(q, k, v):\n"
      "    return torch.softmax(q @ k.transpose(-2, -1) / 8.0, dim=-1) @ v\n");
  auto diagnostics = rules::lintFile(parsed, settings).diagnostics;
  ASSERT_EQ(diagnostics.size(), 1u);
  const auto* facts = rules::findingData<rules::AttentionFacts>(diagnostics.front());
  ASSERT_NE(facts, nullptr);
  EXPECT_EQ(facts->scale, rules::AttentionFacts::Scale::Value);
  EXPECT_EQ(rules::findingData<int>(diagnostics.front()), nullptr);  // another rule's type: none
}

}  // namespace
